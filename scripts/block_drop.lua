-- Block drop: a block of 6 x 6 balls with a gap between rows, let go above the floor, in soft,
-- verlet and xpbd side by side. The rows fall together, so no two balls of the block close on
-- each other until the floor stops the lowest row; then the rows above land on it within the
-- frame. Each ball's contacts carry that stop up the block as far as its gaps can close (docs/methods.md,
-- "Things falling together stay apart"). Raise the drop or the gap, lower the sub-steps, save:
-- the deepest overlap stays a fraction of a radius and the block settles without bouncing up.
local sb = require "springbox"
local tune = sb.tune{ height = {1.0, 0.1, 3.0}, gap = {0.01, 0.0, 0.1}, substeps = {6, 1, 8} }

local methods = { "soft", "verlet", "xpbd" }
local worlds, blocks = {}, {}
local r, n = 0.1, 6

for i, method in ipairs(methods) do
  local x0 = (i - 2) * 3.0
  local w = sb.world{ method = method, substeps = math.floor(tune.substeps) }
  w:wall(x0 - 1.4, 0, x0 + 1.4, 0)
  w:wall(x0 - 1.4, 4, x0 - 1.4, 0)
  w:wall(x0 + 1.4, 0, x0 + 1.4, 4)
  local pitch, balls = 2 * r + tune.gap, {}
  for row = 0, n - 1 do
    for k = 0, n - 1 do
      local x = x0 + (k - (n - 1) / 2) * pitch
      balls[#balls + 1] = w:particle{ x = x, y = tune.height + r + row * pitch, radius = r }
    end
  end
  worlds[i] = w
  blocks[i] = { method = method, x0 = x0, balls = balls, world = w, deepest = 0 }
end
sb.camera.look(0, 1.6, 10)

-- how far the two balls that overlap most are into each other, as a fraction of the radius
local function overlap(block)
  local deepest = 0
  for a = 1, #block.balls do
    local p = block.balls[a]
    for b = a + 1, #block.balls do
      local q = block.balls[b]
      local d = math.sqrt((p.x - q.x) ^ 2 + (p.y - q.y) ^ 2)
      deepest = math.max(deepest, 2 * r - d)
    end
  end
  return deepest / r
end

return {
  world = worlds[1], worlds = worlds, title = "Block drop",
  update = function()
    for _, block in ipairs(blocks) do
      local now = overlap(block)
      block.deepest = math.max(block.deepest, now)
      sb.plot(block.method, now * 100, "overlap now, % of a radius")
    end
  end,
  draw = function(g)
    g.color("#e0e0e0")
    for _, block in ipairs(blocks) do
      g.print(block.method, block.x0 - 1.3, 3.6)
      local kinetic = block.world:stats().kinetic
      g.print(string.format("deepest %.0f%%  %.1g J", block.deepest * 100, kinetic), block.x0 - 1.3, 3.4)
    end
  end,
}
