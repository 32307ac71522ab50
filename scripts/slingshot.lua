-- Slingshot: press the left button on the stone, pull back, let go. Two elastic bands
-- (8 Hz springs that only the stone stretches) throw it; its height is plotted live.
-- Shows mouse callbacks that claim a click, springbox.mouse, draw(g) and springbox.plot.
local sb = require "springbox"

local w = sb.world{ substeps = 6, iterations = 4 }
w:wall(-3, 0, 12, 0)
w:wall(12, 0, 12, 4)
local left = w:particle{ x = -1.3, y = 1.5, fixed = true, radius = 0.06, color = "#8e5b3a" }
local right = w:particle{ x = -0.7, y = 1.5, fixed = true, radius = 0.06, color = "#8e5b3a" }
local stone = w:particle{ x = -1, y = 1.5, mass = 0.5, radius = 0.15, color = "#9aa5b1" }
local band = { hertz = 8, damping_ratio = 0.3, rest_length = 0.3, color = "#c0392b" }
w:spring(left, stone, band)
w:spring(right, stone, band)
for i = 0, 7 do -- a stack of light targets
  w:particle{ x = 8 + (i % 2) * 0.3, y = 0.15 + i * 0.3, mass = 0.2, radius = 0.15, color = "#5dade2" }
end

local held = false
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
    if held then w:drag_to(x, y) end
  end,
  mousereleased = function()
    if held then w:release() end
    held = false
  end,
  update = function()
    s.best = math.max(s.best, stone.y)
    sb.plot("stone height m", stone.y)
  end,
  draw = function(g)
    g.color(0.56, 0.36, 0.23) -- the fork
    g.line(left.x, left.y, -1, 0.9, right.x, right.y)
    g.line(-1, 0.9, -1, 0)
    if held then
      local mx, my = sb.mouse.position()
      g.color(1, 1, 1, 0.4)
      g.line(stone.x, stone.y, stone.x + 3 * (-1 - mx), stone.y + 3 * (1.5 - my)) -- where it will fly
    end
    g.color(0.9, 0.9, 0.9)
    g.print(("highest %.2f m"):format(s.best), -2.5, 3.5)
  end,
}
