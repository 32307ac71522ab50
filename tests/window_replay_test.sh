#!/usr/bin/env bash
# The same hands against the same or a new tuning, as a person would do it
# under Xvfb: drag a weight on a breakable rope and let go, with --record-input; F5 replays the
# drag from the start and the run repeats exactly (the same energy at the same times); the
# recording replayed headless with --replay gives the same run again, and with the rope's break
# force saved lower in the file the replayed drag breaks it ("this drag must not break it" is a
# --stats check a designer can keep next to the scene).
set -u
bin="$1"
tools=""
displays="$(seq 211 240)"
. "$(dirname "$0")/xvfb_window.sh"

scene() { # break force in N
  cat >"$tmp/scene.lua" <<LUA
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81}, collisions = false }
local top = w:particle{ x = 0, y = 1, fixed = true }
local weight = w:particle{ x = 0, y = 0, radius = 0.1 }
w:spring(top, weight, { hertz = 3, damping_ratio = 0.1, break_force = $1 })
return { world = w, title = "replay test" }
LUA
}
energy_at() { # stats file, time: the kinetic energy of the first line at that time
  grep "\"time\":$2," "$1" | grep -v '"event"' | head -n 1 | sed -n 's/.*"kinetic":\([^,]*\),.*/\1/p'
}
hash_at() { # stats file, time: the world's state hash of the first line at that time
  grep "\"time\":$2," "$1" | grep -v '"event"' | head -n 1 | sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p'
}
scene 1000
"$bin" --window 1000x700 --view 0,0,100 --stats "$tmp/s.jsonl" --record-input "$tmp/hands.txt" "$tmp/scene.lua" >"$tmp/out" 2>&1 &
app=$!
for _ in $(seq 1 200); do
  wid=$(xdotool search --onlyvisible --name "replay test" 2>/dev/null | head -n 1)
  [ -n "$wid" ] && xdotool getwindowgeometry "$wid" >/dev/null 2>&1 && break
  wid=""
  sleep 0.1
done
[ -n "$wid" ] || fail "no window appeared"
wait_for "0.5 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 0.5) }"'
# the weight hangs near world (0, 0): pixel (370, 350); pull it 1 m right and let go
xdotool mousemove --window "$wid" 370 352 mousedown 1
for step in $(seq 1 10); do xdotool mousemove --window "$wid" $((370 + 10 * step)) 352; sleep 0.03; done
sleep 0.3
xdotool mouseup 1
wait_for "the run reaches 3 s" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 3) }"'
inputs=$(field inputs)
[ "${inputs:-0}" -ge 3 ] || fail "only ${inputs:-0} inputs recorded for a drag"
# F5: the same drag again, from the start
cp "$tmp/s.jsonl" "$tmp/first.jsonl"
xdotool key --window "$wid" F5
wait_for "F5 replays" '[ "$(field replaying)" = true ] || awk -v t="$(field time)" "BEGIN { exit !(t < 1) }"'
wait_for "the replay reaches 3 s" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 3) }" && [ "$(field replaying)" = false ]'
for t in 1.000000 2.000000 3.000000; do
  first=$(energy_at "$tmp/first.jsonl" $t)
  again=$(grep "\"time\":$t," "$tmp/s.jsonl" | grep -v '"event"' | tail -n 1 | sed -n 's/.*"kinetic":\([^,]*\),.*/\1/p')
  [ -n "$first" ] && [ "$first" = "$again" ] || fail "at $t s the replay has kinetic energy '$again' J, the run had '$first' J"
done
echo "ok   F5 replayed the drag: the same energy at 1, 2 and 3 s ($(energy_at "$tmp/first.jsonl" 2.000000) J at 2 s)"
ghost=$(field ghost_frames)
[ "${ghost:-0}" -ge 180 ] || fail "the run before the replay is not kept as a ghost (${ghost:-0} frames)"
echo "ok   the run before is drawn as a ghost: $ghost frames of it"
quit_app
grep -q " drag 0 1 " "$tmp/hands.txt" && grep -q " release 0" "$tmp/hands.txt" || fail "the recording lacks the drag: $(head -5 "$tmp/hands.txt")"
echo "ok   --record-input wrote $(($(wc -l <"$tmp/hands.txt") - 1)) events"

# headless, the same hands: the same run
"$bin" --headless --frames 200 --replay "$tmp/hands.txt" --stats "$tmp/h.jsonl" "$tmp/scene.lua" >/dev/null 2>&1 || fail "headless replay exited $?"
for t in 1.000000 2.000000 3.000000; do
  [ "$(energy_at "$tmp/first.jsonl" $t)" = "$(energy_at "$tmp/h.jsonl" $t)" ] || fail "headless replay differs at $t s"
