-- Jelly: a ring of particles on soft rim springs around an area constraint, dropped on a ramp.
-- The area pushes back as a gas would (a pressure soft body), so the blob squashes, bounces and
-- keeps its volume; its tuning is a hertz and damping ratio like a spring's. Drag it around.
local sb = require "springbox"

local tune = sb.tune{ jelly_hz = {8, 0.5, 30}, inflate = {1, 0.6, 1.4} }
local w = sb.world{ substeps = 6, iterations = 4, friction = 0.6 }
w:wall(-4, 2, 0, 0)
w:wall(0, 0, 4, 0)
w:wall(4, 0, 4, 3)

local n, r = 28, 0.6
local ring = {}
for i = 1, n do
  local a = 2 * math.pi * i / n
  ring[i] = w:particle{ x = -2.6 + r * math.cos(a), y = 3.2 + r * math.sin(a), mass = 0.05, radius = 0.06,
                        color = "#6fcf97" }
end
for i = 1, n do w:spring(ring[i], ring[i % n + 1], { hertz = 20, damping_ratio = 0.3, hidden = false }) end
local body = w:area(ring, { area = tune.inflate * math.pi * r * r * (n / (2 * math.pi)) * math.sin(2 * math.pi / n),
                            hertz = tune.jelly_hz, damping_ratio = 0.1 })

return {
  world = w,
  title = "Jelly",
  tune = tune,
  update = function() sb.plot("area / rest %", 100 * body.value / body.area) end,
  draw = function(g)
    local pts = {}
    for i, p in ipairs(ring) do pts[2 * i - 1], pts[2 * i] = p.x, p.y end
    g.color(0.43, 0.81, 0.59, 0.25)
    g.polygon("line", table.unpack(pts))
  end,
}
