-- Cloth: a grid of particles pinned along its top row, built sheared by 30% so it swings.
-- Each particle has up to four springs, the case where naive springs need
-- Cs <= 1/(n+1) = 0.2 (Nissen's "Developing a rigid, stable spring"). Switch methods (keys 1-6) to see who holds it.
local sb = require "springbox"
local tune = sb.tune{ size = {24, 4, 64}, hertz = {0, 0, 120} }

local w = sb.world{ method = "soft", substeps = 4, iterations = 4, collisions = false }
local n, gap = math.floor(tune.size), 0.15
local grid = {}
for r = 0, n - 1 do
  for c = 0, n - 1 do
    local p = w:particle{ x = (c - n / 2 + 0.3 * r) * gap, y = 3 - r * gap, mass = 0.1, radius = 0.03,
                          fixed = (r == 0) }
    grid[r * n + c] = p
    local link = { hertz = tune.hertz, damping_ratio = 1, rest_length = gap }   -- hertz 0: rigid
    if c > 0 then w:spring(grid[r * n + c - 1], p, link) end
    if r > 0 then w:spring(grid[(r - 1) * n + c], p, link) end
  end
end

return { world = w, title = "Cloth" }