done
live=$(hash_at "$tmp/first.jsonl" 3.000000)
[ -n "$live" ] && [ "$live" = "$(hash_at "$tmp/h.jsonl" 3.000000)" ] || fail "headless replay hash $(hash_at "$tmp/h.jsonl" 3.000000) at 3 s, live run $live"
echo "ok   headless --replay: the live run's state hash at 3 s ($live)"
springs=$(tail -n 1 "$tmp/h.jsonl" | sed -n 's/.*"springs":\([0-9]*\).*/\1/p')
[ "$springs" = 1 ] || fail "the rope broke under the recorded drag at 1000 N"
sed -i 's/hertz = 3,/hertz = 3.5,/' "$tmp/scene.lua" # a retune: the same hands, another run
"$bin" --headless --frames 200 --replay "$tmp/hands.txt" --stats "$tmp/h3.jsonl" "$tmp/scene.lua" >/dev/null 2>&1
other=$(hash_at "$tmp/h3.jsonl" 3.000000)
[ -n "$other" ] && [ "$other" != "$live" ] || fail "after a retune the replay's hash at 3 s is still $other"
echo "ok   after a retune to 3.5 Hz the replay differs ($other)"
# a weaker rope: the same drag breaks it
scene 15
"$bin" --headless --frames 200 --replay "$tmp/hands.txt" --stats "$tmp/h2.jsonl" "$tmp/scene.lua" >/dev/null 2>&1
springs=$(tail -n 1 "$tmp/h2.jsonl" | sed -n 's/.*"springs":\([0-9]*\).*/\1/p')
[ "$springs" = 0 ] || fail "the recorded drag did not break a 15 N rope ($springs springs left)"
echo "ok   --headless --replay: the same run at 1000 N; at 15 N the same drag breaks the rope"
# a recording that is not one is refused by name
echo "not a recording" >"$tmp/bad.txt"
"$bin" --headless --frames 10 --replay "$tmp/bad.txt" "$tmp/scene.lua" >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "bad.txt:1: not an input recording" "$tmp/out" || fail "a bad --replay file: $(cat "$tmp/out")"
printf 'springbox-input 1\n5 drag 0 one 1 2 3 4\n' >"$tmp/bad.txt"
"$bin" --headless --frames 10 --replay "$tmp/bad.txt" "$tmp/scene.lua" >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "bad.txt:2: cannot read '5 drag 0 one 1 2 3 4' (expected <frame> drag <world> <particle>" "$tmp/out" ||
  fail "a bad line in --replay: $(cat "$tmp/out")"
echo "ok   bad recordings are refused with file, line and what was expected"

# F5 survives a restart the reload caused: the drag breaks a 15 N rope, a slider then restarts
# the scene (a spring broke since it was loaded), and F5 replays the drag from the start under the
# new tuning, breaking the rope again
cat >"$tmp/breaks.lua" <<'LUA'
local sb = require "springbox"
local tune = sb.tune{ hz = {3, 1, 10} }
local w = sb.world{ gravity = {0, -9.81}, collisions = false }
local top = w:particle{ x = 0, y = 1, fixed = true }
local weight = w:particle{ x = 0, y = 0, radius = 0.1 }
w:spring(top, weight, { hertz = tune.hz, damping_ratio = 0.1, break_force = 15 })
return { world = w, title = "restart replay test" }
LUA
rm -f "$tmp/s.jsonl"
start_app "restart replay test" "$tmp/breaks.lua"
wait_for "0.5 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 0.5) }"'
xdotool mousemove --window "$wid" 370 352 mousedown 1
for step in $(seq 1 10); do xdotool mousemove --window "$wid" $((370 + 10 * step)) 352; sleep 0.03; done
sleep 0.3
xdotool mouseup 1
wait_for "the drag breaks the rope" '[ "$(field springs)" = 0 ]'
recorded=$(field inputs)
# the slider (hz, the panel's first: y 60, x 752..988) restarts the scene: a spring broke
xdotool mousemove --window "$wid" 900 65 click 1
wait_for "the slider restarts the scene" 'grep -q "restarted" "$tmp/s.jsonl" && [ "$(field inputs)" = 0 ]'
xdotool key --window "$wid" F5
wait_for "F5 replays the run before the restart" 'grep -q "replaying [0-9]* recorded inputs from the start" "$tmp/s.jsonl"'
wait_for "the replayed drag breaks the rope again" '[ "$(field replaying)" = false ] && [ "$(field springs)" = 0 ]'
echo "ok   F5 after a restart the reload caused: the $recorded recorded inputs replayed, the rope broke again"
quit_app
echo "window replay: ok"
