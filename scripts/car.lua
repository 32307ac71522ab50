-- Car: two spoked wheels and a sprung chassis. The arrow keys drive (the scene claims them
-- from the window, whose arrows change the solver); the wheels grip by friction.
-- Shows claimed keys, springbox.keyboard.isdown and apply_force every frame.
local sb = require "springbox"

local w = sb.world{ substeps = 8, iterations = 6, friction = 1.0 }
w:wall(-4, 0, 3, 0)
w:wall(3, 0, 5, 0.6)
w:wall(5, 0.6, 7, 0.6)
w:wall(-4, 0, -4, 2)
w:wall(7, 0.6, 7, 2)
for i = 0, 6 do w:particle{ x = 1 + i * 0.15, y = 0.06, radius = 0.06, mass = 0.05 } end -- gravel

local function wheel(cx, cy, r)
  local hub = w:particle{ x = cx, y = cy, mass = 1, radius = 0.05, collide = false }
  local rim = {}
  for i = 1, 12 do
    local a = 2 * math.pi * i / 12
    rim[i] = w:particle{ x = cx + r * math.cos(a), y = cy + r * math.sin(a), mass = 0.2, radius = 0.07, group = -1 }
    w:spring(hub, rim[i]) -- rigid spokes
  end
  for i = 1, 12 do w:spring(rim[i], rim[i % 12 + 1]) end
  return hub, rim
end

local r = 0.4
local back, back_rim = wheel(-3, 0.6, r)
local front, front_rim = wheel(-1, 0.6, r)
local cab = w:particle{ x = -2, y = 1.5, mass = 4, radius = 0.2, group = -1, color = "#e74c3c" }
local suspension = { hertz = 3, damping_ratio = 0.6 }
w:spring(back, front)
w:spring(back, cab, suspension)
w:spring(front, cab, suspension)

local torque = 12 -- N m on each wheel
local function drive(hub, rim, sign)
  for _, p in ipairs(rim) do
    local dx, dy = p.x - hub.x, p.y - hub.y
    local f = sign * torque / (#rim * r * r) -- tangential force whose moments add up to the torque
    p:apply_force(-dy * f, dx * f)
    hub:apply_force(dy * f, -dx * f) -- and back on the axle: the engine pushes against the car
  end
end

return {
  world = w,
  title = "Car",
  keypressed = function(key) return key == "left" or key == "right" end,
  update = function()
    local sign = (sb.keyboard.isdown("left") and 1 or 0) - (sb.keyboard.isdown("right") and 1 or 0)
    if sign ~= 0 then
      drive(back, back_rim, sign)
      drive(front, front_rim, sign)
    end
    sb.plot("speed m/s", cab.vx)
  end,
  draw = function(g)
    g.color(1, 1, 1)
    g.print_screen("LEFT / RIGHT: drive", 10, 60)
  end,
}
