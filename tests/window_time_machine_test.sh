#!/usr/bin/env bash
# The window's time machine and files keep their promises, as a person meets them under Xvfb:
# G and P never overwrite a file or write through a link (a second session takes the next free
# number); a slider of a tunable named "deck hz" or with 70 characters is recorded by
# --record-input under its own name and replays headless to the same value; a scene whose state
# holds a million tables, and one that fills its draw list with shapes across the view, keep the
# window running and Q answers at once; F5 with a particle sent to 1e11 m replays without growing;
# a window narrower than the tuning panel still writes a JSON camera.
set -u
bin="$1"
tools="identify"
displays="$(seq 271 300)"
. "$(dirname "$0")/xvfb_window.sh"

rss_mib() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$app/status" 2>/dev/null; }
frames_now() { field frame; }

# ---- G and P: the next free number, created exclusively, never through a link
mkdir -p "$tmp/work" "$tmp/outside"
cat >"$tmp/work/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
local top = w:particle{ x = 0, y = 1, fixed = true }
local bob = w:particle{ x = 1, y = 1, radius = 0.1 }
w:spring(top, bob, { hertz = 2, damping_ratio = 0.02 })
return { world = w, title = "files test" }
LUA
echo "an earlier session's GIF" >"$tmp/work/springbox-0001.gif"
echo "precious" >"$tmp/outside/victim.gif"
ln -s "$tmp/outside/victim.gif" "$tmp/work/springbox-0002.gif" # planted: a link out of the folder
echo "an earlier session's PNG" >"$tmp/work/springbox-0001.png"
ln -s "$tmp/outside/gone.png" "$tmp/work/springbox-0002.png" # a dangling link
cd "$tmp/work" || fail "no folder"
start_app "files test" "$tmp/work/scene.lua"
wait_for "1 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 1) }"'
xdotool key --window "$wid" g
wait_for "G takes the next free name" '[ -s springbox-0003.gif ] && identify springbox-0003.gif >/dev/null 2>&1'
xdotool key --window "$wid" p
wait_for "P takes the next free name" '[ -s springbox-0003.png ] && identify springbox-0003.png >/dev/null 2>&1'
[ "$(cat springbox-0001.gif)" = "an earlier session's GIF" ] || fail "G overwrote an earlier GIF"
[ "$(cat springbox-0001.png)" = "an earlier session's PNG" ] || fail "P overwrote an earlier PNG"
[ "$(cat "$tmp/outside/victim.gif")" = precious ] || fail "G wrote through a link out of the folder"
[ -e "$tmp/outside/gone.png" ] && fail "P wrote through a dangling link"
[ -L springbox-0002.gif ] && [ -L springbox-0002.png ] || fail "a planted link was replaced"
quit_app
echo "ok   G and P take the next free number, never overwrite, never follow a link"

# ---- sliders of tunables with any legal name: recorded under their own names, replayed
long="tunable_with_a_long_name_that_says_just_what_it_tunes_in_this_scene_70"
cat >"$tmp/work/names.lua" <<LUA
local sb = require "springbox"
local tune = sb.tune{ ["deck hz"] = {2, 1, 10}, $long = {2, 1, 10} }
local w = sb.world{ gravity = {0, -9.81}, collisions = false }
local top = w:particle{ x = 0, y = 1, fixed = true }
local bob = w:particle{ x = 0, y = 0, radius = 0.1 }
w:spring(top, bob, { hertz = tune["deck hz"] + tune.$long })
return { world = w, title = "names test", tune = tune,
  update = function() sb.plot("deck", tune["deck hz"]); sb.plot("long", tune.$long) end }
LUA
"$bin" --window 1000x700 --view 0,0,100 --stats "$tmp/s.jsonl" --record-input "$tmp/hands.txt" "$tmp/work/names.lua" >"$tmp/out" 2>&1 &
app=$!
for _ in $(seq 1 200); do
  wid=$(xdotool search --onlyvisible --name "names test" 2>/dev/null | head -n 1)
  [ -n "$wid" ] && xdotool getwindowgeometry "$wid" >/dev/null 2>&1 && break
  wid=""
  sleep 0.1
