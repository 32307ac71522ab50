-- A rigid cloth of 96 x 96 beads (18240 rigid links): what bench/web_vs_native.sh times.
local sb = require "springbox"
local w = sb.world{ method = "soft", substeps = 4, iterations = 4, collisions = false }
local n, gap = 96, 0.05
local grid = {}
for r = 0, n - 1 do
  for c = 0, n - 1 do
    local p = w:particle{ x = (c - n / 2 + 0.3 * r) * gap, y = 3 - r * gap, mass = 0.1, radius = 0.01, fixed = (r == 0) }
    grid[r * n + c] = p
    local link = { hertz = 0, damping_ratio = 1, rest_length = gap }
    if c > 0 then w:spring(grid[r * n + c - 1], p, link) end
    if r > 0 then w:spring(grid[(r - 1) * n + c], p, link) end
  end
end
return { world = w, title = "rigid cloth 96" }
