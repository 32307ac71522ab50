-- Drawn: a scene started by drawing. In the window, D turns on draw mode (space pauses first, so
-- nothing falls while you draw): a click adds a particle, a drag from one particle to another a
-- spring, a stroke a ground line; each lands in the block below as a line of Lua. Then tune it
-- here like any other line: this one's first bead was made fixed and its links given a hertz.
local sb = require "springbox"
local w = sb.world{ friction = 0.5 }

-- drawn in the window (draw mode: D); edit freely
w:polyline{ -3.3, 0.2, 0.1, -0.8, 3.5, -0.2 }
w:particle{ x = -0.5, y = 3, fixed = true }
w:particle{ x = 0.5, y = 3 }
w:particle{ x = 1.5, y = 3, radius = 0.15, mass = 3 }
w:spring(w:pick(-0.5, 3), w:pick(0.5, 3), { hertz = 4, damping_ratio = 0.1 })
w:spring(w:pick(0.5, 3), w:pick(1.5, 3), { hertz = 4, damping_ratio = 0.1 })
-- end of drawn

return { world = w, title = "Drawn" }
