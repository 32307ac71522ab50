#!/usr/bin/env bash
# A scene that claims keys never traps the designer, driven under Xvfb: the scene jumps on space
# while the run goes; ctrl+space pauses it, which the scene cannot take; paused, space runs on
# (the window's, not the scene's jump); rewound with shift+[, space runs on again; R restarts a
# paused run and it runs; and springbox.paused() tells the scene's keypressed which it is.
set -u
bin="$1"
tools=""
displays="$(seq 301 330)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
w:wall(-5, 0, 5, 0)
local ball = w:particle{ x = 0, y = 0.2, radius = 0.2 }
local s = sb.state{ jumps = 0, seen = -1 }
return { world = w, title = "keys test",
         update = function() sb.plot("jumps", s.jumps); sb.plot("seen", s.seen) end,
         keypressed = function(key)
           s.seen = sb.paused() and 1 or 0
           if key == "space" then s.jumps = s.jumps + 1; ball.vy = 3; return true end
           if key == "r" then return true end -- the scene takes R too
         end }
LUA
start_app "keys test" "$tmp/scene.lua"
plot() { last | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
wait_for "1 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 1) }"'
xdotool key --window "$wid" space
wait_for "running, space is the scene's: a jump" '[ "$(plot jumps)" = 1 ] && [ "$(field paused)" = false ]'
[ "$(plot seen)" = 0 ] || fail "springbox.paused() said $(plot seen) while running"
echo "ok   running: space jumps (the scene claims it)"
xdotool key --window "$wid" ctrl+space
wait_for "ctrl+space pauses, whatever the scene claims" '[ "$(field paused)" = true ]'
xdotool key --window "$wid" x
sleep 0.3
xdotool key --window "$wid" space
wait_for "paused, space runs on: the window's" '[ "$(field paused)" = false ]'
sleep 0.3
[ "$(plot jumps)" = 1 ] || fail "space while paused went to the scene (jumps $(plot jumps))"
[ "$(plot seen)" = 1 ] || fail "springbox.paused() did not say paused in keypressed ($(plot seen))"
echo "ok   ctrl+space paused; paused, space ran on and the scene saw springbox.paused()"
wait_for "2 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 2) }"'
xdotool key --window "$wid" shift+bracketleft
wait_for "shift+[ rewinds" '[ "$(field rewound)" = true ]'
xdotool key --window "$wid" space
wait_for "rewound, space runs on" '[ "$(field rewound)" = false ] && [ "$(field paused)" = false ]'
echo "ok   rewound, space ran on"
xdotool key --window "$wid" ctrl+space
wait_for "paused again" '[ "$(field paused)" = true ]'
xdotool key --window "$wid" r
wait_for "R restarts the paused run, and it runs" '[ "$(field paused)" = false ] && awk -v t="$(field time)" "BEGIN { exit !(t < 1) }"'
echo "ok   paused, R restarted and ran (the scene claims R while running)"
quit_app
echo "window keys: ok"
