-- Suspension bridge (the demo of Nissen's "Stable Rigid Springs with Sequential Impulses"):
-- cables hang from two towers, hangers carry a deck. Tune the deck's frequency live: hot reload
-- ramps it in without a jolt.
local sb = require "springbox"
local tune = sb.tune{ deck_hz = {10, 0.5, 60}, deck_zeta = {1, 0, 2} }

local w = sb.world{ method = "soft", substeps = 4, iterations = 8, bounds = {-8, -6, 8, 8} }
local span, n = 12, 24
local dx = span / n
local deck = { spring = { hertz = tune.deck_hz, damping_ratio = tune.deck_zeta } }

-- deck: pinned at both ends
local prev
for i = 0, n do
  local p = w:particle{ x = -span / 2 + i * dx, y = 0, mass = 2, radius = 0.12, fixed = (i == 0 or i == n) }
  if prev then w:spring(prev, p, deck.spring) end
  deck[i] = p
  prev = p
end

-- main cable: a parabola between tower tops, hangers down to every other deck particle
local sag, top = 2.5, 4
prev = nil
for i = 0, n, 2 do
  local x = -span / 2 + i * dx
  local u = x / (span / 2)
  local c = w:particle{ x = x, y = top - sag * (1 - u * u), mass = 0.5, radius = 0.06, fixed = (i == 0 or i == n) }
  if prev then w:spring(prev, c) end                       -- rigid
  if i > 0 and i < n then w:spring(c, deck[i], { hertz = 20, damping_ratio = 1 }) end
  prev = c
end

-- a load to drive across: drop it on the deck
w:particle{ x = -3, y = 1.5, mass = 20, radius = 0.35 }

return { world = w, title = "Suspension bridge", tune = tune }
