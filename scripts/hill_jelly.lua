-- Hill jelly: a pressure soft body rolled over a line of hills with the arrow keys (the scene
-- claims them), the camera following it. The hills are one w:polyline, so the jelly's beads meet
-- no corner at a crest; the plots show its speed and how much of its volume it keeps.
local sb = require "springbox"

local tune = sb.tune{ jelly_hz = {6, 0.5, 30}, push = {6, 0, 20} }
local w = sb.world{ substeps = 6, iterations = 4, friction = 0.8 }
local hills = {}
for i = 0, 60 do
  local x = -4 + 0.5 * i
  hills[#hills + 1] = x
  hills[#hills + 1] = 0.6 * math.sin(x * 0.7) + 0.25 * math.sin(x * 2.1)
end
w:polyline(hills)
w:wall(-4, -2, -4, 6) -- the ends: the hills stop here
w:wall(26, -2, 26, 6)

local n, r, ring = 24, 0.5, {}
for i = 1, n do
  local a = 2 * math.pi * i / n
  ring[i] = w:particle{ x = -3 + r * math.cos(a), y = 1.8 + r * math.sin(a), mass = 0.05, radius = 0.05,
                        color = "#f2994a" }
end
for i = 1, n do w:spring(ring[i], ring[i % n + 1], { hertz = 25, damping_ratio = 0.5 }) end
local body = w:area(ring, { hertz = tune.jelly_hz, damping_ratio = 0.2 })
sb.camera.follow(ring[1], 5)

local function centre()
  local x, y = 0, 0
  for _, p in ipairs(ring) do x, y = x + p.x / n, y + p.y / n end
  return x, y
end

return {
  world = w,
  title = "Hill jelly (left / right roll it)",
  tune = tune,
  keypressed = function(key) return key == "left" or key == "right" end,
  update = function()
    local dir = (sb.keyboard.isdown("right") and 1 or 0) - (sb.keyboard.isdown("left") and 1 or 0)
    local cx, cy = centre()
    local vx, spin, r2 = 0, 0, 0 -- the spin: sum of r x v over sum of r^2
    for _, p in ipairs(ring) do
      local dx, dy = p.x - cx, p.y - cy
      vx = vx + p.vx / n
      spin, r2 = spin + dx * p.vy - dy * p.vx, r2 + dx * dx + dy * dy
    end
    spin = spin / r2
    -- a torque that pushes each bead round the centre, fading out at 8 rad/s (a motor, not a rocket)
    local drive = dir * tune.push * math.max(0, 1 - math.abs(spin) / 8) * 0.1
    for _, p in ipairs(ring) do p:apply_force(drive * (p.y - cy), -drive * (p.x - cx)) end
    sb.plot("speed m/s", vx)
    sb.plot("volume kept %", 100 * body.value / body.area)
  end,
  draw = function(g)
    local pts = {}
    for i, p in ipairs(ring) do pts[2 * i - 1], pts[2 * i] = p.x, p.y end
    g.color(0.95, 0.6, 0.29, 0.35)
    g.polygon("line", table.unpack(pts))
    local _, cy = centre()
    g.color(1, 1, 1)
    g.print_screen(string.format("height %.2f m", cy), 0, 0)
  end,
}
