-- Two methods side by side on the same structure, as in Nissen's red-versus-green demo:
-- a naive impulse spring bridge on the left, Catto's soft constraints on the right.
local sb = require "springbox"
local tune = sb.tune{ hertz = {0, 0, 60} }

local function girder(method, x0)
  local w = sb.world{ method = method, substeps = 2, iterations = 8, collisions = false }
  local top, bottom = {}, {}
  local link = { hertz = tune.hertz, damping_ratio = 1 }
  for i = 0, 12 do
    local x = x0 + i * 0.5
    bottom[i] = w:particle{ x = x, y = 0, mass = 1, radius = 0.06, fixed = (i == 0 or i == 12) }
    top[i] = w:particle{ x = x, y = 0.5, mass = 1, radius = 0.06 }
    w:spring(bottom[i], top[i], link)
    if i > 0 then
      w:spring(bottom[i - 1], bottom[i], link)
      w:spring(top[i - 1], top[i], link)
      w:spring(bottom[i - 1], top[i], link)
    end
  end
  local load = w:particle{ x = x0 + 3, y = -1.5, mass = 40, radius = 0.3 }
  w:spring(bottom[6], load, link)
  return w
end

local naive = girder("impulse", -7)
local soft = girder("soft", 1)
return { world = naive, worlds = { naive, soft }, title = "impulse (left) vs soft (right)" }
