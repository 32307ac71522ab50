-- Pinwheels: the same wheel of springs, spun in zero gravity, in each of the six methods, at the
-- sub-steps the slider sets. Every one keeps its spin: the numbers under the wheels are the
-- angular momentum each has kept since the start. Try 1 sub-step and stiff or soft spokes.
local sb = require "springbox"
local tune = sb.tune{ substeps = {1, 1, 8}, spoke_hz = {0, 0, 30}, spin = {6, 1, 12} }

local wheels = {}
for i, method in ipairs(sb.methods) do
  local x0 = (i - 3.5) * 2.6
  local w = sb.world{ method = method, substeps = math.floor(tune.substeps + 0.5), gravity = {0, 0} }
  local hub = w:particle{ x = x0, y = 0, radius = 0.08, color = "#f2cc8f" }
  local beads = {}
  for k = 1, 12 do
    local a = 2 * math.pi * k / 12
    beads[k] = w:particle{ x = x0 + math.cos(a), y = math.sin(a), vx = -tune.spin * math.sin(a),
                           vy = tune.spin * math.cos(a), color = k == 1 and "#e07a5f" or nil }
    w:spring(hub, beads[k], { hertz = tune.spoke_hz, damping_ratio = 0.1 })
  end
  for k = 1, 12 do
    w:spring(beads[k], beads[k % 12 + 1], { hertz = tune.spoke_hz, damping_ratio = 0.1 })
  end
  beads[13] = hub
  wheels[i] = { world = w, method = method, particles = beads, x = x0 }
end

-- Angular momentum about the wheel's centre of mass, kg m^2/s.
local function angular_momentum(ps)
  local m, cx, cy, vx, vy = 0, 0, 0, 0, 0
  for _, p in ipairs(ps) do
    m = m + p.mass
    cx, cy = cx + p.mass * p.x, cy + p.mass * p.y
    vx, vy = vx + p.mass * p.vx, vy + p.mass * p.vy
  end
  cx, cy, vx, vy = cx / m, cy / m, vx / m, vy / m
  local l = 0
  for _, p in ipairs(ps) do
    l = l + p.mass * ((p.x - cx) * (p.vy - vy) - (p.y - cy) * (p.vx - vx))
  end
  return l
end

for _, wheel in ipairs(wheels) do wheel.start = angular_momentum(wheel.particles) end

local worlds = {}
for i, wheel in ipairs(wheels) do worlds[i] = wheel.world end

return {
  world = worlds[1],
  worlds = worlds,
  title = "Pinwheels: one spinning wheel in every method",
  tune = tune,
  draw = function(g)
    g.color(1, 1, 1)
    for _, wheel in ipairs(wheels) do
      g.print(wheel.method, wheel.x - 0.5, -1.5)
      g.print(("%.1f%%"):format(100 * angular_momentum(wheel.particles) / wheel.start), wheel.x - 0.5, -1.8)
    end
  end,
}
