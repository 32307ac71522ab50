-- Newton's cradle: five steel balls touching in a row, each on a rigid string. Pull one or
-- more balls aside (drag them, or set `pulled`) and let go: the blow runs down the row one
-- collision at a time, and as many balls leave the other end as came in, at the same speed.
-- Lower `bounce` (the balls' restitution) and save to watch the row swing on together instead.
local sb = require "springbox"

local tune = sb.tune{
  pulled = {1, 1, 4},          -- how many balls start pulled aside
  bounce = {1.0, 0.0, 1.0},    -- restitution: 1 passes the whole blow, 0 moves them on as one
  angle  = {40, 5, 80},        -- how far they are pulled, degrees
}

local w = sb.world{ friction = 0 }
local r, length, n = 0.2, 2.0, 5
local pulled, a = math.floor(tune.pulled + 0.5), math.rad(tune.angle)

-- the frame
w:polyline{ -3.2, 2.5,  -3.2, 3,  3.2, 3,  3.2, 2.5 }

for i = 1, n do
  local x = (i - (n + 1) / 2) * 2 * r
  local bx, by = x, 3 - length
  if i <= pulled then -- swung out to the left about the line of the hooks
    bx, by = x - length * math.sin(a), 3 - length * math.cos(a)
  end
  local ball = w:particle{ x = bx, y = by, radius = r, mass = 1, restitution = tune.bounce,
                           color = i <= pulled and "#e07a5f" or "#c0c8d0" }
  local hook = w:particle{ x = x, y = 3, fixed = true, radius = 0.03, collide = false }
  w:spring(hook, ball) -- a rigid string: no tuning given
end

return { world = w, title = "Newton's cradle" }
