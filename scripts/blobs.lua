-- Soft bodies: rings of particles with a spring skin and spokes to a centre, tuned by
-- frequency and damping ratio. Heavy and light blobs wobble alike: hertz tuning does not
-- care about mass.
local sb = require "springbox"
local tune = sb.tune{ skin_hz = {8, 1, 40}, spoke_hz = {3, 0.5, 20}, zeta = {0.3, 0, 2} }

local w = sb.world{ method = "soft", substeps = 4, iterations = 6, bounds = {-6, 0, 6, 12}, friction = 0.4 }

local function blob(cx, cy, radius, mass, segments)
  local centre = w:particle{ x = cx, y = cy, mass = mass, radius = 0.05, collide = false }
  local skin = math.pi * radius / segments          -- neighbours touch: no gaps to slip through
  local ring = {}
  for k = 1, segments do
    local a = 2 * math.pi * k / segments
    ring[k] = w:particle{ x = cx + radius * math.cos(a), y = cy + radius * math.sin(a), mass = mass, radius = skin }
    w:spring(centre, ring[k], { hertz = tune.spoke_hz, damping_ratio = tune.zeta })
    if k > 1 then w:spring(ring[k - 1], ring[k], { hertz = tune.skin_hz, damping_ratio = tune.zeta }) end
  end
  w:spring(ring[segments], ring[1], { hertz = tune.skin_hz, damping_ratio = tune.zeta })
end

blob(-3, 2, 1.0, 0.2, 16)
blob(0, 4, 1.2, 5.0, 18)       -- 25 times heavier, same wobble
blob(3, 2.5, 0.8, 0.5, 14)
blob(-1.5, 7, 0.9, 1.0, 16)

return { world = w, title = "Soft-body blobs" }
