#!/usr/bin/env bash
# The tuning history in the real window: every save and every slider release
# is a revision of the tunables; Ctrl+Z puts the one before in force (as a retune: the run goes
# on), Ctrl+Y the one after, and a change made at an earlier revision drops the later ones.
set -u
bin="$1"
tools=""
displays="$(seq 241 270)"
. "$(dirname "$0")/xvfb_window.sh"

scene() { # the file's stiffness
  cat >"$tmp/scene.lua" <<LUA
local sb = require "springbox"
local tune = sb.tune{ hz = {$1, 1, 21} }
local w = sb.world{ gravity = {0, -9.81}, collisions = false }
local top = w:particle{ x = 0, y = 1, fixed = true }
local weight = w:particle{ x = 0, y = 0, radius = 0.1 }
w:spring(top, weight, { hertz = tune.hz, damping_ratio = 0.1 })
return { world = w, title = "revisions test", tune = tune }
LUA
}
scene 3
start_app "revisions test" "$tmp/scene.lua"
hz() { last | sed -n 's/.*"tunables":{"hz":\([^}]*\)}.*/\1/p'; }
rev() { last | sed -n 's/.*"revision":\[\([0-9]*\),\([0-9]*\)\].*/\1 of \2/p'; }
wait_for "the first revision is the file's" '[ "$(rev)" = "1 of 1" ] && [ "$(hz)" = 3 ]'
sleep 1.2 # a save must look new to the file watcher
scene 7
wait_for "a save is revision 2" '[ "$(rev)" = "2 of 2" ] && [ "$(hz)" = 7 ]'
# the slider: the first of the panel, its bar at y 60..70 from x 752 to 988 (1000 px wide window)
xdotool mousemove --window "$wid" 870 65 click 1
wait_for "a slider release is revision 3" '[ "$(rev)" = "3 of 3" ] && [ "$(hz)" != 7 ]'
slid=$(hz)
t=$(field time)
xdotool key --window "$wid" ctrl+z
wait_for "Ctrl+Z: revision 2, the saved value" '[ "$(rev)" = "2 of 3" ] && [ "$(hz)" = 7 ]'
xdotool key --window "$wid" ctrl+z
wait_for "Ctrl+Z again: revision 1, the first file's value" '[ "$(rev)" = "1 of 3" ] && [ "$(hz)" = 3 ]'
awk -v t="$(field time)" -v t0="$t" 'BEGIN { exit !(t > t0) }' || fail "the run did not go on through the revisions"
xdotool key --window "$wid" ctrl+y
xdotool key --window "$wid" ctrl+y
wait_for "Ctrl+Y twice: revision 3 again" '[ "$(rev)" = "3 of 3" ] && [ "$(hz)" = "$slid" ]'
echo "ok   save and slider are revisions; Ctrl+Z and Ctrl+Y step through them ($(hz) Hz at revision $(rev))"
xdotool key --window "$wid" ctrl+z
wait_for "back at revision 2" '[ "$(rev)" = "2 of 3" ]'
xdotool mousemove --window "$wid" 790 65 click 1
wait_for "a change at revision 2 drops the later ones" '[ "$(rev)" = "3 of 3" ] && [ "$(hz)" != "$slid" ] && [ "$(hz)" != 7 ]'
echo "ok   a change made at an earlier revision drops the ones after it"
quit_app
echo "window revisions: ok"
