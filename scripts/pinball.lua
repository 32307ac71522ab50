-- Pinball: a fast ball in a closed table with five bumpers, no friction, no gravity loss. Each
-- bumper it hits scores and flashes; space launches it again from the plunger. At 40 m/s and one
-- sub-step it still bounces where it should: try the sliders and the methods.
local sb = require "springbox"
local tune = sb.tune{ speed = {40, 5, 100}, substeps = {1, 1, 8}, bounce = {1, 0.5, 1} }

local w = sb.world{ substeps = math.floor(tune.substeps + 0.5), gravity = {0, -2},
                    restitution = tune.bounce, friction = 0 }
w:polyline({ -3, -4, 3, -4, 3, 3, 2, 4, -2, 4, -3, 3 }, { closed = true })

local bumpers, is_bumper, flash = {}, {}, {}
for _, at in ipairs{ {-1.5, 1.5}, {1.5, 1.5}, {0, 2.5}, {-0.8, -0.5}, {0.8, -0.5} } do
  local b = w:particle{ x = at[1], y = at[2], radius = 0.35, fixed = true, color = "#e07a5f" }
  bumpers[#bumpers + 1], is_bumper[b] = b, true
end

local ball = w:particle{ x = 2.6, y = -3.5, radius = 0.12, events = true, color = "#f2cc8f" }
local score = 0

local function launch()
  ball.x, ball.y = 2.6, -3.5
  ball.vx, ball.vy = -0.25 * tune.speed, tune.speed
end
launch()

return {
  world = w,
  title = "Pinball: bumpers at any speed",
  tune = tune,
  on_contact_begin = function(a, b)
    local other = a == ball and b or b == ball and a
    if is_bumper[other] then
      score = score + 1
      flash[other] = 10
    end
  end,
  update = function()
    for b, frames in pairs(flash) do flash[b] = frames > 0 and frames - 1 or nil end
  end,
  keypressed = function(key)
    if key == "space" then launch() return true end
  end,
  draw = function(g)
    for _, b in ipairs(bumpers) do
      if flash[b] then
        g.color("#ffffff")
        g.circle("line", b.x, b.y, 0.45)
      end
    end
    g.color(1, 1, 1)
    g.print(("score %d   speed %.1f m/s"):format(score, math.sqrt(ball.vx ^ 2 + ball.vy ^ 2)), -2.8, -4.5)
  end,
}
