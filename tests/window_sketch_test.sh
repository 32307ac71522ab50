#!/usr/bin/env bash
# Draw mode in the real window: D, then a click on empty space adds a particle (shift: fixed), a drag from one
# particle to another a spring, a stroke over empty space a ground line, each a line of Lua in the
# scene file's drawn block, which the window reloads with the running particles' state kept;
# Ctrl+Z takes the last back out of the file and Ctrl+Y puts it back. Tab's tools draw a rope
# along a stroke, a jelly box corner to corner and a ball centre to radius. The designer's own
# lines stay byte for byte, and the file runs on its own; --record-input keeps the drawing and
# --replay draws it again headless. A scene draw mode cannot edit safely is refused with nothing
# written.
set -u
bin="$1"
tools="cmp"
displays="$(seq 271 300)"
. "$(dirname "$0")/xvfb_window.sh"
eval "harness_$(declare -f fail)"
fail() { echo "--- the drawn block:"; sed -n '/^-- drawn in/,/^-- end of drawn/p' "$tmp/scene.lua" 2>/dev/null; harness_fail "$@"; }

cat >"$tmp/scene.lua" <<'LUA'
-- a scene to draw in
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
w:wall(-4, -2, 4, -2)
local left = w:particle{ x = -1, y = 1, fixed = true }
local right = w:particle{ x = 1, y = 1, fixed = true }

return { world = w, title = "sketch test" }
LUA
cp "$tmp/scene.lua" "$tmp/designed.lua"
start_app "sketch test" "$tmp/scene.lua" "--record-input $tmp/hands.txt"
has() { grep -qF -- "$1" "$tmp/scene.lua"; }
wait_for "the scene runs" '[ "$(field particles)" = 2 ]'
xdotool key --window "$wid" d
# world (x, y) is pixel (370 + 100 x, 350 - 100 y)
xdotool mousemove --window "$wid" 420 150 click 1
wait_for "a click on empty space is a particle in the file and the world" \
  'has "w:particle{ x = 0.5, y = 2 }" && [ "$(field particles)" = 3 ]'
echo "ok   a click adds w:particle{ x = 0.5, y = 2 }, and the world has it"
xdotool mousemove --window "$wid" 320 150; xdotool keydown shift; xdotool click 1; xdotool keyup shift
wait_for "a shift+click is a fixed particle" 'has "w:particle{ x = -0.5, y = 2, fixed = true }" && [ "$(field particles)" = 4 ]'
xdotool key --window "$wid" ctrl+z
wait_for "Ctrl+Z takes the fixed particle back" '! has "x = -0.5, y = 2, fixed = true" && [ "$(field particles)" = 3 ]'
echo "ok   a shift+click adds a fixed particle"
xdotool mousemove --window "$wid" 270 250 mousedown 1
for x in 320 370 420 470; do xdotool mousemove --window "$wid" $x 250; sleep 0.05; done
xdotool mouseup 1
wait_for "a drag from a particle to another is a spring" \
  'has "w:spring(w:pick(-1, 1), w:pick(1, 1))" && [ "$(field springs)" = 1 ]'
echo "ok   a drag between the two adds w:spring(w:pick(-1, 1), w:pick(1, 1)), and the world has it"
xdotool mousemove --window "$wid" 70 450 mousedown 1
for i in $(seq 1 12); do xdotool mousemove --window "$wid" $((70 + 25 * i)) $((450 + 4 * i)); sleep 0.03; done
for i in $(seq 1 12); do xdotool mousemove --window "$wid" $((370 + 25 * i)) $((498 - 8 * i)); sleep 0.03; done
xdotool mouseup 1
wait_for "a stroke on empty space is a ground line through its corners, on the 0.1 m grid" 'has "w:polyline{ -3, -1, 0, -1.5, 3, -0.5 }"'
echo "ok   a stroke adds $(grep -F 'w:polyline' "$tmp/scene.lua")"
xdotool key --window "$wid" ctrl+z
wait_for "Ctrl+Z takes the ground line back out of the file" '! has "w:polyline" && has "w:spring("'
xdotool key --window "$wid" ctrl+z
wait_for "Ctrl+Z again takes the spring out, and the world loses it" '! has "w:spring(" && [ "$(field springs)" = 0 ]'
xdotool key --window "$wid" ctrl+y
wait_for "Ctrl+Y puts the spring back" 'has "w:spring(w:pick(-1, 1), w:pick(1, 1))" && [ "$(field springs)" = 1 ]'
echo "ok   Ctrl+Z takes the last drawn line out of the file, Ctrl+Y puts it back"
# the tools: a rope along a stroke, a jelly box corner to corner, a ball centre to radius; the
# world runs on through each (its clock is not reset: the running particles keep their state)
stroke() { # from (x1, y1) to (x2, y2) in pixels, in 8 moves
  xdotool mousemove --window "$wid" "$1" "$2" mousedown 1
  for i in $(seq 1 8); do xdotool mousemove --window "$wid" $(($1 + ($3 - $1) * i / 8)) $(($2 + ($4 - $2) * i / 8)); sleep 0.03; done
  xdotool mouseup 1
}
before=$(field time)
xdotool key --window "$wid" Tab
stroke 170 100 570 100
wait_for "a stroke with the rope tool is a chain of beads 0.2 m apart" \
  'has "w:chain({ -2, 2.5, 2, 2.5 }, { spacing = 0.2 })" && [ "$(field particles)" = 24 ] && [ "$(field springs)" = 21 ]'
