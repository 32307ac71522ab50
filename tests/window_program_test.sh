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
    sb.plot("bx", bob.x); sb.plot("by", bob.y); local vx, vy, vh = sb.camera.get(); sb.plot("view_x", vx); sb.plot("view_y", vy); sb.plot("view_h", vh)
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
# the point looked at sits in the middle of what the HUD and the graphs leave clear, the zoom kept
wait_for "camera.look(5, -3) centres the clear view there, zoom kept" '[ "$(field view_x)" = 5 ] && [ "$(field view_y)" = -3 ] && [ "$(camera | cut -d, -f3)" = 100 ]'
awk -v h="$(field view_h)" 'BEGIN { exit !(h > 1 && h < 7) }' || fail "camera.get says the clear view is $(field view_h) m tall (the window is 7 m tall at 100 px/m, less the HUD and graphs)"
awk -v c="$(camera)" 'BEGIN { split(c, v, ","); exit !(v[2] < -3) }' || fail "the window's centre $(camera) is not below the point looked at: the point would sit at the window's middle, the graphs' rows under it"
echo "ok   camera.look moved the clear view's middle to (5, -3); camera.get reads $(field view_h) m tall"
xdotool key c
following() { # the clear view sits on the bob, 4 m tall
  awk -v vx="$(field view_x)" -v vy="$(field view_y)" -v vh="$(field view_h)" -v x="$(field bx)" -v y="$(field by)" \
    'BEGIN { exit !((vx - x)^2 + (vy - y)^2 < 1e-4 && vh > 3.999 && vh < 4.001) }'
}
wait_for "camera.follow(bob, 4) keeps the bob centred" following
wait_for "set_title retitles the window" '[ "$(xdotool getwindowname "$wid")" = "following the bob" ]'
echo "ok   camera.follow: the clear view sits on the bob, 4 m tall; the title is '$(xdotool getwindowname "$wid")'"
# the wheel zooms a followed view: the scene's height, times the wheel's share
scale=$(camera | cut -d, -f3)
xdotool mousemove --window "$wid" 300 300 click 4 click 4
wait_for "the wheel zooms in on a followed bob" 'awk -v s="$(camera | cut -d, -f3)" -v s0="$scale" "BEGIN { exit !(s > 1.3 * s0) }"'
following_zoomed() { awk -v vx="$(field view_x)" -v x="$(field bx)" 'BEGIN { exit !((vx - x)^2 < 1e-4) }'; }
wait_for "zoomed in, the camera still follows the bob" following_zoomed
echo "ok   the wheel zooms a followed view ($scale -> $(camera | cut -d, -f3) px/m) and it follows on"

quit_app
