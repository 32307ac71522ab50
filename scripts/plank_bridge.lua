-- Plank bridge: planks hang from ropes that break when stretched 25%; drop a heavy ball (B)
-- and watch which ropes give. Hits are marked where they happen, with their speed.
local sb = require "springbox"
local tune = sb.tune{ ball_kg = {20, 1, 200}, rope_hz = {10, 0.5, 20}, rope_give = {0.25, 0.05, 1} }
local state = sb.state{ broken = 0 }

local w = sb.world{ method = "soft", substeps = 6, iterations = 8 }
w:wall(-6, 0, -3, 0)
w:wall(3, 0, 6, 0)

local left = w:particle{ x = -3, y = 0, fixed = true, radius = 0.05 }
local prev, middle = left, nil
for i = 1, 9 do
  local p = w:particle{ x = -3 + 0.6 * i, y = 0, mass = 2, radius = 0.08, events = true }
  if i == 5 then middle = p end
  w:rope(prev, p, { hertz = tune.rope_hz, damping_ratio = 0.3, break_stretch = tune.rope_give, solid = true })
  prev = p
end
w:rope(prev, w:particle{ x = 3, y = 0, fixed = true, radius = 0.05 },
       { hertz = tune.rope_hz, damping_ratio = 0.3, break_stretch = tune.rope_give, solid = true })

local hits = {}
local function drop()
  local ball = w:particle{ x = math.random() - 0.5, y = 4, radius = 0.25, mass = tune.ball_kg, events = true }
  return ball
end
local ball = drop()

return { world = w, title = "Plank bridge: B drops a ball, ropes break past 25%",
  update = function()
    sb.plot("ball height", ball.y, "heights")
    sb.plot("middle plank", middle.y, "heights")
  end,
  keypressed = function(key) if key == "b" then ball = drop(); return true end end,
  on_constraint_break = function(_) state.broken = state.broken + 1 end,
  on_contact_begin = function(_, _, info)
    if info.speed > 1 then hits[#hits + 1] = { x = info.x, y = info.y, v = info.speed } end
    if #hits > 6 then table.remove(hits, 1) end
  end,
  draw = function(g)
    g.color(1, 0.8, 0.3)
    for _, h in ipairs(hits) do
      g.circle("line", h.x, h.y, 0.15)
      g.print(string.format("%.1f m/s", h.v), h.x + 0.2, h.y + 0.3)
    end
    g.color(0.6, 0.8, 1)
    g.print_screen(string.format("ropes broken: %d", state.broken), 0, 0, "big")
  end }
