#!/usr/bin/env bash
# The scene host in the real window under Xvfb, driven by xdotool: W writes exactly the slider that
# moved, at its declaration, byte for byte (a comment that looks like a declaration, a name that
# holds another, an odd name and a comment with a NUL byte all stay as they were), and refuses a
# file that is not plain text; a scene's camera at 1e12 m and 1e9 px/m neither crashes the window
# nor makes it allocate by the zoom.
set -u
bin="$1"
tools="import cmp"
displays="$(seq 151 180)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
-- k = {1, 0, 10} in a comment is not the declaration
local sb = require "springbox"
local t = sb.tune{
  k = {2, 0, 10},
  spring_k = {4, 0, 10}, -- a name that holds another
  ["odd name"] = {3, 0, 10},
}
local w = sb.world{ gravity = {0, 0}, collisions = false }
local a = w:particle{ x = -1, y = 0, fixed = true, radius = 0.1 }
local b = w:particle{ x = 0, y = 1, radius = 0.1 }
w:spring(a, b, { hertz = t.k + t.spring_k + t["odd name"] })
return { world = w, title = "host test",
  keypressed = function(key)
    if key == "z" then sb.camera.look(1e12, -1e12, 1e-6) end
    if key == "x" then sb.camera.look(0, 1, 1e-6) end
    if key == "v" then sb.camera.follow(b, 1e9) end
    if key == "b" then sb.camera.look(0, 0, 6) end
  end }
LUA
cp "$tmp/scene.lua" "$tmp/before.lua"
start_app "host test" "$tmp/scene.lua"

# the first slider (k, 0..10) spans pixels 752..988 at y = 60: its middle is 5
xdotool mousemove --window "$wid" 870 60 click 1
wait_for "moving the slider re-runs the scene" 'grep -q "tuning applied, state kept" "$tmp/s.jsonl"'
xdotool key w
wait_for "W writes the moved slider" 'grep -q "wrote 1 slider value into" "$tmp/s.jsonl"'
new=$(sed -n 's/^  k = {\([-0-9.]*\), 0, 10},$/\1/p' "$tmp/scene.lua")
[ -n "$new" ] && [ "$new" != 2 ] || fail "k's number did not change: $(sed -n 4p "$tmp/scene.lua")"
# the slider (0..10 over 236 px) moves by 0.05, a pixel or more: W writes a round value
awk -v v="$new" 'BEGIN { r = v * 20; exit !(r == int(r)) }' || fail "W wrote $new, not a multiple of the slider's 0.05 step"
sed "4s/^  k = {2, 0, 10},\$/  k = {$new, 0, 10},/" "$tmp/before.lua" >"$tmp/want.lua"
cmp "$tmp/want.lua" "$tmp/scene.lua" || fail "W changed more than k's number: $(diff "$tmp/want.lua" "$tmp/scene.lua")"
ls "$tmp" | grep -q -- '-w-' && fail "W left its temporary file"
echo "ok   W wrote k = $new at its declaration and changed nothing else, byte for byte"

# a NUL byte in a comment: W refuses and the file keeps every byte
{ printf -- '-- a NUL here: \000\n'; cat "$tmp/scene.lua"; } >"$tmp/next.lua"
cp "$tmp/next.lua" "$tmp/scene.lua"
cp "$tmp/next.lua" "$tmp/with_nul.lua"
wait_for "the edit reloads" '[ "$(grep -c "\"event\":\"reload\"" "$tmp/s.jsonl")" -ge 2 ]'
sleep 0.3
xdotool mousemove --window "$wid" 960 60 click 1
sleep 0.5
xdotool key w
wait_for "W says why it did not write" 'grep -q "not plain UTF-8 text" "$tmp/s.jsonl"'
cmp "$tmp/with_nul.lua" "$tmp/scene.lua" || fail "W changed a file that is not plain text"
echo "ok   W refused a file with a NUL byte and left it as it was"

# the camera at the far ends of what the API accepts
for key in z x v b; do
  xdotool key $key
  sleep 0.4
  kill -0 $app 2>/dev/null || fail "the window died after camera key $key"
  rss=$(ps -o rss= -p $app | tr -d ' ')
  [ "$rss" -lt 1000000 ] || fail "camera key $key: $rss KiB resident"
  echo "ok   camera key $key: alive, $rss KiB resident"
done
wait_for "the camera is back (6 m of world in 700 px)" 'last | grep -q "\"camera\":\[0,0,116\.6"'
import -window root "$tmp/shot.png"
[ -n "${SPRINGBOX_SHOTS:-}" ] && cp "$tmp/shot.png" "$SPRINGBOX_SHOTS/window_host.png"
quit_app

# A polyline of a million points under balls: the drawing visits the walls near the view only,
# and none while the camera and the walls stay as they were, so the window keeps its frames
# (the designer saw 4 frames in 3 s when every wall was drawn each frame).
cat >"$tmp/long.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{}
local pts = {}
for i = 0, 999999 do pts[#pts + 1] = -50 + i * 1e-4; pts[#pts + 1] = 0.1 * math.sin(i * 1e-3) end
w:polyline(pts)
local balls = {}
for i = 1, 40 do balls[i] = w:particle{ x = -1 + i * 0.05, y = 1 + (i % 4) * 0.1, radius = 0.02 } end
return { world = w, title = "long polyline test",
  keypressed = function(key) if key == "f" then sb.camera.follow(balls[1], 2) end end }
LUA
rm -f "$tmp/s.jsonl"
start_app "long polyline test" "$tmp/long.lua"
wait_for_long() { for _ in $(seq 1 300); do eval "$2" && return 0; sleep 0.1; done; fail "$1"; }
wait_for_long "the window draws on: 120 frames" '[ "$(field frame)" -ge 120 ]'
still=$(tail -n 20 "$tmp/s.jsonl" | sed -n 's/.*"walls_visited":\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
[ "$still" = 0 ] || fail "with the camera still the drawing visits $still walls a frame"
xdotool key f
f0=$(field frame)
wait_for_long "the window draws on with the camera following a ball: 120 frames more" '[ "$(field frame)" -ge $((f0 + 120)) ]'
moving=$(tail -n 20 "$tmp/s.jsonl" | sed -n 's/.*"walls_visited":\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
[ -n "$moving" ] && [ "$moving" -gt 0 ] && [ "$moving" -lt 200000 ] || fail "following a ball the drawing visits ${moving:-no} walls a frame"
echo "ok   a million-point polyline: no wall visited with the camera still, at most $moving a frame following a ball"
quit_app
