-- Ragdoll: rigid bones (springs with no tuning are rigid) and soft joints (angle constraints at
-- their build pose, 3 Hz) tumbling down a flight of stairs. Drag a hand or the head; J stiffens
-- or loosens the joints live (joint_hz is a slider too). The left knee's angle is plotted
-- unwrapped, so it does not jump at +-pi.
local sb = require "springbox"

local tune = sb.tune{ joint_hz = {3, 0.2, 20}, joint_damping = {0.5, 0, 2} }
local w = sb.world{ substeps = 6, iterations = 8, friction = 0.5 }
local stairs = { -6, 6 }
for i = 0, 7 do
  stairs[#stairs + 1] = -6 + 1.2 * i + 1.2; stairs[#stairs + 1] = 6 - 0.7 * i
  stairs[#stairs + 1] = -6 + 1.2 * i + 1.2; stairs[#stairs + 1] = 6 - 0.7 * (i + 1)
end
stairs[#stairs + 1] = 8; stairs[#stairs + 1] = 6 - 0.7 * 8
w:polyline(stairs)

local function part(x, y, r, color) return w:particle{ x = x, y = y, radius = r or 0.07, mass = 1, color = color } end
local skin, cloth = "#f2c9a0", "#5b8def"
local head = part(-5, 8.3, 0.18, skin)
local neck, chest, pelvis = part(-5, 8.0, 0.07, cloth), part(-5, 7.6, 0.1, cloth), part(-5, 7.0, 0.1, cloth)
local l_elbow, l_hand = part(-5.35, 7.4), part(-5.6, 7.1, 0.07, skin)
local r_elbow, r_hand = part(-4.65, 7.4), part(-4.4, 7.1, 0.07, skin)
local l_knee, l_foot = part(-5.15, 6.5), part(-5.2, 6.0)
local r_knee, r_foot = part(-4.85, 6.5), part(-4.8, 6.0)
local bones = { {head, neck}, {neck, chest}, {chest, pelvis}, {neck, l_elbow}, {l_elbow, l_hand},
                {neck, r_elbow}, {r_elbow, r_hand}, {pelvis, l_knee}, {l_knee, l_foot},
                {pelvis, r_knee}, {r_knee, r_foot} }
for _, b in ipairs(bones) do w:spring(b[1], b[2], { color = "#e0e6f0" }) end
for _, b in ipairs(bones) do b[2].vx = 3 end -- thrown down the stairs

local joint = { hertz = tune.joint_hz, damping_ratio = tune.joint_damping }
local joints = {
  w:angle(head, neck, chest, joint), w:angle(neck, chest, pelvis, joint),
  w:angle(neck, l_elbow, l_hand, joint), w:angle(neck, r_elbow, r_hand, joint),
  w:angle(pelvis, l_knee, l_foot, joint), w:angle(pelvis, r_knee, r_foot, joint),
  w:angle(chest, pelvis, l_knee, joint), w:angle(chest, pelvis, r_knee, joint),
}
local knee = joints[5]
local s = sb.state{ stiff = false }
sb.camera.follow(chest, 7)

return {
  world = w,
  title = "Ragdoll (J: stiff / loose joints)",
  tune = tune,
  keypressed = function(key)
    if key == "j" then
      s.stiff = not s.stiff
      for _, c in ipairs(joints) do c.hertz = s.stiff and 4 * tune.joint_hz or tune.joint_hz end
      return true
    end
  end,
  update = function()
    sb.plot("left knee rad", knee.unwrapped)
    sb.plot("head height m", head.y)
  end,
  draw = function(g)
    g.color(1, 1, 1)
    g.print_screen(s.stiff and "joints: stiff (J)" or "joints: loose (J)", 0, 0)
  end,
}
