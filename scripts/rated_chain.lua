-- Rated chain: a lamp hangs on a chain whose links are each rated at 60 N. Each link shows its
-- force over its rating: at rest it carries the weight below it and no more, from the first
-- frame. Raise the lamp's mass past about 6 kg and the most loaded link, the top one, goes.
local sb = require "springbox"
local tune = sb.tune{ lamp_kg = {3, 0.5, 8} }
local rating = 60 -- N
local w = sb.world{}
w:wall(-3, 0, 3, 0)

local links, prev = {}, w:particle{ x = 0, y = 4, fixed = true, radius = 0.06 }
for i = 1, 8 do
  local last = i == 8
  local p = w:particle{ x = 0, y = 4 - 0.3 * i, mass = last and tune.lamp_kg or 0.05,
                        radius = last and 0.3 or 0.05, color = last and "#f2c14e" or nil }
  links[i] = w:spring(prev, p, { break_force = rating })
  prev = p
end

local s = sb.state{ message = "each link: its force over its 60 N rating" }

return {
  world = w,
  title = "Rated chain: a lamp on links rated at 60 N",
  tune = tune,
  on_spring_break = function(_, _, _, force)
    s.message = ("a link broke at %.0f N"):format(force)
  end,
  draw = function(g)
    g.color(1, 1, 1)
    for _, link in ipairs(links) do
      if not link.removed then
        local a, b = link.a, link.b
        g.print(("%3.0f%%"):format(100 * link.force / rating), 0.15, (a.y + b.y) / 2 + 0.1)
      end
    end
    g.print_screen(s.message, 10, 60)
  end,
}
