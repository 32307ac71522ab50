-- Settle: the same 800 balls poured into three boxes, solved by soft (Catto's soft contacts),
-- verlet (Boesch's Verlet article's two-pass collide) and xpbd, side by side. At the default 6 sub-steps every
-- pile comes to rest within seconds; the plot shows each box's kinetic energy falling away (log10
-- of joules) and the numbers above the boxes are the step time, the contacts touching and the
-- kinetic energy. Slide the sub-steps to 1 or 2 and pour again (O): soft's pile still rests;
-- verlet's and xpbd's ring in place by a fraction of a millimetre (verlet's 0.2 to 0.8 J at one
-- sub-step, xpbd's 0.03 to 0.17 J) and neither creeps: static friction keeps an anchor, and
-- verlet's second collide no longer moves resting balls.
local sb = require "springbox"
local tune = sb.tune{ substeps = {6, 1, 8}, count = {800, 100, 3000} }

local methods = { "soft", "verlet", "xpbd" }
local boxes = {}
local worlds = {} -- run side by side

local function pour(w, x0)
  local seed = 2024 -- a tiny LCG: the same pour in every box
  local function random(lo, hi)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return lo + (hi - lo) * seed / 2147483648
  end
  for i = 0, math.floor(tune.count) - 1 do
    local col, row = i % 18, i // 18
    w:particle{ x = x0 - 1.7 + col * 0.2 + random(-0.01, 0.01), y = 0.2 + row * 0.21,
                radius = random(0.05, 0.09) }
  end
end

for i, method in ipairs(methods) do
  local x0 = (i - 2) * 4.2
  local w = sb.world{ method = method, substeps = math.floor(tune.substeps), friction = 0.4 }
  w:polyline{ x0 - 1.9, 12, x0 - 1.9, 0, x0 + 1.9, 0, x0 + 1.9, 12 }
  pour(w, x0)
  boxes[i] = { world = w, method = method, x0 = x0 }
  worlds[i] = w
end
sb.camera.look(0, 2.7, 11) -- the floor clear of the plots

return {
  world = worlds[1], worlds = worlds, title = "Three piles settle",
  keypressed = function(key)
    if key == "o" then
      for _, b in ipairs(boxes) do pour(b.world, b.x0) end
    end
  end,
  update = function()
    for _, b in ipairs(boxes) do
      local ke = b.world:stats().kinetic
      sb.plot(b.method, math.log(ke + 1e-12, 10), "log10 kinetic energy, J")
    end
  end,
  draw = function(g)
    g.color("#e0e0e0")
    for _, b in ipairs(boxes) do
      local st = b.world:stats()
      g.print(b.method, b.x0 - 1.8, 6.6)
      g.print(string.format("%.2f ms  %d contacts", st.step_ms, st.contacts), b.x0 - 1.8, 6.2)
      g.print(string.format("%.4f J", st.kinetic), b.x0 - 1.8, 5.8)
    end
  end,
}
