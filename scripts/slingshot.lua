-- Slingshot: press the left button on the stone, pull back, let go. Two elastic bands
-- (3 Hz springs) throw it and let go of it as it passes the fork; its height is plotted live.
-- R (the window's restart) loads another stone. Shows mouse callbacks that claim a click,
-- springbox.mouse, removing springs at run time, draw(g) and springbox.plot.
local sb = require "springbox"

local w = sb.world{ substeps = 6, iterations = 4 }
w:wall(-3, 0, 12, 0)
w:wall(12, 0, 12, 4)
-- the fork seen from the side: one prong above the other, the stone flies out between them
local left = w:particle{ x = -1, y = 1.8, fixed = true, radius = 0.06, color = "#8e5b3a" }
local right = w:particle{ x = -1, y = 1.2, fixed = true, radius = 0.06, color = "#8e5b3a" }
local stone = w:particle{ x = -1, y = 1.5, mass = 0.5, radius = 0.15, color = "#9aa5b1" }
local band = { hertz = 3, damping_ratio = 0.1, rest_length = 0.3, hidden = true } -- drawn by draw(g)
local bands = { w:spring(left, stone, band), w:spring(right, stone, band) }
for i = 0, 7 do -- a stack of light targets
  w:particle{ x = 8 + (i % 2) * 0.3, y = 0.15 + i * 0.3, mass = 0.2, radius = 0.15, color = "#5dade2" }
end

local held, launched = false, false
local s = sb.state{ best = 0 }

return {
  world = w,
  title = "Slingshot",
  mousepressed = function(x, y, button)
    if button == 1 and math.abs(x - stone.x) < 0.4 and math.abs(y - stone.y) < 0.4 then
      held = true
      w:drag(stone, x, y, 20, 1)
      return true -- the click is the scene's: the window does not drag or pan
    end
  end,
  mousemoved = function(x, y)
    if held then -- the bands give at most 1.2 m
      local dx, dy = x + 1, y - 1.5
      local d = math.max(1, math.sqrt(dx * dx + dy * dy) / 1.2)
      w:drag_to(-1 + dx / d, 1.5 + dy / d)
    end
  end,
  mousereleased = function()
    if held then
      w:release()
      launched = stone.x < -1 -- pulled back past the fork
    end
    held = false
  end,
  update = function()
    if launched and stone.x > -1 and not bands[1].removed then -- the pouch lets go at the fork
      w:remove(bands[1])
      w:remove(bands[2])
    end
    s.best = math.max(s.best, stone.y)
    sb.plot("stone height m", stone.y)
  end,
  draw = function(g)
    g.color(0.56, 0.36, 0.23) -- the fork, behind the stone's path
    g.line(left.x, left.y, -1.25, 1.5, right.x, right.y, -1, 0)
    if not bands[1].removed then
      g.color(0.75, 0.22, 0.17)
      g.line(left.x, left.y, stone.x, stone.y, right.x, right.y)
    end
    if held then
      local mx, my = sb.mouse.position()
      g.color(1, 1, 1, 0.4)
      g.line(stone.x, stone.y, stone.x + 3 * (-1 - mx), stone.y + 3 * (1.5 - my)) -- where it will fly
    end
    g.color(0.9, 0.9, 0.9)
    g.print(("highest %.2f m"):format(s.best), -2.5, 3.5)
  end,
}
