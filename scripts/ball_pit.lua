-- Ball pit (Boesch, "Verlet collision with impulse preservation"): Verlet circles with the
-- two-pass collide. The first pass cancels the acceleration of balls at rest, the second keeps
-- the impulse of real collisions.
local sb = require "springbox"
local tune = sb.tune{ count = {300, 10, 4000}, restitution = {0.6, 0, 1} }

local w = sb.world{ method = "verlet", substeps = 4, iterations = 4, bounds = {-5, 0, 5, 20},
                    restitution = tune.restitution, friction = 0.2 }
local seed = 12345
local function random(lo, hi)                  -- a tiny LCG: the same pit on every run
  seed = (seed * 1103515245 + 12345) % 2147483648
  return lo + (hi - lo) * seed / 2147483648
end
for i = 0, math.floor(tune.count) - 1 do
  local col, row = i % 40, i // 40
  local r = random(0.06, 0.10)                 -- 0.24 m apart, give or take 0.04: never overlapping
  w:particle{ x = -4.7 + col * 0.24 + random(-0.02, 0.02), y = 1 + row * 0.26, radius = r, mass = r * r * 100 }
end

return { world = w, title = "Ball pit (Verlet)" }
