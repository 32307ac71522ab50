-- Spinning top: a wheel of beads on spokes spun up in zero gravity, and a second one spun the
-- same way and set down on the floor to roll off. A spinning thing keeps its angular momentum in
-- every method: switch methods with shift+1 .. 6 and watch the plot stay flat (rigid spokes and
-- rim, or the slider's hertz; where force and impulse cannot hold rigid springs the wheel
-- stretches and turns slower, its momentum kept). Space spins both again; the sliders set the
-- spin and the springs.
local sb = require "springbox"
local tune = sb.tune{ spin = {6, 1, 20}, spoke_hz = {0, 0, 30} }

local w = sb.world{ gravity = {0, 0}, friction = 0.6 }
w:wall(-8, -2.5, 8, -2.5)

-- a wheel: n beads round a hub, each joined to the hub and to its neighbours
local function wheel(cx, cy, radius, n, color)
  local hub = w:particle{ x = cx, y = cy, radius = 0.08, mass = 1, color = color }
  local rim = {}
  for i = 1, n do
    local a = 2 * math.pi * i / n
    rim[i] = w:particle{ x = cx + radius * math.cos(a), y = cy + radius * math.sin(a), radius = 0.06, mass = 0.2,
                         color = color }
  end
  local tuning = { hertz = tune.spoke_hz, damping_ratio = 0.2 }
  for i = 1, n do
    w:spring(hub, rim[i], tuning)
    w:spring(rim[i], rim[i % n + 1], tuning)
  end
  return { hub = hub, rim = rim, cx = cx, cy = cy }
end

local floating = wheel(-3, 1, 1, 12, "#f2cc8f")
local rolling = wheel(3, -1.35, 1, 12, "#81b29a") -- its rim just over the floor

-- every bead back where it was built, turning at `spin` rad/s about the hub (counter-clockwise)
local function spin(wh)
  for i, p in ipairs(wh.rim) do
    local a = 2 * math.pi * i / #wh.rim
    p.x, p.y = wh.cx + math.cos(a), wh.cy + math.sin(a)
    p.vx, p.vy = -tune.spin * math.sin(a), tune.spin * math.cos(a)
  end
  wh.hub.x, wh.hub.y, wh.hub.vx, wh.hub.vy = wh.cx, wh.cy, 0, 0
end

-- the wheel's angular momentum about its own centre of mass, kg m^2/s
local function momentum(wh)
  local beads = { wh.hub, table.unpack(wh.rim) }
  local m, x, y, vx, vy = 0, 0, 0, 0, 0
  for _, p in ipairs(beads) do
    m, x, y, vx, vy = m + p.mass, x + p.mass * p.x, y + p.mass * p.y, vx + p.mass * p.vx, vy + p.mass * p.vy
  end
  x, y, vx, vy = x / m, y / m, vx / m, vy / m
  local L = 0
  for _, p in ipairs(beads) do
    L = L + p.mass * ((p.x - x) * (p.vy - vy) - (p.y - y) * (p.vx - vx))
  end
  return L
end

spin(floating)
spin(rolling)

return {
  world = w,
  title = "Spinning top: angular momentum kept in every method",
  tune = tune,
  update = function()
    sb.plot("floating kg m2/s", momentum(floating), "spin")
    sb.plot("rolling kg m2/s", momentum(rolling), "spin")
    -- the floor's wheel under gravity, the other floating: a force on each bead of the one
    for _, p in ipairs({ rolling.hub, table.unpack(rolling.rim) }) do p:apply_force(0, -9.81 * p.mass) end
  end,
  keypressed = function(key)
    if key == "space" then
      spin(floating)
      spin(rolling)
      return true
    end
  end,
}
