#!/usr/bin/env bash
# Rewind in the real window, driven as a person would under Xvfb: [ steps back
# one kept moment, shift+[ a second, the timeline scrubs, space runs on from the moment shown.
# Read back through --stats: the clock goes back by what was asked, and springbox.state goes
# back with the world (the scene counts its frames in it: after running on, the count matches
# the clock, not the frames that were run).
set -u
bin="$1"
tools=""
displays="$(seq 181 210)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
local top = w:particle{ x = 0, y = 1, fixed = true }
local bob = w:particle{ x = 1, y = 1, radius = 0.1 }
w:spring(top, bob, { hertz = 2, damping_ratio = 0.02 })
local s = sb.state{ frames = 0 }
return { world = w, title = "rewind test",
         update = function() s.frames = s.frames + 1; sb.plot("frames", s.frames) end }
LUA
start_app "rewind test" "$tmp/scene.lua"
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }
wait_for "2 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 2) }"'
xdotool key --window "$wid" space
wait_for "paused" '[ "$(field paused)" = true ]'
sleep 0.3
t0=$(field time)
for _ in $(seq 1 30); do xdotool key --window "$wid" bracketleft; done
wait_for "30 presses of [ go back 0.5 s" 'near "$(field time)" "$(awk -v t=$t0 "BEGIN { print t - 0.5 }")" 0.001 && [ "$(field rewound)" = true ]'
echo "ok   [ x30: from $t0 s back to $(field time) s"
xdotool key --window "$wid" shift+bracketleft
wait_for "shift+[ goes back 1 s more" 'near "$(field time)" "$(awk -v t=$t0 "BEGIN { print t - 1.5 }")" 0.001'
xdotool key --window "$wid" bracketright
wait_for "] goes forward one moment" 'near "$(field time)" "$(awk -v t=$t0 "BEGIN { print t - 1.5 + 1/60 }")" 0.001'
echo "ok   shift+[ and ]: at $(field time) s"
# the timeline: its left end is the oldest moment kept
read -r tx ty tw th <<<"$(last | sed -n 's/.*"timeline":\[\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\)\].*/\1 \2 \3 \4/p')"
[ -n "$tx" ] || fail "no timeline in the stats"
xdotool mousemove --window "$wid" $((tx + 1)) $((ty + th / 2)) mousedown 1
sleep 0.2
xdotool mousemove --window "$wid" $((tx + tw / 2)) $((ty + th / 2))
sleep 0.2
xdotool mouseup 1
wait_for "dragging the timeline to its middle scrubs to about half the time kept" 'near "$(field time)" "$(awk -v t=$t0 "BEGIN { print t / 2 }")" 0.15'
t1=$(field time)
echo "ok   scrubbed to $t1 s"
xdotool key --window "$wid" space
wait_for "space runs on from the moment shown" '[ "$(field rewound)" = false ] && [ "$(field paused)" = false ]'
wait_for "the run goes on from $t1 s" 'awk -v t="$(field time)" -v t1="$t1" "BEGIN { exit !(t > t1 + 0.5) }"'
line=$(last) # frames and time from one line: two reads may straddle a frame (seen under ASan)
frames=$(printf '%s\n' "$line" | sed -n 's/.*"frames":\([0-9.]*\).*/\1/p')
t=$(printf '%s\n' "$line" | sed -n 's/.*"time":\([^,}]*\).*/\1/p')
near "$frames" "$(awk -v t="$t" 'BEGIN { print t * 60 }')" 1.5 || fail "springbox.state counted $frames frames at $t s: it did not go back with the world"
echo "ok   springbox.state went back: $frames frames counted at $t s"
quit_app
echo "window rewind: ok"
