#!/usr/bin/env bash
# G in the real window saves the last seconds of the view as an animated GIF in
# the working folder, and says so; after more than 8 s it holds the last 8 s of the run, no more,
# and plays them in the run's time: its frames' delays add up to 8 s, less one frame's at most, however many frames a busy
# machine let the window draw (30 a second at most).
set -u
bin="$1"
tools="identify"
displays="$(seq 151 180)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
local top = w:particle{ x = 0, y = 1, fixed = true }
local bob = w:particle{ x = 1, y = 1, radius = 0.1 }
w:spring(top, bob, { hertz = 2, damping_ratio = 0.02 })
return { world = w, title = "gif key test" }
LUA
cd "$tmp" || fail "no temporary folder"
start_app "gif key test" "$tmp/scene.lua"
wait_for "2 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 2) }"'
xdotool key --window "$wid" g
wait_for "G writes springbox-0001.gif" '[ -s "$tmp/springbox-0001.gif" ] && identify "$tmp/springbox-0001.gif" >/dev/null 2>&1'
n=$(identify "$tmp/springbox-0001.gif" | wc -l)
cs=$(identify -format "%T\n" "$tmp/springbox-0001.gif" | awk '{ s += $1 } END { print s }')
# the run so far, however few frames a busy machine drew: 2 s of physics or a little more
[ "$n" -ge 2 ] && [ "$n" -le 240 ] || fail "the first GIF has $n frames after about 2 s"
[ "$cs" -ge 197 ] && [ "$cs" -le 803 ] || fail "the first GIF plays for $cs hundredths of a second, want the 2 s or more run so far"
echo "ok   G after 2 s: springbox-0001.gif with $n frames, $cs hundredths of a second"
wait_for "9.5 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 9.5) }"'
xdotool key --window "$wid" g
wait_for "G again writes springbox-0002.gif" '[ -s "$tmp/springbox-0002.gif" ] && identify "$tmp/springbox-0002.gif" >/dev/null 2>&1'
n=$(identify "$tmp/springbox-0002.gif" | wc -l)
cs=$(identify -format "%T\n" "$tmp/springbox-0002.gif" | awk '{ s += $1 } END { print s }')
# its first frame is the oldest one drawn within the last 8 s: one frame's delay after them at most
longest=$(identify -format "%T\n" "$tmp/springbox-0002.gif" | sort -n | tail -1)
[ "$n" -ge 2 ] && [ "$n" -le 240 ] || fail "after 9.5 s the GIF has $n frames, want at most 30 a second of 8 s (240)"
[ "$cs" -ge $((797 - longest)) ] && [ "$cs" -le 803 ] ||
  fail "after 9.5 s the GIF plays for $cs hundredths of a second (its longest frame $longest), want the last 8 s"
echo "ok   G after 9.5 s: the last 8 s ($cs hundredths of a second), $n frames"
quit_app
echo "window gif: ok"
