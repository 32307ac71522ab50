-- Rope swing: a seat on a rope of five beads, the rope tuned as one structure so the seat bounces
-- at the hertz the slider sets (w:tune_structure picks each link's stiffness, and says what the
-- method delivers). Its links break past 300 N: pull the seat hard with the mouse and one goes.
-- F5 replays your pull from the start under the tuning of now; save a new bounce_hz and the
-- file's value takes over. A seat past about 5 kg on 0.2 kg beads is more than soft at 6
-- sub-steps delivers: the window says so, in the rope's terms, and how many sub-steps would.
local sb = require "springbox"
local tune = sb.tune{ bounce_hz = {3, 1, 8}, seat_kg = {4, 1, 20} }
local w = sb.world{}
w:wall(-3, -0.6, 3, -0.6)

local links, prev = {}, w:particle{ x = 0, y = 2, fixed = true, radius = 0.06 }
for i = 1, 6 do
  local seat = i == 6
  local p = w:particle{ x = 0, y = 2 - 0.35 * i, mass = seat and tune.seat_kg or 0.2,
                        radius = seat and 0.2 or 0.05, color = seat and "#e07a5f" or nil }
  links[i] = w:spring(prev, p, { hertz = 10, damping_ratio = 1, break_force = 300 })
  prev = p
end
local r = w:tune_structure(links, { hertz = tune.bounce_hz, damping_ratio = 0.05 })
local s = sb.state{ broke = 0 }

return {
  world = w,
  title = "Rope swing: a tuned rope whose links break past 300 N",
  tune = tune,
  on_spring_break = function() s.broke = s.broke + 1 end,
  draw = function(g)
    g.color(1, 1, 1)
    g.print_screen(("bounce asked %.1f Hz, delivered %.2f Hz"):format(tune.bounce_hz, r.delivered_hertz), 10, 60)
    g.print_screen(("links broken: %d"):format(s.broke), 10, 80)
  end,
}
