-- Rope: a chain of rigid links pinned at one end, dropped from horizontal. Drag the tip.
local sb = require "springbox"

local w = sb.world{ method = "soft", substeps = 4, iterations = 8, collisions = false }
local prev = w:particle{ x = -3, y = 3, fixed = true, radius = 0.06 }
for i = 1, 30 do
  local p = w:particle{ x = -3 + i * 0.2, y = 3, mass = 0.2, radius = 0.05 }
  w:spring(prev, p)
  prev = p
end

return { world = w, title = "Rope" }
