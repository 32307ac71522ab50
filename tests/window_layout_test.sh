#!/usr/bin/env bash
# The window never draws over itself: a scene that paints its whole world magenta, and pulls a
# replay's ghost across the window, leaves the HUD's band, the tuning panel and the graphs'
# band free of it; a warning that wraps keeps its lines under the title, and the scene's screen
# text starts under them.
set -u
bin="$1"
tools="import convert"
displays="$(seq 211 240)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, 0} }
-- two overlapping particles: a warning that wraps to two lines
w:particle{ x = -1, y = 0, radius = 0.2 }
w:particle{ x = -0.9, y = 0, radius = 0.2 }
local runner = w:particle{ x = 0, y = 1, vx = 4, collide = false }
return { world = w, title = "layout test", draw = function(g)
  g.color("#ff00ff")
  g.rectangle("fill", -40, -40, 80, 80)
  g.color("#00ff00")
  g.print_screen("SCENE TEXT", 0, 0)
end }
LUA
cd "$tmp" || fail "no temporary folder"
# magenta: the share of pixels in box WxH+X+Y of shot $1 that are the scene's magenta
magenta() { convert "$1" -crop "$2" +repage -fx "(r > 0.6 && b > 0.6 && g < 0.3) ? 1 : 0" -format "%[fx:mean]" info:; }
start_app "layout test" "$tmp/scene.lua"
wait_for "0.5 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 0.5) }"'
xdotool mousemove --window "$wid" 200 400 click 1 # an input, so that F5 has something to replay
sleep 0.5
xdotool key --window "$wid" F5
sleep 2 # the runner and its ghost cross into the panel's side of the window
import -window "$wid" "$tmp/shot.png"
hud_bottom=$(convert "$tmp/shot.png" -crop 1x700+600+0 +repage -fx "(r > 0.6 && b > 0.6 && g < 0.3) ? 1 : 0" txt:- |
  awk -F'[,:]' '/gray\(255\)|white|#FFFFFF/ { print $2; exit }')
[ -n "$hud_bottom" ] || fail "no magenta down the view at x = 600: the scene is not drawn"
[ "$hud_bottom" -ge 60 ] && [ "$hud_bottom" -le 140 ] || fail "the scene starts at y = $hud_bottom, not under the HUD's lines"
v=$(magenta "$tmp/shot.png" "740x${hud_bottom}+0+0"); [ "$v" = 0 ] || fail "magenta in the HUD's band ($v)"
v=$(magenta "$tmp/shot.png" 260x700+740+0); [ "$v" = 0 ] || fail "magenta in the tuning panel ($v)"
v=$(magenta "$tmp/shot.png" 740x80+0+620); [ "$v" = 0 ] || fail "magenta in the graphs' band ($v)"
text_y=$(convert "$tmp/shot.png" -crop 200x700+0+0 +repage -fx "(g > 0.6 && r < 0.3 && b < 0.3) ? 1 : 0" txt:- |
  awk -F'[,:]' '/gray\(255\)|white|#FFFFFF/ { print $2; exit }')
[ -n "$text_y" ] && [ "$text_y" -ge "$hud_bottom" ] || fail "the scene's screen text starts at y = ${text_y:-none}, above the HUD's bottom ($hud_bottom)"
echo "ok   the HUD (to y = $hud_bottom), the panel and the graphs stay clear; the scene's text starts at y = $text_y"
quit_app
echo "window layout: ok"
