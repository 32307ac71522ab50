-- The springbox Lua API contract, through the stock interpreter and springbox.so.
-- Run: LUA_CPATH="build/?.so" lua5.4 tests/lua/api_test.lua
local sb = require "springbox"

local passed, failed = 0, 0
local function test(name, fn)
  local ok, err = pcall(fn)
  if ok then passed = passed + 1 else failed = failed + 1; print("FAIL " .. name .. ": " .. tostring(err)) end
end

-- The call must fail with a message containing every given fragment.
local function fails_with(fn, ...)
  local ok, err = pcall(fn)
  assert(not ok, "expected an error")
  for _, fragment in ipairs{...} do
    assert(tostring(err):find(fragment, 1, true), ("error %q lacks %q"):format(tostring(err), fragment))
  end
end

local function near(a, b, tol) assert(math.abs(a - b) <= tol, ("%.17g vs %.17g"):format(a, b)) end

test("the contract of the issue", function()
  local w = sb.world{ gravity = {0, -9.81}, dt = 1/60, substeps = 1, iterations = 8, method = "soft" }
  local a = w:particle{ x = 0, y = 5, fixed = true }
  local b = w:particle{ x = 1, y = 5, mass = 2, radius = 0.1, vx = 0, vy = 0 }
  local s = w:spring(a, b, { hertz = 5, damping_ratio = 0.7 })
  assert(s.rest_length == 1 and s.hertz == 5 and s.damping_ratio == 0.7)
  assert(w:step() == true)
  assert(b.y < 5 and b.vy < 0, "gravity pulled b down")
  assert(b.mass == 2 and b.fixed == false and a.fixed == true)
  near(s.length, math.sqrt((b.x - a.x)^2 + (b.y - a.y)^2), 1e-12)
  w.method = "sequential"; w.iterations = 4; w.warmstart = 1; w.correction = 0.8; w.gravity = {0, -5}
  assert(w.method == "sequential" and w.iterations == 4 and w.correction == 0.8 and w.gravity[2] == -5)
  w:wall(-1, 0, 1, 0); w.bounds = {-10, -10, 10, 10}; w.collisions = true
  assert(w.bounds[3] == 10 and w.collisions == true)
  assert(w.tethers == true, "tethers default on"); w.tethers = false; assert(w.tethers == false)
  assert(sb.world{ tethers = false }.tethers == false)
  w.restitution = 0.5; w.friction = 0.3
  local seen = {}
  for p in w:particles() do seen[#seen + 1] = p end
  assert(#seen == 2 and seen[1] == a and seen[2] == b, "iteration yields the same userdata")
  local springs = 0
  for sp in w:springs() do springs = springs + 1; assert(sp == s and sp.a == a and sp.b == b) end
  assert(springs == 1)
  local walls = 0
  for x1, _, _, y2 in w:walls() do walls = walls + 1; assert(x1 == -1 and y2 == 0) end
  assert(walls == 1)
  local st = w:stats()
  for _, k in ipairs{"kinetic", "potential", "energy", "max_stretch", "contacts", "step_ms", "time", "steps"} do
    assert(type(st[k]) == "number", k)
  end
  w:remove(b)
  fails_with(function() return b.x end, "particle was removed")
  fails_with(function() return s.length end, "spring was removed")
end)

test("tuning reads in every form", function()
  local w = sb.world{ dt = 1/60, substeps = 4, gravity = {0, 0} }
  local a = w:particle{ x = 0, y = 0, fixed = true }
  local b = w:particle{ x = 1, y = 0, mass = 3 }
  local s = w:spring(a, b, { hertz = 2, damping_ratio = 0.5 })
  local h, omega = 1/240, 2 * math.pi * 2
  near(s.k, 3 * omega^2, 1e-9)                     -- k = m w^2
  near(s.c, 2 * 3 * 0.5 * omega, 1e-12)            -- c = 2 m zeta w
  near(s.stiffness, (omega * h)^2, 1e-15)          -- Cs = (w h)^2
  local cd = s.damping                             -- Cd = 2 zeta w h, as it reads now
  near(cd, 2 * 0.5 * omega * h, 1e-15)
  s.stiffness = 0.25                               -- switches to Nissen's coefficients; Cd kept
  assert(s.tuning == "coefficients" and s.stiffness == 0.25 and s.damping == cd)
  near(s.k, 0.25 * 3 / h^2, 1e-6)
  local c = s.c
  s.k = 100                                        -- switches to k and c; c kept
  assert(s.tuning == "raw" and s.k == 100)
  near(s.c, c, 1e-9)
  s.hertz = 0
  assert(s.rigid and s.tuning == "hertz")
end)

test("bad arguments name the argument and the value", function()
  local w = sb.world{}
  local a = w:particle{ x = 0, y = 0 }
  fails_with(function() w:particle{ x = 0/0 } end, "'x'", "nan")
  fails_with(function() w:particle{ mass = -1 } end, "'mass'", "-1")
  fails_with(function() w:particle{ mass = "heavy" } end, "'mass'", "'heavy'")
  fails_with(function() w:particle{ maas = 1 } end, "'maas'")
  fails_with(function() w:particle{ radius = -0.5 } end, "'radius'", "-0.5")
  fails_with(function() w:particle(5) end, "table expected")
  fails_with(function() w:spring(a, a) end, "two different particles")
  fails_with(function() w:spring(a, 3) end, "springbox.particle expected")
  local other = sb.world{}:particle{}
  fails_with(function() w:spring(a, other) end, "another world")
  fails_with(function() w:spring(a, w:particle{ x = 1 }, { stiffness = 1.5 }) end, "'stiffness'", "1.5")
  fails_with(function() w:spring(a, w:particle{ x = 2 }, { hertz = -3 }) end, "'hertz'", "-3")
  fails_with(function() w:spring(a, w:particle{ x = 3 }, { hertz = 5, k = 3 }) end, "one tuning")
  fails_with(function() sb.world{ method = "implicit" } end, "'method'", "'implicit'")
  fails_with(function() sb.world{ substeps = 0 } end, "'substeps'", "0")
  fails_with(function() sb.world{ dt = 1/0 } end, "'dt'", "inf")
  fails_with(function() sb.world{ gravity = 9.81 } end, "'gravity'", "9.81")
  fails_with(function() sb.world{ bounds = {1, 1, 0, 0} } end, "'bounds'")
  fails_with(function() w.method = "bogus" end, "world.method", "'bogus'")
  fails_with(function() w.iterations = 2.5 end, "world.iterations", "2.5")
  fails_with(function() w.tethers = "yes" end, "world.tethers", "'yes'")
  fails_with(function() w.colisions = true end, "'colisions'")
  fails_with(function() a.mass = 0 end, "particle.mass", "0")
  fails_with(function() a.vx = 0/0 end, "particle.vx", "nan")
  fails_with(function() a.torque = 1 end, "'torque'")
  fails_with(function() return a.torque end, "'torque'")
  fails_with(function() a.rolls = "yes" end, "particle.rolls", "'yes'", "\"auto\"")
  fails_with(function() a.inertia = 0 end, "particle.inertia", "0", "0.5 a disc")
  fails_with(function() w:particle{ rolling_resistance = -1 } end, "'rolling_resistance'", "-1")
  fails_with(function() w:particle{ spin = 1/0 } end, "'spin'", "inf")
  fails_with(function() sb.world{ rolling_resistance = -0.1 } end, "'rolling_resistance'", "-0.1")
  fails_with(function() w:step(-1) end, "frames", "-1")
  fails_with(function() w:drag(a, 0, 0, -5) end, "hertz", "-5")
  fails_with(function() w:remove("a") end, "particle, spring or constraint", "'a'")
  fails_with(function() sb.tune{ hz = {100, 1, 60} } end, "'hz'", "min <= value <= max")
  -- nothing was added by the failed calls
  local n = 0
  for _ in w:particles() do n = n + 1 end
  assert(n == 4, n)
end)

test("closed worlds and stale handles say so", function()
  local w = sb.world{}
  local p = w:particle{}
  local q = w:particle{ x = 1 }
  local s = w:spring(p, q)
  w:remove(p)
  local p2 = w:particle{ x = 7 }                   -- reuses p's slot
  fails_with(function() return p.x end, "particle was removed")
  fails_with(function() return s.hertz end, "spring was removed")
  assert(p2.x == 7 and p2 ~= p)
  w:close()
  fails_with(function() return q.x end, "closed world")
  fails_with(function() return w.method end, "closed world")
  fails_with(function() w:step() end, "closed world")
  assert(tostring(w):find("closed"))
  assert(getmetatable(w) == "springbox.world", "metatables are protected")
end)

test("a world may be garbage while its particles live", function()
  local p
  do
    local w = sb.world{}
    p = w:particle{ x = 3 }
  end
  collectgarbage(); collectgarbage()
  assert(p.x == 3)                                 -- the particle keeps its world alive
end)

test("same scene, same bits", function()
  local function run()
    local w = sb.world{ method = "xpbd", bounds = {-3, 0, 3, 10} }
    local prev = w:particle{ x = 0, y = 8, fixed = true }
    for i = 1, 10 do
      local p = w:particle{ x = i * 0.2, y = 8 }
      w:spring(prev, p, { hertz = 12, damping_ratio = 0.2 })
      prev = p
    end
    for i = 1, 20 do w:particle{ x = -2 + i * 0.2, y = 2 + (i % 3) * 0.3 } end
    w:step(240)
    return w:hash()
  end
  assert(run() == run())
end)

test("a spring the method cannot hold is clamped, named and stays finite", function()
  local w = sb.world{ method = "force", substeps = 1, gravity = {0, 0} }
  local a = w:particle{ x = 0, y = 0, fixed = true }
  local b = w:particle{ x = 1.5, y = 0 }
  local s = w:spring(a, b, { k = 1e12, rest_length = 1 })
  local peak = 0
  for _ = 1, 600 do
    assert(w:step())
    peak = math.max(peak, math.abs(b.x - 1))
  end
  local st = w:stats()
  assert(st.clamped_springs == 1 and st.clamped_spring == s)
  near(st.delivered_hertz, 15, 0.01)                 -- four sub-steps per period at 60 Hz
  assert(st.asked_hertz > 1e4)
  assert(not st.halted and peak <= 0.5 + 1e-9, "bounded: " .. peak)
end)

test("spring:retune blends a new tuning in and says what is wrong", function()
  local w = sb.world{ gravity = {0, -9.81}, collisions = false }
  local a = w:particle{ x = 0, y = 0, fixed = true }
  local b = w:particle{ x = 0, y = -1, mass = 2 }
  local s = w:spring(a, b, { hertz = 2, damping_ratio = 1 })
  w:step(600)
  local sagging = s.length
  s:retune({ hertz = 20, rest_length = 1 }, 0.5)
  near(s.length, sagging, 1e-12)                     -- nothing jumps at the switch
  w:step(600)
  near(s.hertz, 20, 0); near(s.damping_ratio, 1, 0); near(s.rest_length, 1, 0)
  near(s.length - 1, 2 * 9.81 / (2 * (2 * math.pi * 20)^2), 1e-3) -- sags m g / k of the new spring
  local ok, err = pcall(s.retune, s, { hertz = -1 })
  assert(not ok and err:find("hertz"), err)
  ok, err = pcall(s.retune, s, { hertz = 5 }, -2)
  assert(not ok and err:find("seconds must be in %[0, 1e6%], got %-2"), err)
  ok, err = pcall(s.retune, s, { herz = 5 })
  assert(not ok and err:find("herz"), err)
end)

test("handles of different kinds differ, and bad values are named, never ignored", function()
  local w = sb.world{ gravity = {0, 0} }
  local p, q = w:particle{ x = 0, y = 0 }, w:particle{ x = 1, y = 0 }
  local s = w:spring(p, q, { k = 100, c = 1 })
  assert(p ~= s and s ~= p, "a particle and a spring in the same slot are not equal")
  local function fails(pattern, f, ...)
    local ok, err = pcall(f, ...)
    assert(not ok and tostring(err):find(pattern), tostring(err))
  end
  fails("hertz must be in %[1e%-6, 1e6%], got 2000000", w.drag, w, p, 0, 0, 2e6)
  fails("hertz must be in", w.drag, w, p, 0, 0, 1e-7)
  fails("damping_ratio must be in %[0, 1e6%], got 10000000", w.drag, w, p, 0, 0, 5, 1e7)
  fails("within 1e12 m", w.drag, w, p, 1e300, 0)
  w:drag(p, 0, 0)
  fails("within 1e12 m", w.drag_to, w, 1e300, 0)
  fails("could not add wall", w.wall, w, -1e308, 0, 1e308, 0)
  fails("spring.hertz cannot be set to nil", function() s.hertz = nil end)
  fails("spring.damping cannot be set to nil", function() s.damping = nil end)
  fails("frames must be from 0 to 1e8, got 10000000000", w.step, w, 1e10)
  fails("frames must be from 0 to 1e8, got 4294967296", w.step, w, 2^32)
  -- a spring tuned by k and c keeps its frequency when only its damping ratio is set
  local hz = s.hertz
  s.damping_ratio = 0.2
  assert(not s.rigid and s.tuning == "hertz")
  near(s.hertz, hz, 1e-9); near(s.damping_ratio, 0.2, 0)
end)

test("dragging moves a particle to the pointer", function()
  local w = sb.world{ gravity = {0, 0} }
  local p = w:particle{ x = 0, y = 0 }
  w:drag(p, 2, 1, 4, 1)
  w:step(120)
  near(p.x, 2, 0.01); near(p.y, 1, 0.01)
  w:drag_to(-1, 0)
  w:step(120)
  near(p.x, -1, 0.01)
  w:release()
  assert(w:pick(-1, 0) == p and w:pick(5, 5) == nil)
end)

test("tune returns its defaults outside the host", function()
  local t = sb.tune{ hz = {8, 1, 60}, zeta = {0.7, 0, 2} }
  assert(t.hz == 8 and t.zeta == 0.7)
end)

test("building 100k particles and 200k springs from Lua takes seconds, not minutes", function()
  local w = sb.world{ collisions = false }
  local t0 = os.clock()
  local n = 316
  local grid = {}
  for r = 0, n - 1 do
    for c = 0, n - 1 do
      local p = w:particle{ x = c * 0.1, y = -r * 0.1, fixed = (r == 0) }
      grid[r * n + c] = p
      if c > 0 then w:spring(grid[r * n + c - 1], p) end
      if r > 0 then w:spring(grid[(r - 1) * n + c], p) end
    end
  end
  print(("built %d particles and %d springs in %.2f s"):format(w.particle_count, w.spring_count, os.clock() - t0))
  assert(w.particle_count == n * n and w.spring_count == 2 * n * (n - 1))
end)

test("scene programs: filtering, colours, breaking, forces, queries, plots and input from Lua", function()
  local w = sb.world{ gravity = {0, 0} }
  local p = w:particle{ x = 0, y = 0, group = -2, category = 4, mask = 1, events = true,
                       color = {1, 0, 0}, hidden = true }
  assert(p.group == -2 and p.category == 4 and p.mask == 1 and p.events and p.hidden)
  assert(p.color == "#ff0000ff")
  p.color = "#00ff0080"
  assert(p.color == "#00ff0080")
  p.color = false
  assert(p.color == nil)
  fails_with(function() p.color = "red" end, "particle.color", "#rrggbb", "red")
  fails_with(function() p.color = {1, 2, 0} end, "particle.color", "[0, 1]")
  fails_with(function() p.group = 40000 end, "particle.group", "[-32768, 32767]", "40000")
  fails_with(function() p.mask = -1 end, "particle.mask", "-1")
  fails_with(function() w:particle{ category = 1.5 } end, "category", "1.5")
  local q = w:particle{ x = 1, y = 0 }
  local s = w:spring(p, q, { break_stretch = 0.5, break_force = 100, color = {0, 0, 1, 0.5}, hidden = false })
  assert(s.break_stretch == 0.5 and s.break_force == 100 and s.color == "#0000ff80" and s.hidden == false)
  s.break_force = 0
  assert(s.break_force == 0)
  fails_with(function() s.break_force = -1 end, "spring.break_force", "-1")
  assert(s.break_push == false) -- a break_force is a pull unless the spring says so
  s.break_push = true
  assert(s.break_push == true)
  fails_with(function() s.break_push = 1 end, "spring.break_push")
  assert(w:spring(p, q, { break_force = 5, break_push = true }).break_push == true)
  fails_with(function() w:spring(p, q, { break_stretch = 0/0 }) end, "break_stretch", "nan")
  fails_with(function() s.hidden = 1 end, "spring.hidden", "boolean")
  assert(s.force == 0)
  -- forces act for one step, impulses at once
  local r = w:particle{ x = 3, y = 3, mass = 2, collide = false }
  r:apply_force(2, 0)
  w:step()
  near(r.vx, w.dt, 1e-12)
  r:apply_impulse(0, 3)
  near(r.vy, 1.5, 1e-12)
  fails_with(function() q:apply_force(0/0, 0) end, "fx", "nan")
  fails_with(function() q:apply_impulse(1, "x") end, "iy")
  fails_with(function() q:move_to(1, 1) end, "move_to", "fixed")
  local k = w:particle{ x = 5, y = 5, fixed = true }
  k:move_to(5.5, 5)
  w:step()
  near(k.x, 5.5, 1e-9)
  -- queries
  local found = w:query(-0.5, -0.5, 0.5, 0.5)
  assert(#found == 1 and found[1] == p)
  assert(#w:query(100, 100, 101, 101) == 0)
  fails_with(function() w:query(1, 0, 0, 1) end, "xmax", "xmin")
  local hit = w:raycast(-3, 0, 3, 0)
  assert(hit and hit.particle == p and hit.fraction < 0.5 and hit.nx < 0)
  assert(w:raycast(-3, 10, 3, 10) == nil)
  w:wall(10, -1, 10, 1)
  hit = w:raycast(8, 0.5, 12, 0.5)
  assert(hit and hit.wall == 1 and hit.particle == nil)
  near(hit.x, 10, 1e-12)
  -- plots and input outside a host: kept, and nothing is held
  sb.plot("height", 1.5)
  fails_with(function() sb.plot("", 1) end, "name", "1 to 32")
  fails_with(function() sb.plot("x", 0/0) end, "value", "nan")
  assert(sb.keyboard.isdown("left") == false)
  assert(sb.paused() == false) -- no host pauses this run
  fails_with(function() sb.keyboard.isdown() end, "key name")
  local mx, my = sb.mouse.position()
  assert(mx == 0 and my == 0 and sb.mouse.isdown(1) == false)
  fails_with(function() sb.mouse.isdown(9) end, "button", "9")
end)

test("constraints: ropes, struts, angles and areas from Lua", function()
  local w = sb.world{ gravity = {0, 0} }
  local a, b = w:particle{ x = 0, y = 0 }, w:particle{ x = 1, y = 0 }
  local c = w:particle{ x = 1, y = 1 }
  local rope = w:rope(a, b, { length = 1.5 })
  assert(rope.kind == "rope" and rope.length == 1.5 and rope.rigid and rope.value == 1)
  local bungee = w:rope(a, c, { hertz = 3, damping_ratio = 0.2 })
  near(bungee.length, math.sqrt(2), 1e-12)
  assert(bungee.hertz == 3 and bungee.damping_ratio == 0.2 and not bungee.rigid)
  bungee.hertz = 5
  assert(bungee.hertz == 5 and bungee.damping_ratio == 0.2)
  fails_with(function() return bungee.k end, "tuned by hertz and damping_ratio")
  local strut = w:strut(b, c)
  assert(strut.kind == "strut" and strut.length == 1)
  local bend = w:angle(a, b, c, { hertz = 2 })
  near(bend.angle, -math.pi / 2, 1e-12) -- from a to c around b: clockwise
  local blob = w:area({ a, b, c }, { area = 1 })
  assert(blob.kind == "area" and blob.area == 1)
  near(blob.value, 0.5, 1e-12)
  assert(#blob.particles == 3 and blob.particles[2] == b)
  blob.area = 0.75
  assert(blob.area == 0.75)
  fails_with(function() w:rope(a, b, { angle = 1 }) end, "rope has no field 'angle'", "length")
  fails_with(function() w:rope(a, a) end, "two different particles")
  fails_with(function() w:strut(a, b, { length = -1 }) end, "length", ">= 0")
  fails_with(function() w:angle(a, b, c, { hertz = -2 }) end, "hertz", ">= 0", "-2")
  fails_with(function() w:area({ a, b }) end, "3 to 100000 particles", "2")
  fails_with(function() w:area({ a, b, "x" }) end, "item 3", "live particle")
  fails_with(function() w:area({ a, b, a }) end, "listed twice")
  fails_with(function() w:area({ a, b, c }, { areaa = 1 }) end, "areaa")
  fails_with(function() bend.length = 1 end, "cannot set angle property 'length'")
  fails_with(function() rope.length = -2 end, "rope.length", "-2")
  local count = 0
  for k in w:constraints() do count = count + 1; assert(k.world == w) end
  assert(count == 5 and w.constraint_count == 5 and w:stats().constraints == 5)
  w:remove(rope)
  assert(rope.removed and not strut.removed)
  fails_with(function() return rope.length end, "constraint was removed")
  w:remove(c) -- takes the strut, the bungee, the angle and the area with it
  assert(strut.removed and bend.removed and blob.removed and w.constraint_count == 0)
  w:step(10)
end)

test("rolling from Lua: a ball rolls down a slope, a crate slides, a wheel drives, beads do not turn", function()
  local th = math.rad(20)
  local function slope(fields)
    local w = sb.world{ gravity = {0, -9.81}, friction = 0.5 }
    w:wall(0, 0, 30 * math.cos(th), -30 * math.sin(th))
    fields.x, fields.y, fields.radius = math.cos(th) + 0.1 * math.sin(th), -math.sin(th) + 0.1 * math.cos(th), 0.1
    local p = w:particle(fields)
    w:step(60)
    return p, w
  end
  local ball = slope{}
  assert(ball.rolls == "auto" and ball.turning, "a free ball rolls by default")
  local v = math.sqrt(ball.vx ^ 2 + ball.vy ^ 2)
  near(v, 9.81 * math.sin(th) * 2 / 3, 0.05) -- 1 s of 2/3 g sin
  near(ball.spin * 0.1, -v, 0.01) -- turning clockwise as it rolls to the right, without slipping
  assert(ball.angle < -5, "its angle counts the turn: " .. ball.angle)
  local marble = slope{ inertia = 0.4 }
  near(math.sqrt(marble.vx ^ 2 + marble.vy ^ 2), 9.81 * math.sin(th) * 5 / 7, 0.05)
  local crate = slope{ rolls = false }
  assert(not crate.turning and crate.spin == 0 and math.abs(crate.vx) < 1e-3,
         "friction holds a particle that cannot turn")
  local stuck = slope{ rolling_resistance = 0.5 } -- tan 20 degrees < 0.5: it stays
  assert(math.abs(stuck.vx) < 1e-3 and stuck.rolling_resistance == 0.5)
  -- a bead of a chain does not turn unless asked
  local w = sb.world{}
  local a, b = w:particle{ x = 0, y = 0 }, w:particle{ x = 0.2, y = 0 }
  w:spring(a, b)
  local c = w:particle{ x = 0, y = 1, rolls = true }
  w:spring(c, w:particle{ x = 0.2, y = 1 })
  w:step(1)
  assert(not a.turning and c.turning and c.rolls == true)
  -- a fixed particle with a spin drives what rests on it
  w = sb.world{ friction = 0.8 }
  w:particle{ x = 0, y = 0, radius = 1, fixed = true, spin = -2 }
  local top = w:particle{ x = 0, y = 1.1, radius = 0.1, rolls = false }
  w:step(30)
  assert(top.x > 0.3, "the wheel turns clockwise and carries the crate over its top: " .. top.x)
  w.rolling_resistance = 0.2
  assert(w.rolling_resistance == 0.2)
end)

test("threads: the same scene on 1, 2, 3 and 8 threads gives the same bits, in every method", function()
  local function cloth(threads, method)
    local w = sb.world{ threads = threads, method = method }
    local grid = {}
    for y = 0, 39 do
      for x = 0, 39 do
        local p = w:particle{ x = x * 0.1 + y * 0.02, y = -y * 0.1, fixed = y == 0 and x % 13 == 0, radius = 0.04 }
        grid[y * 40 + x] = p
        if x > 0 then w:spring(grid[y * 40 + x - 1], p, (x + y) % 4 == 0 and { hertz = 9 } or nil) end
        if y > 0 then w:spring(grid[(y - 1) * 40 + x], p) end
      end
    end
    for i = 1, 40 do w:particle{ x = i * 0.1, y = 1 + i * 0.05, radius = 0.05, spin = i % 3 } end
    w:wall(-1, -5, 6, -5)
    return w
  end
  for _, method in ipairs(sb.methods) do
    local worlds = { cloth(1, method), cloth(2, method), cloth(3, method), cloth(8, method) }
    assert(worlds[2].threads == 2 and worlds[4].threads == 8)
    for _ = 1, 15 do
      for _, w in ipairs(worlds) do w:step() end
      for k = 2, 4 do assert(worlds[k]:hash() == worlds[1]:hash(), method .. ": threads change the bits") end
    end
    worlds[2].threads = 1
    worlds[2]:step(); worlds[1]:step()
    assert(worlds[2]:hash() == worlds[1]:hash(), method)
  end
  fails_with(function() sb.world{ threads = 0 } end, "'threads'", "0")
  fails_with(function() sb.world{}.threads = 2.5 end, "world.threads", "2.5")
end)

test("a snapshot restores the world and the run repeats bit for bit", function()
  local w = sb.world({ gravity = { 0, -9.81 } })
  local anchor = w:particle({ x = 0, y = 2, fixed = true })
  local prev, links = anchor, {}
  for i = 1, 6 do
    local p = w:particle({ x = 0.3 * i, y = 2 })
    links[i] = w:spring(prev, p, { hertz = 4, damping_ratio = 0.1 })
    prev = p
  end
  w:wall(-5, 0, 5, 0)
  for i = 1, 10 do w:particle({ x = -1 + 0.2 * i, y = 0.5 + 0.1 * i }) end
  w:step(20)
  links[3]:retune({ hertz = 9 }, 0.5) -- a ramp in progress is part of the state
  w:drag(prev, 2, 0)
  local snap = w:snapshot()
  near(snap.time, 20 / 60, 1e-12)
  assert(snap.bytes > 0 and tostring(snap):find("snapshot at"))
  local hashes = {}
  for i = 1, 90 do w:step(); hashes[i] = w:hash() end
  local extra = w:particle({ x = 3, y = 3 })
  w:remove(links[1])
  w:restore(snap)
  assert(extra.removed and not links[1].removed, "the structure is the snapshot's")
  fails_with(function() return extra.x end, "particle was removed")
  for i = 1, 90 do w:step(); assert(w:hash() == hashes[i], "step " .. i) end
  w:restore(snap) -- a snapshot can be restored again
  w:step()
  assert(w:hash() == hashes[1])
  -- back to the moment under the tuning of now: the spring keeps 9 Hz, and the run is new
  links[2].hertz = 9
  w:restore(snap, { keep_tuning = true })
  assert(links[2].hertz == 9 and links[3].hertz == 9, "the tuning of now")
  w:step()
  assert(w:hash() ~= hashes[1])
  w:restore(snap)
  assert(links[2].hertz == 4, "a plain restore brings the snapshot's tuning back")
  fails_with(function() w:restore(snap, { keep_tunning = true }) end, "keep_tunning", "keep_tuning")
  fails_with(function() w:restore(snap, { keep_tuning = 1 }) end, "keep_tuning must be true or false", "1")
  fails_with(function() w:restore(nil) end, "bad argument #1 to 'restore'", "springbox.snapshot expected, got nil")
  fails_with(function() w:restore(w) end, "springbox.snapshot expected")
  fails_with(function() return snap.timee end, "snapshot has no field 'timee'", "time and bytes")
  -- Dropped snapshots are collected: taking one per step for a long while stays bounded.
  for _ = 1, 3000 do w:snapshot() end
  w:step()
end)

test("a handle that went stale in a restore never names what is made after it", function()
  local w = sb.world{ gravity = {0, 0} }
  local a = w:particle{ x = 0, y = 0 }
  local snap = w:snapshot()
  local q = w:particle{ x = 1, y = 0 }
  local s = w:spring(a, q)
  local rope = w:rope(a, q)
  local wall = w:wall(0, 1, 1, 1)
  w:restore(snap)
  assert(q.removed and s.removed and rope.removed, "what was made after the moment is gone")
  for _ = 1, 3 do
    local r = w:particle{ x = 2, y = 0 }
    assert(r ~= q and q.removed and not r.removed, "a new particle is not the stale one")
    fails_with(function() q.x = 5 end, "particle")
    assert(r.x == 2, "the stale handle moved nothing")
    local s2, rope2 = w:spring(a, r), w:rope(a, r)
    assert(s2 ~= s and s.removed and rope2 ~= rope and rope.removed)
    assert(w:wall(0, 2, 1, 2) ~= wall, "wall numbers are never given twice")
    w:restore(snap)
  end
end)

test("angles stay wrapped under any spin, and a write names the field written", function()
  local w = sb.world{ gravity = {0, -10} }
  w:wall(-10, 0, 10, 0)
  local p = w:particle{ x = 0, y = 0.1, radius = 0.1, spin = 1e12, rolls = true }
  local k = w:particle{ x = 3, y = 1, radius = 0.1, spin = 1e12, rolls = true, fixed = true }
  for _ = 1, 30 do w:step() end
  assert(math.abs(k.angle) <= 2 * math.pi * 1048576, "a kinematic particle's angle " .. k.angle)
  k:move_to(3.5, 1)
  local kept = 2 * math.pi * 1048576
  assert(math.abs(p.angle) <= kept, "angle " .. p.angle)
  p.x = 0 -- an unrelated write is accepted
  p.spin = -1e12
  for _ = 1, 5 do w:step() end
  assert(math.abs(p.angle) <= kept, "angle " .. p.angle)
  p.angle = p.angle -- what it reads, it takes
  fails_with(function() p.vx = 1e300 end, "bad value for particle.vx")
  fails_with(function() p.rolls = 3 end, "particle.rolls")
end)

test("a structure tunes by its lowest mode, and says what it cannot tune", function()
  -- three beads of 0.2 kg between fixed ends, stiffness in the ratio 1 : 2 : 2 : 1
  local w = sb.world{ gravity = {0, 0}, collisions = false }
  local left = w:particle{ x = 0, y = 0, fixed = true }
  local beads, springs = {}, {}
  for i = 1, 3 do beads[i] = w:particle{ x = i, y = 0, mass = 0.2 } end
  local right = w:particle{ x = 4, y = 0, fixed = true }
  local chain = {left, beads[1], beads[2], beads[3], right}
  for i = 1, 4 do springs[i] = w:spring(chain[i], chain[i + 1], { k = (i == 1 or i == 4) and 10 or 20, c = 0 }) end
  local before = w:structure_mode(springs)
  assert(before.particles == 3 and before.springs == 4 and before.free == 3 and before.scale == 1, "mode as built")
  local r = w:tune_structure(springs, { hertz = 2, damping_ratio = 0.1 })
  near(r.hertz, 2, 1e-9)
  near(r.damping_ratio, 0.1, 1e-9)
  near(springs[2].k / springs[1].k, 2, 1e-12) -- the proportions kept
  near(math.sqrt(r.scale) * before.hertz, 2, 1e-9) -- w^2 scales with the stiffness
  near(springs[1].c / springs[1].k, 2 * 0.1 / (2 * math.pi * 2), 1e-12) -- damping in proportion
  local again = w:structure_mode(springs)
  near(again.hertz, 2, 1e-9)
  near(again.damping_ratio, 0.1, 1e-9)
  w:tune_structure({springs[1], springs[1], springs[2], springs[3], springs[4]}, { hertz = 2 }) -- twice is once
  fails_with(function() w:tune_structure({}, { hertz = 1 }) end, "at least one spring")
  fails_with(function() w:tune_structure({springs[1], 3}, { hertz = 1 }) end, "springs[2] must be a spring, got 3")
  fails_with(function() w:tune_structure(springs, { hertz = -1 }) end, "field 'hertz' must be in (0, 1e4], got -1")
  fails_with(function() w:tune_structure(springs, {}) end, "field 'hertz' is required")
  fails_with(function() w:tune_structure(springs, { hertz = 1, zeta = 1 }) end, "unknown structure field 'zeta'")
  fails_with(function() w:tune_structure(springs, { hertz = 1, damping_ratio = -1 }) end, "damping_ratio")
  local rigid = w:spring(beads[1], beads[3])
  fails_with(function() w:tune_structure({springs[1], rigid}, { hertz = 1 }) end, "springs[2] is rigid")
  local other = sb.world{}
  local o = other:spring(other:particle{}, other:particle{ x = 1 }, { hertz = 2 })
  fails_with(function() w:tune_structure({o}, { hertz = 1 }) end, "springs[1] belongs to another world")
  w:remove(springs[4])
  fails_with(function() w:tune_structure(springs, { hertz = 1 }) end, "springs[4] was removed")
  -- pushed shorter than they rest, three beads buckle
  local b = sb.world{ gravity = {0, 0} }
  local pts = {}
  for i = 0, 4 do pts[i] = b:particle{ x = i, y = 0, fixed = (i == 0 or i == 4) } end
  local pushed = {}
  for i = 1, 4 do pushed[i] = b:spring(pts[i - 1], pts[i], { k = 10, c = 0, rest_length = 1.2 }) end
  fails_with(function() b:tune_structure(pushed, { hertz = 1 }) end, "buckles")
end)

-- w:chain lays beads every `spacing` along a line and links each to the next; pinned at both
-- ends and left to swing, every method at 1, 2 and 6 sub-steps keeps it whole: the ends stay and
-- the beads hang below them. Its rigid links hold their length as the method holds a rigid
-- spring: within 4% at 6 sub-steps in every method, and within 10% at 1 and 2 in the methods
-- that solve constraints (the explicit force and impulse methods need sub-steps for rigid links).
test("a chain hangs whole from its pinned ends in every method", function()
  for _, method in ipairs(sb.methods) do
    for _, substeps in ipairs{1, 2, 6} do
      local w = sb.world{ method = method, substeps = substeps, collisions = false }
      local beads, links = w:chain({ -2, 3, 0, 2, 2, 3 }, { spacing = 0.2, pin = "both", bead = { mass = 0.1 } })
      local length = 2 * math.sqrt(5)
      assert(#beads == math.ceil(length / 0.2) + 1 and #links == #beads - 1, #beads)
      assert(beads[1].x == -2 and beads[1].y == 3 and beads[#beads].x == 2 and beads[#beads].y == 3)
      assert(beads[1].fixed and beads[#beads].fixed and not beads[2].fixed)
      for i, l in ipairs(links) do
        assert(l.a == beads[i] and l.b == beads[i + 1])
        assert(l.rest_length <= 0.2 + 1e-9 and l.rest_length > 0.19 * 0.9, l.rest_length)
      end
      w:step(300)
      local where = ("%s at %d sub-steps"):format(method, substeps)
      assert(beads[1].x == -2 and beads[1].y == 3 and beads[#beads].x == 2 and beads[#beads].y == 3, where)
      local worst = 0
      for _, l in ipairs(links) do worst = math.max(worst, math.abs(l.length / l.rest_length - 1)) end
      for i = 2, #beads - 1 do assert(beads[i].y < 3 and beads[i].y > 3 - length, where) end
      local explicit = method == "force" or method == "impulse"
      assert(worst < (substeps == 6 and 0.04 or 0.1) or (explicit and substeps < 6),
             ("%s: a link %.2f%% long"):format(where, 100 * worst))
    end
  end
  local w = sb.world{}
  local straight = w:chain{ 0, 0, 1, 0 } -- 0.2 m apart by default, the last on the end
  assert(#straight == 6 and straight[6].x == 1 and math.abs(straight[2].x - 0.2) < 1e-12)
  assert(not straight[1].fixed)
  local pinned = w:chain({ 0, 1, 1, 1 }, { pin = "first", link = { hertz = 8, damping_ratio = 0.5 } })
  assert(pinned[1].fixed and not pinned[#pinned].fixed)
  fails_with(function() w:chain{ 0, 0 } end, "points must be a list", "got 2 numbers")
  fails_with(function() w:chain{ 1, 1, 1, 1 } end, "a chain needs a length")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { spacing = -1 }) end, "field 'spacing' must be in (0, 1e6] m, got -1")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { spacing = 1e-6 }) end, "more than 10000")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { pin = "middle" }) end, "field 'pin' must be", "'middle'")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { bead = { mass = -1 } }) end, "'mass' must be > 0")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { bead = { x = 1 } }) end, "field 'bead' takes no x or y")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { link = { hertz = -3 } }) end, "'hertz' must be >= 0")
  fails_with(function() w:chain({ 0, 0, 1, 1 }, { radius = 1 }) end, "unknown chain field 'radius'")
  fails_with(function() w:chain({ 0, 0, 1, 0 / 0 }) end, "points[4]")
end)

-- w:box fills a box with a grid of beads braced across every cell; with a hertz it is tuned as
-- a structure (its lowest mode at that frequency, measured as the world steps it). Dropped on a
-- floor in every method at 1, 2 and 6 sub-steps it lands and rests in its shape, as wide and as
-- high as built within 10 cm, or the tune says that it is not delivered (verlet at 1 and 2
-- sub-steps, whose forces are held to a stable share of the braces' stiffness).
test("a box of braced beads is tuned as a structure and lands in its shape", function()
  local w = sb.world{}
  local beads, braces, mode = w:box(0, 1, 1, 0.5, { hertz = 3, damping_ratio = 0.3 })
  assert(#beads == 15 and #braces == 12 + 10 + 16, #braces)
  assert(beads[1].x == -0.5 and beads[1].y == 0.75 and beads[15].x == 0.5 and beads[15].y == 1.25)
  assert(mode.delivered and math.abs(mode.delivered_hertz / 3 - 1) < 0.03, mode.delivered_hertz)
  local rigid, rigid_braces, none = w:box(3, 1, 0.5, 0.5)
  assert(#rigid == 9 and #rigid_braces == 20 and none == nil and rigid_braces[1].hertz == 0)
  for _, method in ipairs(sb.methods) do
    for _, substeps in ipairs{1, 2, 6} do
      local d = sb.world{ method = method, substeps = substeps, friction = 0.5 }
      d:wall(-5, 0, 5, 0)
      local p, _, tuned = d:box(0, 1, 1, 0.5, { hertz = 4, damping_ratio = 0.5, bead = { mass = 0.1, radius = 0.04 } })
      d:step(240)
      local where = ("%s at %d sub-steps"):format(method, substeps)
      local told = not tuned.delivered and tuned.warning and tuned.warning:find("asked 4 Hz", 1, true)
      local x0, x1, y0, y1, fastest = math.huge, -math.huge, math.huge, -math.huge, 0
      for _, b in ipairs(p) do
        x0, x1, y0, y1 = math.min(x0, b.x), math.max(x1, b.x), math.min(y0, b.y), math.max(y1, b.y)
        fastest = math.max(fastest, math.sqrt(b.vx ^ 2 + b.vy ^ 2))
      end
      assert(y0 > 0, where .. ": a bead went through the floor")
      assert(math.abs((x1 - x0) - 1) < 0.1 or told, ("%s: %.3f m wide"):format(where, x1 - x0))
      assert(math.abs((y1 - y0) - 0.5) < 0.1 or told, ("%s: %.3f m high"):format(where, y1 - y0))
      assert(fastest < 0.3, ("%s: a bead still moves at %.2f m/s"):format(where, fastest))
    end
  end
  fails_with(function() w:box(0, 0, -1, 1) end, "width must be > 0 m")
  fails_with(function() w:box(0, 0, 1, 1, { hertz = 0 }) end, "field 'hertz' must be in (0, 1e4], got 0")
  fails_with(function() w:box(0, 0, 1, 1, { spacing = 0.001 }) end, "more than 10000")
  fails_with(function() w:box(0 / 0, 0, 1, 1) end, "x must be finite")
  fails_with(function() w:box(0, 0, 1, 1, { link = {} }) end, "unknown box field 'link'")
end)

print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
