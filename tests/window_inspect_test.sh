#!/usr/bin/env bash
# The asked-versus-delivered view, in the real window under Xvfb: click a
# spring, drag its weight and let go, and read back through --stats what the view shows: the
# asked tuning, and the frequency and damping ratio measured from the swing, which match it.
# Clicking empty space puts the view away. A spring too damped to swing (0.75) is read from its
# decay. A spring of a tuned structure shows the structure's mode: asked, and read from the mode's
# share of its particles' motion.
set -u
bin="$1"
tools=""
displays="$(seq 121 150)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, 0}, collisions = false }
local top = w:particle{ x = 0, y = 1, fixed = true, radius = 0.05 }
local weight = w:particle{ x = 0, y = 0, radius = 0.1 }
w:spring(top, weight, { hertz = 3, damping_ratio = 0.05 })
local top2 = w:particle{ x = 1.5, y = 1, fixed = true, radius = 0.05 }
local weight2 = w:particle{ x = 1.5, y = 0, radius = 0.1 }
w:spring(top2, weight2, { hertz = 2, damping_ratio = 0.75 })
-- a taut string of five beads from (-3, -2) to (0, -2), tuned as one structure
local string, prev = {}, w:particle{ x = -3, y = -2, fixed = true }
for i = 1, 6 do
  local p = w:particle{ x = -3 + 0.5 * i, y = -2, mass = 0.1, fixed = (i == 6), radius = 0.05 }
  string[#string + 1] = w:spring(prev, p, { k = 1, rest_length = 0.4 })
  prev = p
end
w:tune_structure(string, { hertz = 1.5, damping_ratio = 0.02 })
return { world = w, title = "inspect test" }
LUA
start_app "inspect test" "$tmp/scene.lua"
# pull X Y DY HOLD: grab the particle at pixel (X, Y), pull it DY pixels down in four moves, hold
# it HOLD seconds and let go
pull() {
  xdotool mousemove --window "$wid" "$1" "$2" mousedown 1
  for step in 1 2 3 4; do xdotool mousemove --window "$wid" "$1" $(($2 + $3 * step / 4)); sleep 0.05; done
  sleep "$4"
  xdotool mouseup 1
}
# what the view reads now
measured_hz() { last | sed -n 's/.*"measured_hertz":\([^,]*\),.*/\1/p'; }
measured_zeta() { last | sed -n 's/.*"measured_damping_ratio":\([^,}]*\)[,}].*/\1/p'; }

# the spring runs from world (0, 1) to (0, 0): pixels (370, 250) to (370, 350); click its middle
xdotool mousemove --window "$wid" 372 300 click 1
wait_for "clicking the spring opens the view" 'last | grep -q "\"inspect\":{\"world\":1,\"spring\":1,\"rigid\":false,\"asked_hertz\":3,\"asked_damping_ratio\":0.05"'
# pull the weight 0.4 m down and let go
pull 370 350 40 0.5
run_frames 240
hz=$(measured_hz) zeta=$(measured_zeta)
want=$(awk 'BEGIN { print 3 * sqrt(1 - 0.05 * 0.05) }')
awk -v hz="$hz" -v want="$want" 'BEGIN { exit !(hz > 0.97 * want && hz < 1.03 * want) }' ||
  fail "the view measured $hz Hz for a spring asking $want Hz (damped)"
awk -v z="$zeta" 'BEGIN { exit !(z > 0.03 && z < 0.07) }' || fail "the view measured damping ratio $zeta for 0.05"
echo "ok   the view shows $hz Hz at damping ratio $zeta for 3 Hz at 0.05 asked"
# empty space closes it
xdotool mousemove --window "$wid" 700 600 click 1
wait_for "clicking empty space closes the view" '! last | grep -q "\"inspect\""'

# the second spring, from (1.5, 1) to (1.5, 0): pixels (520, 250) to (520, 350)
xdotool mousemove --window "$wid" 522 300 click 1
wait_for "clicking the damped spring opens the view" 'last | grep -q "\"inspect\":{\"world\":1,\"spring\":2,\"rigid\":false,\"asked_hertz\":2,\"asked_damping_ratio\":0.75"'
pull 520 350 40 0.8
wait_for "the view reads the damped release from its decay" 'last | grep -q "\"read_from\":\"decay\""'
run_frames 120
hz=$(measured_hz) zeta=$(measured_zeta)
awk -v hz="$hz" 'BEGIN { exit !(hz > 0.95 * 2 && hz < 1.05 * 2) }' || fail "the view read $hz Hz from the decay of a 2 Hz spring"
awk -v z="$zeta" 'BEGIN { exit !(z > 0.95 * 0.75 && z < 1.05 * 0.75) }' || fail "the view read damping ratio $zeta from the decay of 0.75"
echo "ok   a spring at 0.75 reads $hz Hz at damping ratio $zeta from its decay (2 Hz at 0.75 asked)"

# the string's third spring runs from (-2, -2) to (-1.5, -2): pixels (170, 550) to (220, 550)
xdotool mousemove --window "$wid" 195 551 click 1
wait_for "clicking a spring of the structure shows the structure" 'last | grep -q "\"asked_hertz\":1.5,\"asked_damping_ratio\":0.02,.*\"structure\":6"'
# pluck the middle bead (-1.5, -2), pixel (220, 550), 0.2 m down and let go
pull 220 550 20 0.8
run_frames 240
hz=$(measured_hz)
awk -v hz="$hz" 'BEGIN { exit !(hz > 0.95 * 1.5 && hz < 1.05 * 1.5) }' || fail "the structure's mode read $hz Hz for 1.5 asked"
echo "ok   a spring of a structure tuned to 1.5 Hz shows the structure's mode: $hz Hz"
quit_app

# A loaded rope tuned as a structure swings as a pendulum while it bounces: a link clicked (paused,
# at the pose it was built in) shows the tuned bounce as it runs, read from its springs' stretch less
# what is far slower than it, not the swing; what it reads is what the tune said it delivers. And a
# spring between beads of a dense jelly is picked where a click is nearer its line than any bead.
cat >"$tmp/rope.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ collisions = false }
local prev, links = w:particle{ x = 0, y = 1, fixed = true, radius = 0.03 }, {}
for i = 1, 6 do -- built unstretched at 40 degrees: it bounces as it falls into its swing
  local p = w:particle{ x = 0.2 * i * 0.643, y = 1 - 0.2 * i * 0.766, mass = i == 6 and 8 or 0.2,
                        radius = i == 6 and 0.1 or 0.02 }
  links[i] = w:spring(prev, p, { hertz = 10, damping_ratio = 1 })
  prev = p
end
local r = w:tune_structure(links, { hertz = 3, damping_ratio = 0.05 })
-- a jelly of beads 0.1 m apart, 4 cm wide, at (-2.5, -2.5)
local g = {}
for r = 0, 3 do for c = 0, 3 do
  g[r * 4 + c] = w:particle{ x = -2.5 + 0.1 * c, y = -2.5 + 0.1 * r, radius = 0.04, fixed = (r == 0) }
end end
for r = 0, 3 do for c = 0, 3 do
  if c < 3 then w:spring(g[r * 4 + c], g[r * 4 + c + 1], { hertz = 4, damping_ratio = 0.3 }) end
  if r < 3 then w:spring(g[r * 4 + c], g[(r + 1) * 4 + c], { hertz = 4, damping_ratio = 0.3 }) end
end end
return { world = w, title = "rope inspect test", update = function() sb.plot("delivered", r.delivered_hertz) end }
LUA
rm -f "$tmp/s.jsonl"
start_app "rope inspect test" "$tmp/rope.lua"
xdotool key --window "$wid" space # paused where it was built: its first link from (0, 1) to (0.129, 0.847)
wait_for "paused" '[ "$(field paused)" = true ]'
# back to the first moment, the pose it was built in, however many frames a busy machine ran
# before the pause took
for _ in $(seq 1 30); do
  awk -v t="$(field time)" 'BEGIN { exit !(t < 0.02) }' && break
  xdotool key --window "$wid" shift+bracketleft
  sleep 0.2
done
wait_for "back at the first moment" 'awk -v t="$(field time)" "BEGIN { exit !(t < 0.02) }"'
sleep 0.3
xdotool mousemove --window "$wid" 376 258 click 1 # the link's middle (0.064, 0.923)
sleep 0.3
xdotool key --window "$wid" space
wait_for "clicking a link of the swinging rope shows its structure" 'last | grep -q "\"asked_hertz\":3,\"asked_damping_ratio\":0.05,.*\"structure\":6,\"structure_read\":\"stretch\""'
run_frames 240
hz=$(measured_hz)
delivered=$(last | sed -n 's/.*"delivered":\([0-9.e+-]*\).*/\1/p')
awk -v hz="$hz" -v d="$delivered" 'BEGIN { exit !(hz > 0.9 * d && hz < 1.1 * d && hz > 1.5) }' ||
  fail "the swinging rope's link read $hz Hz; the tune says its bounce runs at $delivered Hz (the swing is about 0.45 Hz, its pull on the links 0.9)"
echo "ok   a link of a swinging loaded rope reads its bounce from its springs' stretch: $hz Hz, what the tune said it delivers ($delivered Hz; asked 3)"
# the jelly's bottom spring, from (-2.5, -2.5) to (-2.4, -2.5) between fixed beads: its middle
# (-2.45, -2.5) is 1 cm from each bead's edge and on the spring's line: pixel (370 - 245, 350 + 250)
xdotool mousemove --window "$wid" 125 600 click 1
wait_for "a click on a dense jelly's spring line inspects the spring" 'last | grep -q "\"inspect\":{\"world\":1,\"spring\":[0-9]*,\"rigid\":false,\"asked_hertz\":4"'
last | grep -q '"drag":' && fail "the click between two beads dragged one"
echo "ok   a spring between beads of a dense jelly is picked, not a bead"
quit_app
echo "window inspect: ok"