awk -v a="$(field time)" -v b="$before" 'BEGIN { exit !(a > b) }' || fail "the rope's reload restarted the clock ($before -> $(field time))"
grep '"result":"kept"' "$tmp/s.jsonl" | grep -q '21 particles and 20 springs added: state kept' ||
  { grep '"event":"reload"' "$tmp/s.jsonl"; fail "the rope's reload does not say it kept the state"; }
echo "ok   the rope tool adds $(grep -F 'w:chain' "$tmp/scene.lua"), the running world keeps its state"
xdotool key --window "$wid" Tab
stroke 170 450 370 350
wait_for "a drag with the box tool is a jelly box tuned as a structure" \
  'has "w:box(-1, -0.5, 2, 1, { hertz = 3, damping_ratio = 0.5 })" && [ "$(field particles)" = 69 ]'
echo "ok   the box tool adds $(grep -F 'w:box' "$tmp/scene.lua")"
xdotool key --window "$wid" Tab
stroke 570 450 600 410
wait_for "a drag with the ball tool is a particle of that radius" 'has "w:particle{ x = 2, y = -1, radius = 0.5 }" && [ "$(field particles)" = 70 ]'
echo "ok   the ball tool adds $(grep -F 'radius = 0.5' "$tmp/scene.lua")"
for k in 1 2 3; do xdotool key --window "$wid" ctrl+z; done
wait_for "Ctrl+Z takes the ball, the box and the rope back" '! has "w:chain" && ! has "w:box" && [ "$(field particles)" = 3 ]'
xdotool key --window "$wid" Tab # back to the first tool
# the designer's lines, byte for byte: the file without the drawn block is the file as written
sed '/^-- drawn in the window/,/^-- end of drawn$/d' "$tmp/scene.lua" | sed '/^$/N;/^\n$/D' >"$tmp/undrawn.lua"
cmp -s "$tmp/undrawn.lua" "$tmp/designed.lua" || { diff "$tmp/designed.lua" "$tmp/undrawn.lua"; fail "draw mode changed the designer's own lines"; }
echo "ok   the designer's own lines are as written"
"$bin" --headless --frames 30 --stats "$tmp/alone.jsonl" "$tmp/scene.lua" >/dev/null 2>&1 || fail "the drawn file does not run on its own"
grep -q '"particles":3,"springs":1' "$tmp/alone.jsonl" || fail "the drawn file, run on its own, does not build what was drawn"
echo "ok   the drawn file runs on its own, headless, with what was drawn"
quit_app
# the drawing replayed headless from the recording: the designer's file becomes the drawn one again
cp "$tmp/scene.lua" "$tmp/drawn.lua"
grep -q "^[0-9]* sketch " "$tmp/hands.txt" && grep -q "^[0-9]* take_back$" "$tmp/hands.txt" || fail "the recording holds no drawing"
cp "$tmp/designed.lua" "$tmp/scene.lua"
frames=600 # (a drawn line that restarts the run starts its frames over: the events span several runs)
"$bin" --headless --replay "$tmp/hands.txt" --frames "$frames" --stats "$tmp/replayed.jsonl" "$tmp/scene.lua" >/dev/null 2>&1 ||
  fail "the recording does not replay headless"
cmp -s "$tmp/scene.lua" "$tmp/drawn.lua" || { diff "$tmp/drawn.lua" "$tmp/scene.lua"; fail "the replayed drawing differs from the drawn file"; }
grep '"frame"' "$tmp/replayed.jsonl" | tail -n 1 | grep -q '"particles":3,"springs":1' || fail "the replayed world is not the drawn one"
echo "ok   --record-input keeps the drawing, and --replay draws it again headless: the same file, the same world"

# a scene with no `local w = sb.world{` to draw into: refused, nothing written
cat >"$tmp/other.lua" <<'LUA'
return { world = require("springbox").world{}, title = "no variable" }
LUA
cp "$tmp/other.lua" "$tmp/other.before"
: >"$tmp/s.jsonl"
start_app "no variable" "$tmp/other.lua"
xdotool key --window "$wid" d
xdotool mousemove --window "$wid" 420 150 click 1
run_frames 30
cmp -s "$tmp/other.lua" "$tmp/other.before" || fail "draw mode wrote into a scene it cannot edit"
[ "$(field particles)" = 0 ] || fail "draw mode added a particle it did not write"
echo "ok   a scene without a world variable is refused, its file untouched"
quit_app
