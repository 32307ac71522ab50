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
# the latest change wins: the slider moved last, then a save of a new default sets it
sleep 1.2
scene 13
wait_for "a save of a new default after a slider: the file's value, the slider follows" '[ "$(hz)" = 13 ] && [ "$(rev)" = "4 of 4" ]'
grep -q "the file sets hz to 13 (its slider had" "$tmp/s.jsonl" || fail "the reload does not say the file's value replaced the slider's"
echo "ok   a saved default after a slider move: hz $(hz), and the reload says the file's value replaced the slider's"
# a run of saves shows one reload notice, the latest, not a pile over the scene
for v in 14 15 16; do sleep 1.2; scene $v; wait_for "the save of $v reloads" '[ "$(hz)" = '$v' ]'; done
[ "$(field notices)" = 1 ] || fail "after three saves $(field notices) notices are over the scene"
echo "ok   three saves in a row: one reload notice shown"
quit_app

# Every tunable takes part in every tool, past the sliders the panel shows at once: a scene of
# 40 tunables has 42 sliders (the drag's two last), the wheel over the panel scrolls them, a
# slider scrolled into view sets its tunable, and Ctrl+Z after a save that changed two of them
# (the 5th and the 38th) puts both back.
many() { # the 5th and the 38th tunables' values
  {
    echo 'local sb = require "springbox"'
    echo 'local tune = sb.tune{'
    for i in $(seq -w 1 40); do
      v=1; [ "$i" = 05 ] && v=$1; [ "$i" = 38 ] && v=$2
      echo "  t$i = {$v, 0, 10},"
    done
    echo '}'
    echo 'local w = sb.world{ collisions = false }'
    echo 'local top = w:particle{ x = 0, y = 1, fixed = true }'
    echo 'local bob = w:particle{ x = 0, y = 0, radius = 0.1 }'
    echo 'w:spring(top, bob, { hertz = 1 + tune.t05 + tune.t38, damping_ratio = 0.1 })'
    echo 'return { world = w, title = "many tunables test", tune = tune }'
  } >"$tmp/many.lua"
}
rm -f "$tmp/s.jsonl"
many 1 1
start_app "many tunables test" "$tmp/many.lua"
t() { last | sed -n "s/.*\"t$1\":\([^,}]*\).*/\1/p"; }
panel() { last | sed -n 's/.*"sliders":\[\([0-9,]*\)\].*/\1/p'; }
wait_for "40 tunables are 42 sliders, the first shown first" '[ "$(panel | cut -d, -f1,3)" = "42,1" ]'
sleep 1.2
many 4 6
wait_for "a save that changes two tunables is one revision" '[ "$(rev)" = "2 of 2" ] && [ "$(t 05)" = 4 ] && [ "$(t 38)" = 6 ]'
xdotool key --window "$wid" ctrl+z
wait_for "Ctrl+Z puts both back, the 38th too" '[ "$(rev)" = "1 of 2" ] && [ "$(t 05)" = 1 ] && [ "$(t 38)" = 1 ]'
xdotool key --window "$wid" ctrl+y
wait_for "Ctrl+Y brings both again" '[ "$(rev)" = "2 of 2" ] && [ "$(t 05)" = 4 ] && [ "$(t 38)" = 6 ]'
echo "ok   Ctrl+Z and Ctrl+Y take the 5th and the 38th of 40 tunables back and forth"
[ "$(panel | cut -d, -f4)" -lt 38 ] || fail "the 38th slider is shown without scrolling: the test proves nothing ($(panel))"
xdotool mousemove --window "$wid" 870 300
for _ in $(seq 1 40); do xdotool click --window "$wid" 5; done
wait_for "the wheel over the panel scrolls the sliders to the last" '[ "$(panel | cut -d, -f4)" = 42 ]'
scroll=$(panel | cut -d, -f2)
# the 38th slider's bar: y = 40 + 37 * 46 + 20 - scroll, from x 752 to 988; its middle is 5
y=$((40 + 37 * 46 + 20 - scroll + 5))
xdotool mousemove --window "$wid" 870 "$y" click 1
wait_for "a slider scrolled into view sets its tunable" '[ "$(rev)" = "3 of 3" ] && [ "$(t 38)" != 6 ] && [ "$(t 05)" = 4 ]'
echo "ok   the wheel scrolls the panel (by $scroll px) and the 38th slider sets t38 to $(t 38)"
quit_app
echo "window revisions: ok"
