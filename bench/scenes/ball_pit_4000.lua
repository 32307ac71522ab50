-- 4000 balls of 5 to 10 cm poured into bounds 10 m wide: what bench/web_vs_native.sh times.
local sb = require "springbox"
local w = sb.world{ bounds = {0, 0, 10, 60} }
local seed = 7
for i = 0, 3999 do
  seed = (seed * 1103515245 + 12345) % 2147483648
  local r = 0.05 + 0.05 * seed / 2147483648
  w:particle{ x = 0.2 + (i % 49) * 0.2 + 0.001 * (i % 7), y = 0.15 + (i // 49) * 0.21, radius = r, mass = 1 }
end
return { world = w, title = "ball pit 4000" }
