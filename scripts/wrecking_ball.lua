-- Wrecking ball (the demo of Nissen's "Stable Rigid Springs with Sequential Impulses"): 40
-- rigid links and a 100 kg ball released from horizontal. A mass ratio of 100 is the classic way
-- to stretch an iterative solver.
local sb = require "springbox"

local w = sb.world{ method = "soft", substeps = 8, iterations = 8, collisions = false }
local link, n = 0.25, 40
local prev = w:particle{ x = 0, y = 0, fixed = true, radius = 0.08 }
for i = 1, n do
  local ball = (i == n)
  local p = w:particle{ x = i * link, y = 0, mass = ball and 100 or 1, radius = ball and 0.5 or 0.05 }
  w:spring(prev, p)                                        -- rigid: hertz 0
  prev = p
end

return { world = w, title = "Wrecking ball" }
