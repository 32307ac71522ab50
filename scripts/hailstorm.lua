-- Hailstorm: 2000 balls pour into a bin while hailstones fall into it from high up at 30 m/s
-- or more and the cannon (F, or the left button anywhere) fires a heavy ball across it. Nothing
-- passes through the pile, and the step time stays flat: each ball looks for partners in the
-- cells next to its own, and only one whose neighbours move at other speeds than its own (a
-- hailstone, the cannonball, the balls they hit) looks farther. The plot shows the step time
-- (the HUD's line the contacts). Slide the hail's speed, the cannon's and the count (R pours again).
local sb = require "springbox"
local tune = sb.tune{ hail_speed = {30, 5, 80}, shot_speed = {25, 5, 60}, count = {2000, 200, 6000} }

local w = sb.world{ friction = 0.4 }
w:polyline{ -4, 14, -4, 0, 4, 0, 4, 14 }

math.randomseed(7) -- the same pour each time
local function random(lo, hi) return lo + (hi - lo) * math.random() end

for i = 0, math.floor(tune.count) - 1 do
  local col, row = i % 38, i // 38
  w:particle{ x = -3.7 + col * 0.2 + random(-0.01, 0.01), y = 0.2 + row * 0.21,
              radius = random(0.05, 0.09), color = "#c8b68a" }
end

local function fire(y)
  w:particle{ x = -3.6, y = y, vx = tune.shot_speed, vy = 1, mass = 20, radius = 0.15, color = "#e74c3c" }
end

local frame = 0
sb.camera.look(0, 7, 17)

return {
  world = w, title = "Hailstorm",
  keypressed = function(key)
    if key == "f" then
      fire(3)
      return true -- F is the scene's, not the window's
    end
  end,
  mousepressed = function(_, y, button)
    if button == 1 then
      fire(math.max(0.5, math.min(y, 12)))
      return true
    end
  end,
  update = function()
    frame = frame + 1
    if frame % 20 == 0 then -- a hailstone, straight down from above the bin
      w:particle{ x = random(-3.5, 3.5), y = 40, vy = -tune.hail_speed, radius = 0.06, color = "#7fb3d5" }
    end
    sb.plot("step", w:stats().step_ms, "ms")
  end,
}
