-- Stretch colours: a trampoline of 20 Hz springs catches a falling weight, and the script
-- colours each spring by its own stretch (green at rest, yellow at 5%, red at 10% and past).
-- Shows per-spring colour, a hidden spring, and text and shapes drawn in the world.
local sb = require "springbox"

local w = sb.world{ substeps = 6, iterations = 4 }
local n, gap, rows = 12, 0.3, 2
local grid, springs = {}, {}
local tune = { hertz = 20, damping_ratio = 0.3 }
local function at(r, c) return grid[r * (n + 1) + c] end
for r = 0, rows - 1 do
  for c = 0, n do
    grid[r * (n + 1) + c] = w:particle{ x = (c - n / 2) * gap, y = 2 - r * gap, mass = 0.05,
                                        fixed = c == 0 or c == n }
    if c > 0 then springs[#springs + 1] = w:spring(at(r, c - 1), at(r, c), tune) end
    if r > 0 then springs[#springs + 1] = w:spring(at(r - 1, c), at(r, c), tune) end
    if r > 0 and c > 0 then springs[#springs + 1] = w:spring(at(r - 1, c - 1), at(r, c), tune) end
  end
end
-- a weight, held up for a second by a spring nobody sees
local weight = w:particle{ x = 0.15, y = 4, mass = 1, radius = 0.25, color = "#6c7a89" }
local hook = w:particle{ x = 0.15, y = 4.5, fixed = true, radius = 0, hidden = true }
local catch = w:spring(hook, weight, { hidden = true })

local function color_of(stretch)
  local t = math.min(math.abs(stretch) / 0.1, 1)
  if t < 0.5 then return { 2 * t, 0.8, 0.2 } end
  return { 1, 0.8 * (2 - 2 * t), 0.2 }
end

return {
  world = w,
  title = "Stretch colours",
  update = function(world)
    if world:stats().time > 1 and not catch.removed then world:remove(catch) end
    for _, s in ipairs(springs) do
      if not s.removed then s.color = color_of(s.stretch) end
    end
  end,
  draw = function(g)
    local labels = { { 0, "at rest" }, { 0.05, "5% stretch" }, { 0.1, "10% and past" } }
    for i, l in ipairs(labels) do
      local c = color_of(l[1])
      g.color(c[1], c[2], c[3])
      g.print_screen(l[2], 10 + (i - 1) * 120, 60)
    end
    g.color(0.9, 0.9, 0.9, 0.5)
    g.circle("line", weight.x, weight.y, 0.35) -- a halo that follows the weight
  end,
}
