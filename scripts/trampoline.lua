-- Trampoline: a bed of beads pulled taut between two posts, tuned as one structure. The slider
-- sets the bed's own frequency (its lowest mode), not each spring's: the springs take whatever
-- stiffness gives the bed that. Drag the ball up and let it drop; slide bed_hz and watch it land.
local sb = require "springbox"
local tune = sb.tune{ bed_hz = {1.5, 0.5, 5} }

local w = sb.world{}
local n, gap = 15, 0.25
local x0 = -(n + 1) * gap / 2
local bed, prev = {}, w:particle{ x = x0, y = 0, fixed = true, radius = 0.1 }
for i = 1, n + 1 do
  local p = w:particle{ x = x0 + i * gap, y = 0, mass = 0.05, radius = 0.1, fixed = (i == n + 1) }
  bed[#bed + 1] = w:spring(prev, p, { k = 1, rest_length = 0.8 * gap })   -- taut: 80% of the gap
  prev = p
end
w:tune_structure(bed, { hertz = tune.bed_hz })
w:particle{ x = 0.4, y = 2.5, radius = 0.22, mass = 0.4 }

return { world = w, title = "Trampoline", draw = function(g)
  g.print_screen(("the bed swings at %.2f Hz: its springs at %.0f N/m"):format(tune.bed_hz, bed[1].k), 10, 10)
end }
