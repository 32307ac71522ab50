-- Jelly block: a block of beads braced both ways, tuned as one structure. The sliders set how
-- fast the block wobbles (its lowest deformation) and how soon it settles, not each spring's
-- tuning. Drag a corner and let go; slide wobble_hz from 1 to 6 and drop it again with R.
local sb = require "springbox"
local tune = sb.tune{ wobble_hz = {2, 0.5, 8}, wobble_damping = {0.1, 0, 1} }

local w = sb.world{}
w:wall(-4, 0, 4, 0)
local cols, rows, gap = 5, 4, 0.3
local bead = {}
for r = 0, rows - 1 do
  for c = 0, cols - 1 do
    bead[r * cols + c] = w:particle{ x = (c - 2) * gap, y = 1.5 + r * gap, radius = 0.1, mass = 0.1 }
  end
end
local springs = {}
local function join(a, b) springs[#springs + 1] = w:spring(bead[a], bead[b], { k = 1 }) end
for r = 0, rows - 1 do
  for c = 0, cols - 1 do
    local i = r * cols + c
    if c < cols - 1 then join(i, i + 1) end
    if r < rows - 1 then join(i, i + cols) end
    if c < cols - 1 and r < rows - 1 then join(i, i + cols + 1); join(i + 1, i + cols) end
  end
end
local mode = w:tune_structure(springs, { hertz = tune.wobble_hz, damping_ratio = tune.wobble_damping })

return { world = w, title = "Jelly block", draw = function(g)
  g.print_screen(("the block wobbles at %.2f Hz, damping ratio %.2f"):format(mode.hertz, mode.damping_ratio), 10, 10)
end }
