-- Corners: solid springs against the tips of walls. A plank (one solid spring) lands across a
-- post and rests on its tip; a jelly with a solid skin lands on a ledge's end, the corner under
-- its skin, and another on a spike, off which it slides: neither is impaled, as the skin is a
-- chain of capsules that a wall's corner meets. Space drops them again; the sliders move the
-- jellies sideways (past the ledge's end, one tips off) and firm them up.
local sb = require "springbox"
local tune = sb.tune{ offset = {0, -0.3, 0.3}, jelly_hz = {15, 4, 30} }

local w = sb.world{ friction = 0.5 }
w:wall(-6, -1, 6, -1)                                  -- the floor
w:wall(-4, -1, -4, 0.5)                                -- a post
w:wall(-1.5, 0.5, 0.5, 0.5)                            -- a ledge
w:polyline({ 2.2, -1, 3.5, 0.5, 4.8, -1 })             -- a spike

local things = {}
local function remember(p) things[#things + 1] = { p = p, x = p.x, y = p.y } end

-- the plank: two beads and one solid spring, its middle over the post's tip
local left = w:particle{ x = -5, y = 2, radius = 0.06, mass = 1, color = "#f2cc8f" }
local right = w:particle{ x = -3, y = 2, radius = 0.06, mass = 1, color = "#f2cc8f" }
w:spring(left, right, { solid = true, color = "#f2cc8f" })
remember(left)
remember(right)

-- a 5 x 5 jelly of braced beads, its outer springs solid
local function jelly(cx, cy, color)
  local n, gap, beads = 5, 0.15, {}
  for i = 1, n do
    beads[i] = {}
    for j = 1, n do
      beads[i][j] = w:particle{ x = cx + (i - 3) * gap, y = cy + (j - 1) * gap, radius = 0.03, mass = 0.1,
                                color = color }
      remember(beads[i][j])
    end
  end
  local function join(a, b, solid) w:spring(a, b, { hertz = tune.jelly_hz, damping_ratio = 0.5, solid = solid }) end
  for i = 1, n do
    for j = 1, n do
      if i < n then join(beads[i][j], beads[i + 1][j], j == 1 or j == n) end
      if j < n then join(beads[i][j], beads[i][j + 1], i == 1 or i == n) end
      if i < n and j < n then join(beads[i][j], beads[i + 1][j + 1]) join(beads[i + 1][j], beads[i][j + 1]) end
    end
  end
end
jelly(0.3 + tune.offset, 0.6, "#6fcf97")
jelly(3.5 + tune.offset, 0.6, "#81b29a")

return {
  world = w,
  title = "Corners: solid springs on the tips of walls",
  tune = tune,
  keypressed = function(key)
    if key == "space" then
      for _, t in ipairs(things) do t.p.x, t.p.y, t.p.vx, t.p.vy = t.x, t.y, 0, 0 end
      return true
    end
  end,
}
