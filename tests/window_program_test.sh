#!/usr/bin/env bash
# A scene as a program in the real window under Xvfb, driven by xdotool: a key the scene claims
# does not reach the window's binding, one it does not claim does; a key cuts a spring; a right
# click reaches mousepressed in world metres and, claimed, does not pan; held keys are seen by
# springbox.keyboard.isdown; plots reach --stats; draw(g) shows on screen (the pixel is checked).
set -u
bin="$1"
tools="import convert"
displays="$(seq 121 150)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, 0}, collisions = false }
local top = w:particle{ x = -2, y = 1, fixed = true }
local bob = w:particle{ x = -1, y = 1 }
local rope = w:spring(top, bob)
local s = sb.state{ ups = 0, clicks = 0, cx = 0, cy = 0 }
return { world = w, title = "program test",
  keypressed = function(key)
    if key == "x" and not rope.removed then w:remove(rope) end
    if key == "up" then s.ups = s.ups + 1; return true end
    if key == "v" then sb.camera.look(5, -3); return true end
    if key == "c" then sb.camera.follow(bob, 4); sb.window.set_title("following the bob"); return true end
  end,
  mousepressed = function(x, y, button)
    if button == 2 then s.clicks = s.clicks + 1; s.cx, s.cy = x, y; return true end
  end,
  update = function()
    sb.plot("ups", s.ups); sb.plot("clicks", s.clicks); sb.plot("cx", s.cx); sb.plot("cy", s.cy)
    sb.plot("left", sb.keyboard.isdown("left") and 1 or 0); sb.plot("springs", w.spring_count)
    sb.plot("bx", bob.x); sb.plot("by", bob.y); sb.plot("view_h", select(3, sb.camera.get()))
  end,
  draw = function(g) g.color(1, 0, 1); g.circle("fill", 2, -1, 0.5) end,
}
LUA
start_app "program test" "$tmp/scene.lua"

iterations=$(field iterations)
xdotool key Up
wait_for "keypressed sees Up" '[ "$(field ups)" = 1 ]'
sleep 0.3
[ "$(field iterations)" = "$iterations" ] || fail "a key the scene claimed reached the window: iterations $iterations -> $(field iterations)"
echo "ok   Up claimed by the scene: the window's iterations stay $iterations"

xdotool key x
wait_for "X cuts the spring" '[ "$(field springs)" = 0 ]'
echo "ok   a key callback removed a spring"

camera=$(field camera)
# world (1, 1) is pixel (470, 250) in a 740 x 700 view at 100 px/m centred on (0, 0)
xdotool mousemove --window "$wid" 470 250 mousedown 3
xdotool mousemove --window "$wid" 520 300
xdotool mouseup 3
wait_for "mousepressed gets the right button in metres" '[ "$(field clicks)" = 1 ]'
awk -v x="$(field cx)" -v y="$(field cy)" 'BEGIN { exit !((x - 1)^2 + (y - 1)^2 < 0.0004) }' ||
  fail "the click came as ($(field cx), $(field cy)), not (1, 1)"
[ "$(field camera)" = "$camera" ] || fail "a claimed right-button drag panned the view"
echo "ok   right click at world (1, 1) reached the scene, claimed: no pan"

substeps=$(field substeps)
xdotool keydown Left
wait_for "isdown sees Left held" '[ "$(field left)" = 1 ]'
xdotool keyup Left
wait_for "and let go" '[ "$(field left)" = 0 ]'
[ "$(field substeps)" -lt "$substeps" ] || fail "an unclaimed Left did not reach the window (substeps $substeps)"
echo "ok   Left: held for the scene, and the window's binding ran (substeps $substeps -> $(field substeps))"

import -window "$wid" "$tmp/shot.png"
# draw(g): a magenta disc of 0.5 m at world (2, -1) = pixel (570, 450)
pixel=$(convert "$tmp/shot.png" -format '%[fx:int(255*p{570,450}.r)] %[fx:int(255*p{570,450}.g)] %[fx:int(255*p{570,450}.b)]' info:)
set -- $pixel
[ "$1" -gt 200 ] && [ "$2" -lt 60 ] && [ "$3" -gt 200 ] || fail "draw(g)'s disc is not on screen: pixel $pixel"
echo "ok   draw(g) is on screen: pixel ($pixel) at the disc"
[ -n "${SPRINGBOX_SHOT:-}" ] && cp "$tmp/shot.png" "$SPRINGBOX_SHOT"

# the scene moves the camera and retitles the window
camera() { last | sed -n 's/.*"camera":\[\([^]]*\)\].*/\1/p'; }
xdotool key v
wait_for "camera.look(5, -3) centres the view there, zoom kept" '[ "$(camera)" = "5,-3,100" ]'
awk -v h="$(field view_h)" 'BEGIN { exit !(h == 7) }' || fail "camera.get says the view is $(field view_h) m tall, not 7"
echo "ok   camera.look moved the view to (5, -3); camera.get reads 7 m tall"
xdotool key c
following() { # the camera sits on the bob, 4 m tall (700 px / 4 m = 175 px/m)
  local c; c=$(camera)
  awk -v c="$c" -v x="$(field bx)" -v y="$(field by)" 'BEGIN { split(c, v, ","); exit !((v[1] - x)^2 + (v[2] - y)^2 < 1e-4 && v[3] == 175) }'
}
wait_for "camera.follow(bob, 4) keeps the bob centred" following
wait_for "set_title retitles the window" '[ "$(xdotool getwindowname "$wid")" = "following the bob" ]'
echo "ok   camera.follow: the view sits on the bob at 175 px/m; the title is '$(xdotool getwindowname "$wid")'"

quit_app
