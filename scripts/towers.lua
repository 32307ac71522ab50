-- Towers: the same column of 20 balls in a glass tube and pyramid of discs at 1, 2 and 6
-- sub-steps, side by side.
-- Contacts are soft springs as stiff as a quarter of the sub-step rate: at the default 6 sub-steps
-- a column of 20 balls sinks about a centimetre into itself. At one and two sub-steps the quarter
-- would be 15 and 30 Hz, and a column would squeeze down by two balls and one; the contacts are
-- held at 45 Hz there, with more passes, and it sinks 5 cm. The plot shows how far each tower's
-- top ball sank. B drops a heavy ball (ten times a ball's mass, a slider) into every tube; R
-- builds them again.
local sb = require "springbox"
local tune = sb.tune{ heavy_mass = {10, 1, 100} }

local r, n = 0.1, 20
local towers = {}
local worlds = {} -- run side by side
for i, substeps in ipairs{ 1, 2, 6 } do
  local x0 = (i - 2) * 4
  local w = sb.world{ substeps = substeps, friction = 0.5 }
  w:polyline{ x0 - 1.8, 6, x0 - 1.8, 0, x0 + 1.8, 0, x0 + 1.8, 6 }
  w:wall(x0 - 0.9 - r - 0.01, 0, x0 - 0.9 - r - 0.01, 4.4) -- the tube: balls on top of each other
  w:wall(x0 - 0.9 + r + 0.01, 0, x0 - 0.9 + r + 0.01, 4.4) -- would roll off and fall
  local top
  for k = 0, n - 1 do
    top = w:particle{ x = x0 - 0.9, y = r + 2 * r * k, radius = r, color = "#4fc3f7" }
  end
  w:wall(x0 + 0.145, 0, x0 + 0.145, 0.2) -- a rack: the bottom row cannot roll apart
  w:wall(x0 + 1.655, 0, x0 + 1.655, 0.2)
  for row = 0, 5 do -- a pyramid of discs, 6 at the bottom
    for k = 0, 5 - row do
      w:particle{ x = x0 + 0.275 + (k + 0.5 * row) * 0.25, y = 0.125 + row * 0.2166, radius = 0.125, color = "#ffd54f" }
    end
  end
  towers[i] = { world = w, substeps = substeps, top = top, x0 = x0, start = top.y }
  worlds[i] = w
end
sb.camera.look(0, 2.4, 10) -- the floor clear of the plots

return {
  world = worlds[1], worlds = worlds, title = "Towers at 1, 2 and 6 sub-steps",
  keypressed = function(key)
    if key == "b" then
      for _, t in ipairs(towers) do
        t.world:particle{ x = t.x0 - 0.9, y = t.start + 0.5, radius = r, mass = tune.heavy_mass, color = "#ef5350" }
      end
    end
  end,
  update = function()
    for _, t in ipairs(towers) do
      sb.plot("sink " .. t.substeps, 1000 * (t.start - t.top.y), "top ball, mm")
    end
  end,
  draw = function(g)
    g.color("#e0e0e0")
    for _, t in ipairs(towers) do
      g.print(string.format("sub-steps %d: sank %.0f mm", t.substeps, 1000 * (t.start - t.top.y)), t.x0 - 1.7, 5.0)
    end
  end,
}
