-- Same drop, new tuning: a ball lands on a springboard. Move the board_hz or board_damping
-- slider (or edit them here and save), then press A: the world goes back to the moment before
-- the drop with w:restore(snapshot, {keep_tuning = true}) and the same drop plays under the
-- tuning of now. The last run's tip path stays behind as a faint line to compare against.
local sb = require "springbox"
local tune = sb.tune{ board_hz = {15, 5, 35}, board_damping = {0.3, 0, 1} }

local w = sb.world{ substeps = 6, iterations = 4 }
w:wall(-1, 0, 4, 0)
-- the board: two rows of beads, braced, clamped at its left end
local top, bottom = {}, {}
for i = 0, 6 do
  top[i] = w:particle{ x = 0.4 * i, y = 1.3, fixed = i < 2, radius = 0.04, mass = 0.3 }
  bottom[i] = w:particle{ x = 0.4 * i, y = 1.0, fixed = i < 2, radius = 0.04, mass = 0.3 }
end
local board = { hertz = tune.board_hz, damping_ratio = tune.board_damping }
for i = 0, 6 do
  w:spring(top[i], bottom[i], board)
  if i > 0 then
    w:spring(top[i - 1], top[i], board)
    w:spring(bottom[i - 1], bottom[i], board)
    w:spring(top[i - 1], bottom[i], board)
    w:spring(bottom[i - 1], top[i], board)
  end
end
w:particle{ x = 2.3, y = 3.5, radius = 0.2, mass = 1, color = "#e67e22" }

local moment = w:snapshot() -- before the drop
local s = sb.state{ run = 1, path = {}, last = {} }

return {
  world = w,
  title = "Same drop, new tuning (A: again)",
  tune = tune,
  keypressed = function(key)
    if key == "a" then
      w:restore(moment, { keep_tuning = true })
      s.last, s.path, s.run = s.path, {}, s.run + 1
      return true
    end
  end,
  update = function()
    local tip = top[6]
    if #s.path < 600 then s.path[#s.path + 1] = { tip.x, tip.y } end
    sb.plot("tip height m", tip.y)
  end,
  draw = function(g)
    local function trail(path)
      for i = 2, #path do g.line(path[i - 1][1], path[i - 1][2], path[i][1], path[i][2]) end
    end
    g.color(1, 1, 1, 0.35)
    trail(s.last)
    g.color(0.4, 0.8, 1)
    trail(s.path)
    g.print_screen(string.format("run %d at %.1f Hz, damping ratio %.2f: A plays the same drop again",
      s.run, tune.board_hz, tune.board_damping), 0, 0)
  end,
}