done
[ -n "$wid" ] || fail "no window appeared"
xdotool windowfocus "$wid"
wait_for "0.5 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 0.5) }"'
# the panel's sliders: the first at y 60..70, the second at 106..116, from x 752 to 988
xdotool mousemove --window "$wid" 930 65 click 1
sleep 0.3
xdotool mousemove --window "$wid" 800 111 click 1
plot() { last | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
wait_for "both sliders moved" '[ "$(plot deck)" != 2 ] && [ "$(plot long)" != 2 ] && [ -n "$(plot long)" ]'
deck=$(plot deck)
longv=$(plot long)
quit_app
grep -q "tune deck%20hz " "$tmp/hands.txt" || fail "the slider of 'deck hz' was not recorded under its name: $(cat "$tmp/hands.txt")"
grep -q "tune $long " "$tmp/hands.txt" || fail "the 70-character name was cut: $(cat "$tmp/hands.txt")"
"$bin" --headless --frames 120 --replay "$tmp/hands.txt" --stats "$tmp/r.jsonl" "$tmp/work/names.lua" >"$tmp/out" 2>&1 ||
  fail "the recording does not replay: $(cat "$tmp/out")"
rdeck=$(tail -n 1 "$tmp/r.jsonl" | sed -n 's/.*"deck":\([^,}]*\).*/\1/p')
rlong=$(tail -n 1 "$tmp/r.jsonl" | sed -n 's/.*"long":\([^,}]*\).*/\1/p')
[ "$rdeck" = "$deck" ] && [ "$rlong" = "$longv" ] || fail "replayed deck $rdeck long $rlong, recorded $deck and $longv"
echo "ok   sliders named 'deck hz' and with 70 characters: recorded whole, replayed to $deck and $longv"

# ---- a state of a million tables: the window runs on, rewind says what it does not keep
cat >"$tmp/work/state.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
w:wall(-3, 0, 3, 0)
for i = 1, 20 do w:particle{ x = -2 + 0.2 * i, y = 1 + 0.1 * (i % 3), radius = 0.08 } end
local s = sb.state{ cells = {} }
if #s.cells == 0 then for i = 1, 1000000 do s.cells[i] = { i } end end
return { world = w, title = "state test", update = function() s.cells[1][1] = s.cells[1][1] + 1 end }
LUA
start_app "state test" "$tmp/work/state.lua"
f0=$(frames_now)
wait_for "with a big springbox.state the window runs on: 60 frames more" '[ $(($(frames_now) - f0)) -ge 60 ]'
f1=$(frames_now)
grep -q "springbox.state is not rewound" "$tmp/s.jsonl" || true # said in the window; the stats keep running
t0=$(date +%s%N)
quit_app
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt 3000 ] || fail "Q took $(( (t1 - t0) / 1000000 )) ms"
echo "ok   a state of a million tables: $((f1 - f0)) frames more, Q answers"

# ---- a draw list filled with shapes across the view: the frames go on
cat >"$tmp/work/draw.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{}
w:particle{ x = 0, y = 0 }
return { world = w, title = "draw test", draw = function(g)
  for i = 1, 70000 do
    local ok = pcall(function()
      if i % 3 == 0 then g.circle("fill", 0, 0, 1e6)
      elseif i % 3 == 1 then g.polygon("fill", -1e6, -1e6, 1e6, -1e6, 1e6, 1e6)
      else g.line(-1e6, -1e6, 1e6, 1e6) end
    end)
    if not ok then break end
  end
end }
LUA
start_app "draw test" "$tmp/work/draw.lua"
f0=$(frames_now)
sleep 3
f1=$(frames_now)
[ $((f1 - f0)) -ge 30 ] || fail "a full draw list let the window run $((f1 - f0)) frames in 3 s"
quit_app
echo "ok   a full draw list of shapes across the view: $((f1 - f0)) frames in 3 s"

# ---- F5 with a particle sent to 1e11 m: the ghost is cut to the view like everything drawn
cat >"$tmp/work/far.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, 0} }
local a = w:particle{ x = 0, y = 0, fixed = true }
local b = w:particle{ x = 1, y = 0 }
w:spring(a, b, { hertz = 2 })
-- a line across the view between two particles sent 1e11 m away either side, and one far out alone
local far = { w:particle{ x = 0, y = 1, fixed = true }, w:particle{ x = 0.5, y = 1.5, fixed = true },
              w:particle{ x = 0, y = -1, collide = false } }
w:spring(far[1], far[2])
local n = 0
return { world = w, title = "far test", update = function()
  n = n + 1
  if n == 30 then far[1].x, far[2].x, far[2].y, far[3].x = -1e11, 1e11, 7e10, 1e11 end
end }
LUA
start_app "far test" "$tmp/work/far.lua"
xdotool mousemove --window "$wid" 300 300 mousemove --window "$wid" 320 310 # hands to replay
wait_for "1 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 1) }"'
xdotool key --window "$wid" F5
wait_for "the replay runs" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 1) }" && last | grep -q "\"ghost_frames\":[1-9]"'
peak=0
for _ in $(seq 1 20); do
  r=$(rss_mib)
  [ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
  sleep 0.1
done
[ "$peak" -lt 600 ] || fail "F5 with a particle at 1e11 m grew to $peak MiB"
quit_app
echo "ok   F5 with a particle at 1e11 m: at most $peak MiB"

# ---- a window narrower than the tuning panel: the camera in --stats is JSON
cat >"$tmp/work/narrow.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{}
w:particle{ x = 0, y = 0 }
return { world = w, title = "narrow test" }
LUA
"$bin" --window 320x240 --stats "$tmp/n.jsonl" "$tmp/work/narrow.lua" >"$tmp/out" 2>&1 &
app=$!
for _ in $(seq 1 200); do [ -s "$tmp/n.jsonl" ] && break; sleep 0.1; done
sleep 0.5
wid=$(xdotool search --onlyvisible --name "narrow test" 2>/dev/null | head -n 1)
[ -n "$wid" ] && xdotool windowsize "$wid" 200 240 && sleep 0.5
grep -v '"event"' "$tmp/n.jsonl" | tail -n 1 | grep -q '"camera":\[-*[0-9.e+-]*,-*[0-9.e+-]*,[0-9.e+-]*\]' ||
  fail "the camera is not three numbers: $(grep -v '"event"' "$tmp/n.jsonl" | tail -n 1 | grep -o '"camera":[^]]*]')"
grep -qiE '\binf\b|nan' "$tmp/n.jsonl" && fail "non-finite numbers in --stats"
kill "$app" 2>/dev/null
wait "$app" 2>/dev/null
app=""
echo "ok   a narrow window: the camera is three finite numbers"
echo "window time machine: ok"
