-- Bucket over a ledge: a chain of light beads tied to a post on a table runs over the table's
-- edge and holds a heavy bucket. The slider sets the bucket's mass, up to 400 times a bead's:
-- the chain stays on the table and over the corner, its links their length. Drag the bucket
-- and let go: it swings from the corner and comes back to hang where it was.
local sb = require "springbox"
local tune = sb.tune{ bucket_kg = {10, 1, 40} }
local w = sb.world{}
w:polyline{ -3, 0, 0, 0, 0, -2.5, 2, -2.5 }

local prev = w:particle{ x = -2, y = 0.05, fixed = true, radius = 0.06, color = "#f2cc8f" }
local links = {}
local function bead(x, y, mass, radius, color)
  local p = w:particle{ x = x, y = y, mass = mass, radius = radius, color = color }
  links[#links + 1] = w:spring(prev, p, {}) -- rigid
  prev = p
  return p
end
for i = 1, 20 do bead(-2 + 0.1 * i, 0.05, 0.1, 0.05) end
bead(0.036, 0.036, 0.1, 0.05)
for i = 1, 9 do bead(0.15, 0.065 - 0.1 * i, 0.1, 0.05) end
local bucket = bead(0.15, -0.985, tune.bucket_kg, 0.12, "#e07a5f")

return {
  world = w,
  title = "Bucket over a ledge: light beads hold a heavy bucket over a corner",
  tune = tune,
  draw = function(g)
    local worst = 0
    for _, s in ipairs(links) do worst = math.max(worst, math.abs(s.stretch)) end
    g.color(1, 1, 1)
    g.print_screen(("bucket %.0f kg on 0.1 kg beads, at (%.3f, %.3f); longest link %.2f%% over"):format(
      tune.bucket_kg, bucket.x, bucket.y, 100 * worst), 10, 60)
  end,
}
