-- Sketched: a little course made with draw mode's tools, then tuned here. In the window, D is
-- draw mode and Tab its tool: draw (ground lines, particles, springs), rope (a stroke of beads;
-- shift pins its start), jelly box (corner to corner) and ball (centre to radius). The block
-- below was drawn that way; then the rope was given finer beads, the box a softer 2 Hz and the
-- ball 3 kg. Draw more while it runs: what is already there keeps moving.
local sb = require "springbox"
local w = sb.world{ friction = 0.6 }
sb.camera.look(0, 0.3, 9)

-- drawn in the window (draw mode: D); edit freely
w:polyline{ -6, -2.6, 0.2, -3.2, 6.2, -2 }
w:chain({ -4.6, 4, -0.8, 3.2 }, { spacing = 0.25, pin = "first" })
w:box(2.8, 2, 1.8, 1.2, { hertz = 2, damping_ratio = 0.5 })
w:particle{ x = -2.4, y = 0.4, radius = 0.4, mass = 3 }
-- end of drawn

return { world = w, title = "Sketched" }
