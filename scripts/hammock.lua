-- Hammock: a heavy ball on a light net. The net's beads weigh 0.1 kg and its links are rigid;
-- the ball weighs 100 kg (the slider goes to 300). Left, a net of beads alone; right, a strip
-- of cloth with diagonals. Both hang from their ends and take the ball: the links stay at their
-- length and the weight goes to the hooks, however heavy the ball. B drops another ball on
-- each; R starts again. The plot shows the links' worst stretch.
local sb = require "springbox"

local tune = sb.tune{
  ball_kg = {100, 1, 300},
  drop_m = {1.5, 0.2, 4},
}

local w = sb.world{ substeps = 6, iterations = 4 }

-- a net of 21 beads on links of 0.2 m, its hooks 3.6 m apart: it starts on the arc it hangs in
local function net(cx)
  local half = math.pi / 4
  local r = 2 / half
  local prev
  for i = 0, 20 do
    local a = -half + 2 * half * i / 20
    local bead = w:particle{ x = cx + r * math.sin(a), y = 2 - (math.cos(a) - math.cos(half)) * r,
                             radius = 0.05, mass = 0.1, fixed = (i == 0 or i == 20), color = "#81b29a" }
    if prev then w:spring(prev, bead, { solid = true }) end
    prev = bead
  end
end

-- a cloth strip 15 beads wide and 3 deep, with diagonals, hung by its top corners
local function cloth(cx)
  local ids = {}
  for y = 0, 2 do
    for x = 0, 14 do
      local u = (x - 7) / 7
      ids[y * 15 + x] = w:particle{ x = cx + 0.2 * (x - 7), y = 2 - 0.2 * y - 0.4 * (1 - u * u),
                                    radius = 0.05, mass = 0.1, color = "#f2cc8f",
                                    fixed = (y == 0 and (x == 0 or x == 14)) }
    end
  end
  for y = 0, 2 do
    for x = 0, 14 do
      local i = y * 15 + x
      if x < 14 then w:spring(ids[i], ids[i + 1], { solid = true }) end
      if y < 2 then w:spring(ids[i], ids[i + 15], { solid = true }) end
      if x < 14 and y < 2 then w:spring(ids[i], ids[i + 16], { solid = true }) end
    end
  end
end

net(-2.5)
cloth(2.5)

local function drop(x)
  return w:particle{ x = x, y = 2 + tune.drop_m, radius = 0.2, mass = tune.ball_kg, color = "#e07a5f" }
end
drop(-2.4)
drop(2.6)

return {
  world = w,
  title = "Hammock",
  tune = tune,
  update = function(world)
    sb.plot("links' worst stretch %", 100 * world:stats().max_stretch)
  end,
  keypressed = function(key)
    if key == "b" then drop(-2.4); drop(2.6) end
  end,
}
