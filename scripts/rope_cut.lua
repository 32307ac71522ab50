-- Rope cut: a crate hangs from two ropes. X cuts the left rope at its middle link; the
-- right rope's links break by themselves past 400 N, so a hard drag on the crate snaps it.
-- Shows breakable springs, a key callback and on_spring_break.
local sb = require "springbox"

local w = sb.world{ substeps = 6, iterations = 8 }
w:wall(-6, 0, 6, 0)

local function rope(x0, y0, x1, y1, links, opts)
  local springs, prev = {}, w:particle{ x = x0, y = y0, fixed = true, radius = 0.08 }
  for i = 1, links do
    local t = i / links
    local p = w:particle{ x = x0 + (x1 - x0) * t, y = y0 + (y1 - y0) * t, mass = 0.1 }
    springs[i] = w:spring(prev, p, opts)
    prev = p
  end
  return springs, prev
end

local left, left_end = rope(-3, 5, -0.5, 2.5, 12)
local _, right_end = rope(3, 5, 0.5, 2.5, 12, { break_force = 400 })
local crate = w:particle{ x = 0, y = 2, mass = 20, radius = 0.35, color = "#d9a441" }
w:spring(left_end, crate)
w:spring(right_end, crate, { break_force = 400 })

local s = sb.state{ message = "X cuts the left rope; drag the crate hard to snap the right one" }

return {
  world = w,
  title = "Rope cut",
  keypressed = function(key)
    local middle = left[#left // 2]
    if key == "x" and not middle.removed then
      w:remove(middle)
      s.message = "cut"
    end
  end,
  on_spring_break = function(_, _, _, force)
    s.message = ("a link broke at %.0f N"):format(force)
  end,
  draw = function(g)
    g.color(1, 1, 1)
    g.print_screen(s.message, 10, 60)
  end,
}
