-- Asked vs delivered: the same 4 Hz bouncer in three methods at one sub-step. Click a spring
-- to see what it asks and what it shows; drag a weight down and let go to give it a swing.
local sb = require "springbox"
local tune = sb.tune{ hertz = {4, 0.5, 12}, damping_ratio = {0.05, 0, 1} }

local function bouncer(w, x)
  local top = w:particle{ x = x, y = 2, fixed = true, radius = 0.05 }
  local weight = w:particle{ x = x, y = 1, mass = 2, radius = 0.15 }
  w:spring(top, weight, { hertz = tune.hertz, damping_ratio = tune.damping_ratio })
end

local w = sb.world{ method = "soft", substeps = 1, collisions = false }
bouncer(w, -1.5)
local v = sb.world{ method = "verlet", substeps = 1, collisions = false }
bouncer(v, 0)
local f = sb.world{ method = "force", substeps = 1, collisions = false }
bouncer(f, 1.5)

return { world = w, worlds = { w, v, f }, title = "asked vs delivered: soft, verlet, force at one sub-step" }
