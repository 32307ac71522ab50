#!/usr/bin/env bash
# --gif: an animated GIF of the view at 30 frames per second that shows the
# motion (a ball falls through the pixels where the physics puts it), loops, takes as long to
# play as the run took, is readable by everyone, and a path that cannot be written is refused
# by name with exit status 2.
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
need convert
"$bin" --help 2>&1 | grep -q -- "--gif" || { echo "FAIL: --help does not list --gif"; exit 1; }
cat >"$tmp/fall.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, -9.81} }
w:particle{ x = 0, y = 2, radius = 0.3, color = "#e67e22" }
return { world = w, title = "gif test" }
LUA
# 640 x 480 with the camera on (0, 0) at 40 px/m: the view is the left 380 px, world (x, y) is
# pixel (190 + 40 x, 240 - 40 y), and the GIF halves it: (95 + 20 x, 120 - 20 y)
"$bin" --gif "$tmp/fall.gif" --frames 60 --window 640x480 --view 0,0,40 "$tmp/fall.lua" >"$tmp/out" 2>&1 ||
  { echo "FAIL: exit $?"; cat "$tmp/out"; exit 1; }
grep -q "wrote $tmp/fall.gif: 31 frames" "$tmp/out" || { echo "FAIL: $(cat "$tmp/out")"; exit 1; }
frames=$(identify "$tmp/fall.gif" | wc -l)
[ "$frames" = 31 ] || { echo "FAIL: $frames frames for 60 steps at 30 per second, want 31"; exit 1; }
[ "$(identify -format '%wx%h\n' "$tmp/fall.gif" | head -n 1)" = 320x240 ] || { echo "FAIL: not 320x240"; exit 1; }
delay=$(identify -format '%T+' "$tmp/fall.gif")
total=$(( ${delay}0 ))
[ "$total" -ge 101 ] && [ "$total" -le 105 ] || { echo "FAIL: plays for $total cs, want 31 frames of 1/30 s (103)"; exit 1; }
grep -q "NETSCAPE2.0" "$tmp/fall.gif" || { echo "FAIL: the GIF does not loop"; exit 1; }
[ "$(stat -c %a "$tmp/fall.gif")" = "$(printf '%o' $(( 0666 & ~$(umask) )))" ] || { echo "FAIL: mode $(stat -c %a "$tmp/fall.gif")"; exit 1; }

orange() { # frame x y: true when the pixel is the ball's orange
  rgb=$(convert "$tmp/fall.gif[$1]" -format "%[fx:int(255*p{$2,$3}.r)],%[fx:int(255*p{$2,$3}.g)],%[fx:int(255*p{$2,$3}.b)]" info:)
  IFS=, read -r r g b <<<"$rgb"
  [ $(( (r-230)*(r-230) + (g-126)*(g-126) + (b-34)*(b-34) )) -lt 1500 ]
}
# frame 0: the ball at y = 2 m; frame 30 (1 s): fallen g/2 = 4.9 m to y = -2.9 m
orange 0 95 80 || { echo "FAIL: frame 0 has no ball at (0, 2)"; exit 1; }
orange 30 95 80 && { echo "FAIL: frame 30 still has the ball at (0, 2)"; exit 1; }
orange 30 95 178 || { echo "FAIL: frame 30 has no ball at (0, -2.9), where 1 s of falling puts it"; exit 1; }
echo "ok   31 frames, 320x240, $total cs, looping, the ball where the physics puts it"

"$bin" --gif /nonexistent/dir/x.gif --frames 10 "$tmp/fall.lua" >"$tmp/out" 2>&1
status=$?
[ $status = 2 ] && grep -q -- "cannot write the GIF '/nonexistent/dir/x.gif' (--gif)" "$tmp/out" ||
  { echo "FAIL: an unwritable --gif gave exit $status: $(cat "$tmp/out")"; exit 1; }
echo "ok   an unwritable --gif path: exit 2, named"
echo "gif: ok"
