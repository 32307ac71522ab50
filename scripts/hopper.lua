-- Hopper: a jelly blob that is yours to drive. Space hops, left and right roll it; the scene
-- takes those keys, and the window still has its own: ctrl+space pauses, and while paused or
-- rewound (shift+[) space runs on. springbox.paused() tells the scene which it is.
local sb = require "springbox"

local tune = sb.tune{ hop = {4, 1, 8}, jelly_hz = {10, 1, 30} }
local w = sb.world{ friction = 0.8 }
w:polyline{ -6, 3, -6, 0, -2, 0, 0, 0.6, 2, 0, 6, 0, 6, 3 }

local n, r = 20, 0.4
local ring = {}
for i = 1, n do
  local a = 2 * math.pi * i / n
  ring[i] = w:particle{ x = -4 + r * math.cos(a), y = 0.6 + r * math.sin(a), mass = 0.05, radius = 0.05,
                        color = "#f2c94c" }
end
for i = 1, n do w:spring(ring[i], ring[i % n + 1], { hertz = 40, damping_ratio = 0.5 }) end
w:area(ring, { area = n / 2 * r * r * math.sin(2 * math.pi / n), hertz = tune.jelly_hz, damping_ratio = 0.2 })

local function on_ground()
  for _, p in ipairs(ring) do if p.y < 0.08 + p.radius then return true end end
  return false
end

return {
  world = w, title = "Hopper", tune = tune,
  update = function()
    local push = (sb.keyboard.isdown("right") and 1 or 0) - (sb.keyboard.isdown("left") and 1 or 0)
    for _, p in ipairs(ring) do p:apply_force(0.6 * push, 0) end
  end,
  keypressed = function(key)
    if key == "space" and not sb.paused() then
      if on_ground() then for _, p in ipairs(ring) do p.vy = p.vy + tune.hop end end
      return true -- space is the hop's while the run goes
    end
    return key == "left" or key == "right"
  end,
  draw = function(g)
    g.color(0.9, 0.9, 0.9)
    g.print_screen(sb.paused() and "paused: space runs on" or "space hops, left / right roll", 0, 0, "big")
  end,
}
