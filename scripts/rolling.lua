-- Rolling: a marble, a disc, a ring and a crate, each let go on its own copy of the same slope.
-- Free particles roll (friction turns them), as fast as their inertia lets them: a marble
-- (inertia 0.4) beats a disc (0.5), which beats a ring (1); the crate cannot turn (rolls =
-- false), so friction holds it. Below, a row of driven wheels (fixed particles with a spin)
-- carries a crate along and spins a ball in place, as rollers do. The sliders change the
-- rolling resistance and the rollers' spin live; R races again.
local sb = require "springbox"
local tune = sb.tune{ rolling_resistance = {0.0, 0, 0.3}, roller_spin = {-8, -30, 30} }

local w = sb.world{ friction = 0.6, rolling_resistance = tune.rolling_resistance }
local racers = {
  { name = "marble", inertia = 0.4, color = "#4fc3f7" },
  { name = "disc", inertia = 0.5, color = "#ffd54f" },
  { name = "ring", inertia = 1.0, color = "#ef5350" },
  { name = "crate", rolls = false, color = "#a1887f" },
}
local r, drop = 0.2, 1.6 -- radius; each slope falls 1.6 m over 6 m (15 degrees: tan 0.27 < friction)
for i, racer in ipairs(racers) do
  local y0 = 2.2 * (#racers - i) + 1.5
  w:polyline{ -6, y0 + drop, 0, y0, 6, y0, 6, y0 + 0.8 } -- slope, floor, end wall
  local x = -5.6
  local n = { drop / math.sqrt(36 + drop * drop), 6 / math.sqrt(36 + drop * drop) } -- the slope's normal
  racer.p = w:particle{ x = x + n[1] * r, y = y0 + drop * (-x) / 6 + n[2] * r, radius = r,
                        inertia = racer.inertia or 0.5, rolls = racer.rolls, color = racer.color }
end

local rollers = {}
for i = 0, 14 do
  rollers[#rollers + 1] = w:particle{ x = -5.6 + 0.8 * i, y = 0, radius = 0.38, fixed = true, spin = tune.roller_spin }
end
w:wall(-6.2, 0, -6.2, 1.2)
w:wall(6.2, 0, 6.2, 1.2)
local ball = w:particle{ x = -4.8, y = 0.9, radius = 0.3, color = "#81c784" }
local box = w:particle{ x = -2.4, y = 0.75, radius = 0.3, rolls = false, color = "#a1887f" }
sb.camera.look(0, 3.6, 14.5)

return {
  world = w,
  title = "Rolling",
  update = function()
    w.rolling_resistance = tune.rolling_resistance
    for _, roller in ipairs(rollers) do roller.spin = tune.roller_spin end
    for _, racer in ipairs(racers) do
      sb.plot(racer.name .. " m/s", math.sqrt(racer.p.vx ^ 2 + racer.p.vy ^ 2), "speed on the slopes")
    end
    sb.plot("crate on rollers m/s", box.vx, "rollers")
    sb.plot("ball on rollers: spin rad/s", ball.spin, "rollers")
  end,
  draw = function(g)
    for _, racer in ipairs(racers) do
      g.color(racer.color)
      g.print(racer.name, racer.p.x - 0.3, racer.p.y + 0.55)
    end
  end,
}
