-- Pyramids: the same pyramid of 21 crates (balls that cannot turn: rolls = false) stacked on a
-- floor in soft, verlet and xpbd, side by side. Friction is all that holds the bottom row
-- together. Three balls stand from friction 0.137 (tan(30 deg - atan mu) = 3 mu); six rows need
-- more. Lower the friction slider below where it stands and save: the pyramid spreads in all
-- three. At 0.3 all three hold it still (0.6, 0.1 and 0.1 mm): the position methods' static
-- friction keeps an anchor, and verlet's second collide pass no longer moves resting crates
-- after their friction (it slid this pyramid apart in seven seconds; docs/methods.md, "Static friction").
local sb = require "springbox"
local tune = sb.tune{ friction = {0.3, 0.0, 1.0}, substeps = {6, 1, 8} }

local methods = { "soft", "verlet", "xpbd" }
local worlds, piles = {}, {}
local r, rows = 0.1, 6

for i, method in ipairs(methods) do
  local x0 = (i - 2) * 3.0
  local w = sb.world{ method = method, substeps = math.floor(tune.substeps), friction = tune.friction }
  w:wall(x0 - 1.4, 0, x0 + 1.4, 0)
  local balls = {}
  for row = 0, rows - 1 do
    for k = 0, rows - 1 - row do
      local x = x0 + (k - (rows - 1 - row) / 2) * 2 * r
      local y = r + row * r * math.sqrt(3)
      balls[#balls + 1] = { p = w:particle{ x = x, y = y, radius = r, rolls = false }, x = x, y = y }
    end
  end
  worlds[i] = w
  piles[i] = { method = method, x0 = x0, balls = balls, world = w }
end
sb.camera.look(0, 0.9, 10)

-- how far the farthest crate has moved from where it was stacked
local function spread(pile)
  local far = 0
  for _, b in ipairs(pile.balls) do
    local x, y = b.p.x, b.p.y
    far = math.max(far, math.sqrt((x - b.x) ^ 2 + (y - b.y) ^ 2))
  end
  return far
end

return {
  world = worlds[1], worlds = worlds, title = "Pyramids of crates",
  update = function()
    for _, pile in ipairs(piles) do
      sb.plot(pile.method, spread(pile) * 1000, "farthest crate moved, mm")
    end
  end,
  draw = function(g)
    g.color("#e0e0e0")
    for _, pile in ipairs(piles) do
      g.print(pile.method, pile.x0 - 1.3, 2.0)
      local moved, kinetic = spread(pile) * 1000, pile.world:stats().kinetic
      g.print(string.format("moved %.1f mm  %.2g J", moved, kinetic), pile.x0 - 1.3, 1.8)
    end
  end,
}
