-- Rope bridge: balls roll off a cliff onto a rope bridge whose beads are 0.25 m apart, wider
-- than the balls. The links are solid (solid = true), so the balls roll across on them instead
-- of dropping between the beads; set solid_links to 0 and save to watch them fall through.
-- The cliffs are one polyline: a smooth chain of walls with no corner at its joints.
-- B drops another ball; the sliders tune the bridge's links and the balls' weight.
local sb = require "springbox"

local tune = sb.tune{
  link_hz = {40, 2, 60},       -- soft links sag and swing
  ball_kg = {1.0, 0.1, 4.0},   -- the beads weigh 0.2 kg each
  solid_links = {1, 0, 1},     -- 1: the links are solid; 0: only the beads are
}

local w = sb.world{ substeps = 6, iterations = 8, friction = 0.1 }

-- left cliff with a slope down to the bridge, the gorge, the right cliff
w:polyline{ -7, 2,  -6, 2,  -3.5, 0.6,  -3, 0.5,  -3, -4,  3, -4,  3, 0.5,  7, 0.5 }

local beads, prev = {}, nil
for i = 0, 24 do
  local x = -3 + i * 0.25
  local bead = w:particle{ x = x, y = 0.5, radius = 0.03, mass = 0.2, fixed = (i == 0 or i == 24) }
  if prev then
    w:spring(prev, bead, { hertz = tune.link_hz, damping_ratio = 1, solid = tune.solid_links >= 0.5 })
  end
  beads[#beads + 1], prev = bead, bead
end

local s = sb.state{ dropped = 0 }
-- balls start on the slope (one every 0.5 m, up to 3 at a time) and slide down to the bridge
local function drop_ball(slot)
  s.dropped = s.dropped + 1
  local x = -5.6 + 0.5 * ((slot or s.dropped) % 3)
  local y = 2 - (x + 6) * 1.4 / 2.5 + 0.11
  return w:particle{ x = x, y = y, radius = 0.09, mass = tune.ball_kg,
                     color = s.dropped % 2 == 0 and "#e07a5f" or "#f2cc8f" }
end
for i = 1, 3 do drop_ball(i) end

return {
  world = w,
  title = "Rope bridge",
  tune = tune,
  update = function(world)
    -- a new ball every three seconds, eight in all
    if world.time > 1 and world.time % 3 < world.dt and s.dropped < 8 then drop_ball() end
    sb.plot("bridge middle y", beads[13].y)
  end,
  keypressed = function(key)
    if key == "b" then drop_ball() end
  end,
}
