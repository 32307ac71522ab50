#!/usr/bin/env bash
# Offscreen screenshots hold real content: with the camera at (0,0), 100 px per metre, in a
# 1000x700 image (the world view is the left 740 px), each thing is drawn at its projected
# pixel in its colour (the palette in src/app/render.c).
. "$(dirname "$0")/shell_preamble.sh"
bin="$1"
need convert
cat >"$tmp/scene.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, 0}, collisions = false }
local function fixed(x, y) return w:particle{ x = x, y = y, fixed = true, radius = 0.12 } end
w:spring(fixed(1, 1), fixed(3, 1), { rest_length = 1 })      -- stretched 100%
w:spring(fixed(1, -1), fixed(3, -1), { rest_length = 4 })    -- compressed 50%
w:spring(fixed(-3, -2), fixed(-1, -2))                       -- at rest
w:particle{ x = -2, y = 0.5, radius = 0.3 }                  -- a free particle
return { world = w, title = "screenshot test" }
LUA
"$bin" --screenshot "$tmp/shot.png" --frames 10 --window 1000x700 --view 0,0,100 "$tmp/scene.lua" || { echo "FAIL: exit $?"; exit 1; }
[ "$(identify -format '%wx%h' "$tmp/shot.png")" = 1000x700 ] || { echo "FAIL: wrong image size"; exit 1; }

status=0
check() { # x y r g b what
  got=$(convert "$tmp/shot.png" -format "%[fx:int(255*p{$1,$2}.r)],%[fx:int(255*p{$1,$2}.g)],%[fx:int(255*p{$1,$2}.b)]" info:)
  IFS=, read -r r g b <<<"$got"
  if [ $(( (r-$3)*(r-$3) + (g-$4)*(g-$4) + (b-$5)*(b-$5) )) -gt 300 ]; then
    echo "FAIL: $6 at ($1,$2): got rgb($got), want rgb($3,$4,$5)"; status=1
  else
    echo "ok   $6 at ($1,$2): rgb($got)"
  fi
}
# world (x, y) -> pixel (370 + 100 x, 350 - 100 y)
check 470 250 255 162 58 "fixed particle (1,1), fixed colour"
check 570 250 255 64 64 "stretched spring midpoint (2,1), stretched colour"
check 570 450 64 150 255 "compressed spring midpoint (2,-1), compressed colour"
check 170 550 128 138 156 "spring at rest midpoint (-2,-2), neutral colour"
check 170 300 214 220 230 "free particle (-2,0.5), particle colour"
check 370 150 21 24 29 "empty space (0,2), background"

# A dense lattice (9660 springs, 2 px wide at this zoom) takes the pixel-layer path: springs
# are 1-pixel lines in their strain colours and the small free particles at the joints are
# not drawn over them. Row 35 (y = 0.05) has its horizontal springs at half their length.
cat >"$tmp/dense.lua" <<'LUA'
local sb = require "springbox"
local w = sb.world{ gravity = {0, 0}, collisions = false }
local n, gap, grid = 70, 0.05, {}
for r = 0, n - 1 do
  for c = 0, n - 1 do
    local p = w:particle{ x = -1.7 + c * gap, y = -1.7 + r * gap, radius = 0.01 }
    grid[r * n + c] = p
    local stretched = { rest_length = gap / 2, hertz = 0.001 }  -- too soft to move in a frame
    if c > 0 then w:spring(grid[r * n + c - 1], p, r == 35 and stretched or { rest_length = gap }) end
    if r > 0 then w:spring(grid[(r - 1) * n + c], p) end
  end
end
return { world = w, title = "dense screenshot test" }
LUA
"$bin" --screenshot "$tmp/shot.png" --frames 1 --window 1000x700 --view 0,0,100 "$tmp/dense.lua" || { echo "FAIL: exit $?"; exit 1; }
check 253 345 255 64 64 "dense: stretched row y=0.05 between joints, stretched colour"
check 253 320 128 138 156 "dense: row y=0.3 between joints, neutral colour"
check 250 320 128 138 156 "dense: a joint (-1.2,0.3) shows its lines, not a particle"
check 600 345 21 24 29 "dense: right of the lattice, background"
exit $status
