-- Bending: five blades of grass, each eight rigid links with an angle constraint at every joint.
-- Only the bending hertz differs, 2 to 40 Hz from left to right: the soft ones droop and sway,
-- the stiff ones stand. Drag a tip and let go.
local sb = require "springbox"

local w = sb.world{ substeps = 6, iterations = 6 }
w:wall(-3, 0, 3, 0)
local stiffness = { 2, 5, 10, 20, 40 }
for b, hz in ipairs(stiffness) do
  local x = -2.4 + (b - 1) * 1.2
  local blade = { w:particle{ x = x - 0.15, y = 0, fixed = true, radius = 0.03 } }
  for i = 1, 9 do -- leaning 3 degrees, so that gravity has something to bend
    local lean = math.rad(3)
    blade[#blade + 1] = w:particle{ x = x + (i - 1) * 0.25 * math.sin(lean), y = (i - 1) * 0.25 * math.cos(lean),
                                    mass = 0.05, radius = 0.03, fixed = i == 1 }
    if i > 1 then w:spring(blade[#blade - 1], blade[#blade]) end
  end
  for i = 2, #blade - 1 do -- straight at rest: pi at every joint, the base bent as the blade stands
    local rest = i == 2 and -math.pi / 2 or math.pi
    w:angle(blade[i - 1], blade[i], blade[i + 1], { angle = rest, hertz = hz, damping_ratio = 0.2 })
  end
end

return {
  world = w,
  title = "Bending",
  draw = function(g)
    g.color(0.8, 0.8, 0.8)
    for b, hz in ipairs(stiffness) do g.print(("%g Hz"):format(hz), -2.6 + (b - 1) * 1.2, -0.1) end
  end,
}
