#!/usr/bin/env bash
# V in the real window: the clean view shows the scene alone over the whole window (no HUD, no
# tuning panel, no graphs), the window's title says how to leave it and what was last said, G
# records what is shown, and V again brings the window back.
set -u
bin="$1"
tools="import convert identify"
displays="$(seq 181 210)"
. "$(dirname "$0")/xvfb_window.sh"

cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local tune = sb.tune{ hertz = {2, 0.5, 8} }
local w = sb.world{ gravity = {0, -9.81} }
local top = w:particle{ x = -2, y = 1, fixed = true }
local bob = w:particle{ x = -1.5, y = 1, radius = 0.1 }
w:spring(top, bob, { hertz = tune.hertz, damping_ratio = 0.02 })
return { world = w, title = "clean view test" }
LUA
cd "$tmp" || fail "no temporary folder"
# bright: the share of pixels of the window shot $1 in the box WxH+X+Y ($2) brighter than a
# quarter of white (the panel's slider bars, the HUD's text; the scene's background is darker)
bright() { convert "$1" -crop "$2" +repage -colorspace gray -threshold 25% -format "%[fx:mean]" info:; }
some() { awk -v v="$1" 'BEGIN { exit !(v > 0.002) }'; }
none() { awk -v v="$1" 'BEGIN { exit !(v == 0) }'; }
panel=230x240+760+60 hud=380x24+8+6 graphs=700x70+10+620
# each_area SHOT some|none WHAT: every one of the three areas has something drawn, or nothing
each_area() {
  for box in $panel $hud $graphs; do
    v=$(bright "$1" $box); "$2" "$v" || fail "$3: $2 drawn in $box ($v)"
  done
}
# gif_last N SHOT: G's springbox-000N.gif is written; its last frame (the window scaled down, a
# third here) scaled back up, block for block, into SHOT
gif_last() {
  local gif="$tmp/springbox-000$1.gif"
  wait_for "G writes springbox-000$1.gif" '[ -s "$gif" ] && identify "$gif" >/dev/null 2>&1'
  convert "$gif[-1]" -scale 300% "$2"
}

start_app "clean view test" "$tmp/scene.lua"
wait_for "1 s of physics" 'awk -v t="$(field time)" "BEGIN { exit !(t >= 1) }"'
import -window "$wid" "$tmp/before.png"
each_area "$tmp/before.png" some "before V"
xdotool key --window "$wid" g
gif_last 1 "$tmp/gif_before.png"
each_area "$tmp/gif_before.png" some "before V, the GIF's last frame"
echo "ok   before V: the panel, the HUD and the graphs are drawn, in the window and in a GIF"

xdotool key --window "$wid" v
wait_for "the title says the clean view is on" 'xdotool getwindowname "$wid" | grep -q "clean view: V brings the window back"'
sleep 0.3
import -window "$wid" "$tmp/clean.png"
each_area "$tmp/clean.png" none "in the clean view"
# the scene takes the whole window: world x = 0 moves from the middle of the view left of the
# panel (370 px) to the middle of the window (500 px); the fixed particle at x = -2 with it
v=$(bright "$tmp/clean.png" 12x12+294+244); some "$v" || fail "the fixed particle is not at (300, 250) in the clean view"
echo "ok   V: the scene alone over the whole window; the title says how to leave"

sleep 1
xdotool key --window "$wid" g
gif_last 2 "$tmp/last.png"
wait_for "the title says the GIF was written" 'xdotool getwindowname "$wid" | grep -q "springbox-0002.gif"'
each_area "$tmp/last.png" none "in the clean view, the GIF's last frame"
echo "ok   G in the clean view: the GIF's last frame is the scene alone"

xdotool key --window "$wid" v
wait_for "the title is the scene's again" '[ "$(xdotool getwindowname "$wid")" = "clean view test" ]'
sleep 0.3
import -window "$wid" "$tmp/back.png"
each_area "$tmp/back.png" some "after V again"
echo "ok   V again: the window is back"
quit_app
echo "window clean view: ok"
