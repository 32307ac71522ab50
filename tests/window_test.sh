#!/usr/bin/env bash
# The real window under Xvfb, driven by xdotool as a person would: drag a particle and check
# through the app's stats that it followed the mouse; pause and check that time stopped;
# switch method, iterations, tethers and the compare view and check that they changed; quit.
set -u
bin="$1"
tools=""
displays="$(seq 90 120)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local tune = sb.tune{ hz = {4, 1, 61} }
local w = sb.world{ gravity = {0, 0}, collisions = false }
w:particle{ x = -3, y = 0, fixed = true, radius = 0.15 }
w:particle{ x = 0, y = 0, radius = 0.2 }
w:particle{ x = -3, y = 3, fixed = true, radius = 0.1 }
w:spring(w:particle{ x = -2, y = 3, radius = 0.1 }, w:particle{ x = -1, y = 3, radius = 0.1 }, { hertz = tune.hz })
return { world = w, title = "window test", tune = tune }
LUA
start_app "window test" "$tmp/scene.lua"

# drag: world (0,0) is pixel (370,350); move it to world (1.5,1) = pixel (520,250)
xdotool mousemove --window "$wid" 370 350 mousedown 1
for step in 1 2 3 4 5; do xdotool mousemove --window "$wid" $((370 + 30 * step)) $((350 - 20 * step)); sleep 0.05; done
# true when particle 2 is being dragged and sits within 5 cm of (1.5, 1)
dragged_near_target() {
  local xy
  xy=$(last | sed -n 's/.*"drag":{"index":2,"x":\([^,]*\),"y":\([^,]*\),.*/\1 \2/p')
  [ -n "$xy" ] && awk -v x="${xy% *}" -v y="${xy#* }" 'BEGIN { exit !((x - 1.5)^2 + (y - 1)^2 < 0.0025) }'
}
wait_for "the dragged particle follows the mouse to (1.5, 1)" dragged_near_target
xdotool mouseup 1
wait_for "the drag ends on release" '! last | grep -q "\"drag\""'
echo "ok   drag: the particle followed the mouse"

xdotool key space
wait_for "pause shows in the stats" '[ "$(field paused)" = true ]'
t1=$(field time); sleep 0.6; t2=$(field time)
[ "$t1" = "$t2" ] || fail "time moved while paused: $t1 -> $t2"
xdotool key space
wait_for "resume" '[ "$(field paused)" = false ]'
wait_for "time moves again" '[ "$(field time)" != "$t2" ]'
echo "ok   pause: time stood still at $t1 s, then moved on"

xdotool key 6
wait_for "key 6 switches to xpbd" '[ "$(field method)" = "\"xpbd\"" ]'
xdotool key 3
wait_for "key 3 switches to sequential" '[ "$(field method)" = "\"sequential\"" ]'
before=$(field iterations)
xdotool key Up
wait_for "up adds an iteration" '[ "$(field iterations)" = $((before + 1)) ]'
echo "ok   method and iterations switch live"

# the compare view's right side starts with the left's settings, tethers too (it
# showed tethers on and off when T had not been pressed)
xdotool key c
wait_for "C opens the compare view with the left's tethers" '[ "$(field compare)" = true ] && [ "$(field right_tethers)" = "$(field tethers)" ]'
xdotool key c
wait_for "C closes it" '[ "$(field compare)" = false ]'
xdotool key t
wait_for "T turns tethers off" '[ "$(field tethers)" = false ]'
xdotool key t
wait_for "T turns them back on" '[ "$(field tethers)" = true ]'
echo "ok   tethers toggle live"

xdotool key c
wait_for "C opens the compare view" '[ "$(field compare)" = true ] && [ -n "$(field right_method)" ]'
xdotool key shift+5
wait_for "shift+5 sets the right side to verlet" '[ "$(field right_method)" = "\"verlet\"" ]'
xdotool key t
wait_for "T in the compare view turns both sides' tethers off" '[ "$(field tethers)" = false ] && [ "$(field right_tethers)" = false ]'
xdotool key t
wait_for "and both back on" '[ "$(field tethers)" = true ] && [ "$(field right_tethers)" = true ]'
echo "ok   compare view: left $(field method), right $(field right_method)"
[ -n "${SPRINGBOX_SHOT:-}" ] && command -v import >/dev/null && import -window root "$SPRINGBOX_SHOT"

# the first slider (hz, 1..61) spans pixels 752..988 at y = 60: its middle is 31
xdotool mousemove --window "$wid" 870 60 click 1
wait_for "moving a slider re-runs the scene, state kept" 'grep -q "tuning applied, state kept" "$tmp/s.jsonl"'
sleep 0.3
kept_before=$(grep -c '"result":"kept"' "$tmp/s.jsonl")
xdotool key w
wait_for "W writes the slider value into the file" 'grep -qE "hz = \{31(\.0)?," "$tmp/scene.lua"'
# the file now says what the slider already applied: kept, and said to change nothing
wait_for "the saved file reloads with the state kept" '[ "$(grep -c "\"result\":\"kept\"" "$tmp/s.jsonl")" -gt "$kept_before" ]'
grep -q "reloaded, state kept: no spring, mass or gravity changed" "$tmp/s.jsonl" || fail "a save that changed nothing was called a tuning"
# what is written is what the slider shows: its precision, no tail of digits
grep -qE "hz = \{[0-9]+(\.[0-9])?," "$tmp/scene.lua" || fail "W wrote more digits than the slider shows: $(grep -o "hz = {[^}]*}" "$tmp/scene.lua")"
grep -q '"event":"reload","frame":[0-9]*,"side":"[a-z]*","result":"kept"' "$tmp/s.jsonl" || fail "--stats has no reload objects"
echo "ok   slider: hz set to 31 live, written back as shown: $(grep -o "hz = {[^}]*}" "$tmp/scene.lua"); reloads in --stats"

# one slow drag of a slider, with pauses, is one reload (a drag once gave three)
sleep 0.5
kept() { grep -c '"event":"reload".*"result":"kept"' "$tmp/s.jsonl"; }
before=$(kept)
xdotool mousemove --window "$wid" 820 60 mousedown 1
for px in 840 860 880 900; do sleep 0.3; xdotool mousemove --window "$wid" $px 60; done
sleep 0.3
mid=$(kept)
xdotool mouseup 1
wait_for "releasing the slider reloads" '[ "$(kept)" -gt "$before" ]'
sleep 0.5
after=$(kept)
[ "$mid" -eq "$before" ] || fail "the slider reloaded while it was being dragged ($((mid - before)) times)"
sides=1; last | grep -q '"compare":true' && sides=2 # the compare view reloads each side
[ "$after" -eq $((before + sides)) ] || fail "one drag gave $((after - before)) reloads on $sides side(s)"
echo "ok   one slider drag (1.5 s, four pauses) is one reload per side ($sides)"

quit_app
