---@meta springbox
-- Lua Language Server definitions for the springbox module: completion and hover docs in
-- editors. scripts/.luarc.json points the language server here. Not loaded at run time.

---@class springbox
---@field version string
---@field methods string[] the solver names, in order
local springbox = {}

---@alias springbox.method "force"|"impulse"|"sequential"|"soft"|"verlet"|"xpbd"

---@class springbox.WorldDef
---@field gravity? number[] {x, y} in m/s^2, default {0, -9.81}
---@field dt? number seconds per frame, default 1/60
---@field substeps? integer sub-steps per frame, default 6
---@field iterations? integer solver iterations per sub-step, default 4
---@field method? springbox.method how springs are solved, default "soft"
---@field warmstart? number sequential/soft: warm start fraction in [0,1], default 1
---@field correction? number sequential: Nissen's correction factor in (0,1], default 1
---@field collisions? boolean particle-particle collisions, default true
---@field restitution? number default restitution in [0,1], default 0
---@field restitution_threshold? number m/s: approaches slower than this do not bounce, default 1 (Box2D v3's); a
--- scene in millimetres takes 1e-3
---@field friction? number default Coulomb friction, default 0.3
---@field rolling_resistance? number default rolling resistance of particles that roll, >= 0, default 0: a
--- torque of up to this times the normal force times the radius stops a roll (0.1 stops a ball at 2 m/s in 3 m)
---@field bounds? number[]|false {xmin, ymin, xmax, ymax}: a box particles stay in
---@field region? number[]|false {xmin, ymin, xmax, ymax}: particles with events = true that leave it are
--- reported to on_leave_bounds, once each time; it does not hold them (bounds do)
---@field verlet_preserve_impulse? boolean verlet: run the impulse-preserving pass, default true
---@field tethers? boolean bound each particle by its rigid path to a fixed particle, default true
---@field threads? integer threads that step it, 1 to 64; default: the host's --threads (every core in springbox's
--- window and runner, 1 under a plain `require`). The results are the same bits for any count

---Creates a world. Unknown fields and bad values raise an error naming them.
---@param def? springbox.WorldDef
---@return springbox.World
function springbox.world(def) end

---Declares live-tunable values; returns their current values (the defaults outside the
---window, the slider positions inside it). Moving a slider re-runs the scene like a save.
---Sliders come in the order the names are written in the file, call after call (names built at
---run time, which the file does not show as keys, come last, by name).
---@param decl table<string, number[]> name = {value, min, max}
---@return table<string, number>
function springbox.tune(decl) end

--- The scene's own state, kept across hot reloads: `local state = springbox.state{ frames = 0 }`.
--- A reload that keeps the physics hands the new version a copy of the running table's data
--- (numbers, strings, booleans, tables; not functions, coroutines or metatables), plus any
--- default it lacks; handles of the old version's particles say they are stale when used. A
--- load that fails leaves the running one untouched; a restart starts it afresh with the
--- physics. Called from update() it returns the running table.
---@param defaults? table
---@return table
function springbox.state(defaults) end

---One sample of a named series for this frame: the window draws each series as a live graph
---beside energy and stretch, and --stats writes it into every JSON line under "plots".
---At most 12 series; names are 1 to 32 printable ASCII characters without quotes or backslashes.
---Series given the same panel share one graph, on one scale.
---@param name string
---@param value number finite
---@param panel? string the graph it shares with others (default: its own)
function springbox.plot(name, value, panel) end

---Whether the window's run is paused or rewound (space, ctrl+space, shift+[): the scene's
---keypressed, mousepressed and draw still run then, its update does not. False headless.
---@return boolean
function springbox.paused() end

---@class springbox.log
local log = {}
---Appends strings and numbers as they are, as io.write does. Returns the log.
---@param ... string|number
---@return springbox.log
function log:write(...) end
---Appends one CSV row (RFC 4180): numbers as tostring writes them, booleans as true/false, nil as
---an empty field; strings with a comma, quote or line break are quoted. Returns the log.
---@param ... string|number|boolean|nil
---@return springbox.log
function log:row(...) end
---Closes the file; using the log afterwards raises "attempt to use a closed log".
function log:close() end

---A file the scene may write next to itself, sandboxed or not (scene host only; the stock
---interpreter has io). `name` is a plain file name ending in .csv, .txt, .log or .json. The first
---open of a name in a session truncates the file and writes `header` as its first row; opens after
---a hot reload append, and the reload closes the old version's handles. Flushed after every frame.
---At most 8 logs per session, 64 MiB each. Never a link, a FIFO or a second name of another file.
---@param name string
---@param header? string[] column names, written when the file is created
---@return springbox.log
function springbox.open_log(name, header) end

---@class springbox.camera
springbox.camera = {}
---Centres the window's view on (x, y) once; `height` (metres of world shown) zooms, else the zoom stays.
---@param x number
---@param y number
---@param height? number in [1e-6, 1e9]
function springbox.camera.look(x, y, height) end
---Keeps particle p centred every frame (optionally `height` metres of world tall) until nil is
---given or p is removed. In the compare view the left side's scene leads the shared camera.
---@param p springbox.Particle|nil
---@param height? number in [1e-6, 1e9]
function springbox.camera.follow(p, height) end
---What the window shows: its centre and height in metres (0, 0, 0 headless).
---@return number x, number y, number height
function springbox.camera.get() end

---@class springbox.window
springbox.window = {}
---The window's title while the scene runs (a score, a state); nil returns to the scene's `title`.
---@param text string|nil at most 200 characters
function springbox.window.set_title(text) end

---@class springbox.keyboard
springbox.keyboard = {}

---True if any of the keys is held (LÖVE's love.keyboard.isDown). Names are SDL's in lower case:
---"left", "right", "up", "down", "space", "return", "a", "1", "left shift". Headless, none is held.
---@param key string
---@param ... string
---@return boolean
function springbox.keyboard.isdown(key, ...) end

---@class springbox.mouse
springbox.mouse = {}

---The pointer in world metres ((0, 0) headless).
---@return number x
---@return number y
function springbox.mouse.position() end

---True if any of the buttons is held: 1 left, 2 right, 3 middle (LÖVE's numbers).
---@param button integer
---@param ... integer
---@return boolean
function springbox.mouse.isdown(button, ...) end

---{r, g, b [, a]} in [0, 1], "#rrggbb" or "#rrggbbaa"; false: the window's own colour
---@alias springbox.Color number[]|string|false

---@class springbox.ParticleDef
---@field x? number metres
---@field y? number metres
---@field vx? number m/s
---@field vy? number m/s
---@field mass? number kg, > 0, default 1
---@field radius? number m, default 0.05 (beads 0.1 m apart touch); 0 never collides with particles
---@field fixed? boolean infinite mass, default false
---@field collide? boolean takes part in particle-particle collisions, default true
---@field restitution? number overrides the world's
---@field friction? number overrides the world's
---@field rolls? boolean|"auto" turns under friction, so it rolls instead of sliding: "auto" (the default) rolls
--- while no spring or constraint joins it (free balls roll; beads of ropes, cloths and bodies do not)
---@field angle? number rad, counter-clockwise: how far it has turned (drawn as a spoke), within a million turns
--- either way (past them it goes back by whole turns)
---@field spin? number angular velocity, rad/s, counter-clockwise; a fixed particle keeps it (a driven wheel); a free
--- particle that does not roll (rolls = false, or joined with rolls = "auto") loses it at its next step
---@field inertia? number moment of inertia over m r^2: 0.5 a solid disc (the default; rolls at 2/3 g sin), 0.4 a
--- ball (5/7 g sin), 1 a ring (1/2 g sin)
---@field rolling_resistance? number overrides the world's
---@field group? integer collision group in [-32768, 32767]: particles of the same positive group always
--- collide, of the same negative group never (Box2D's groupIndex); 0, the default, leaves it to category and mask
---@field category? integer collision category bits, default 1
---@field mask? integer the categories it collides with, default all (0xFFFFFFFF); walls meet every particle
---@field events? boolean report its contacts to on_contact_begin / on_contact_end (default false: piles stay fast)
---@field color? springbox.Color how the window draws it
---@field hidden? boolean the window leaves it out

---@class springbox.SpringDef
---@field hertz? number frequency; 0 = rigid (the default)
---@field damping_ratio? number 1 = critical, default 1
---@field stiffness? number Nissen's Cs in [0,1]
---@field damping? number Nissen's Cd in [0,1]
---@field k? number spring constant, N/m
---@field c? number damper, N s/m
---@field rest_length? number m; default: the current distance
---@field collide? boolean its two ends still collide with each other (default false, as Box2D's collideConnected)
---@field solid? boolean particles and walls' corners collide with it as a capsule of its ends' radii (default false)
---@field break_stretch? number breaks (is removed; on_spring_break is called) once |length/rest - 1| passes it;
--- 0 = never
---@field break_force? number breaks once the pull it carries passes it, N; 0 = never. A breakable spring is no
--- tether link, so it carries its whole load in every method; a rigid one's chain is solved whole, so a chain
--- built at rest carries its static load from the first step, and its force is the step's mean (a jerk taken
--- in one sub-step counts). Of a structure's springs past their break in a step only the one furthest past
--- breaks (the weakest link goes; the rest see the unloaded chain)
---@field break_push? boolean a push past break_force breaks it too (default false: only a pull)
---@field color? springbox.Color how the window draws it (default: by strain)
---@field hidden? boolean the window leaves it out

---@class springbox.Stats
---@field steps integer
---@field time number simulated seconds
---@field kinetic number J
---@field potential number J (gravity and non-rigid springs)
---@field energy number kinetic + potential
---@field max_stretch number largest |length/rest - 1|
---@field contacts integer touching contacts
---@field step_ms number wall-clock time of the last step
---@field threads integer threads the last step ran on: `threads`, or 1 where the machine could not start them
---@field particles integer
---@field springs integer
---@field clamped_springs integer springs the method cannot deliver as tuned at this sub-step
--- (each runs at the nearest setting it can)
---@field clamped_spring? springbox.Spring the clamped spring furthest from its tuning
---@field asked_hertz? number what that spring asks for (natural frequency, Hz)
---@field asked_damping_ratio? number what that spring asks for
---@field delivered_hertz? number what the method delivers instead
---@field delivered_damping_ratio? number what the method delivers instead
---@field overlapping_pairs integer pairs not joined by a spring that overlapped at the first step
---@field worst_overlap? number m, the deepest of them
---@field overlapping_walls integer particles that started inside a wall at the first step
---@field worst_wall_overlap? number m, the deepest of them
---@field halted boolean stopped on a non-finite value or a runaway particle (past 1e12 m or 1e12 m/s)
---@field message? string why it halted
---@field bad_particle? springbox.Particle the particle that went first
---@field bad_spring? springbox.Spring its spring farthest past the explicit limit

---@class springbox.World
---@field gravity number[] {x, y}
---@field dt number
---@field substeps integer
---@field iterations integer
---@field method springbox.method
---@field warmstart number
---@field correction number
---@field collisions boolean
---@field restitution number
---@field restitution_threshold number
---@field friction number
---@field rolling_resistance number
---@field bounds number[]? {xmin, ymin, xmax, ymax} or nil
---@field region number[]? {xmin, ymin, xmax, ymax} or nil
---@field verlet_preserve_impulse boolean
---@field tethers boolean
---@field threads integer
---@field time number read-only: simulated seconds
---@field steps integer read-only
---@field halted boolean read-only
---@field particle_count integer read-only
---@field spring_count integer read-only
---@field constraint_count integer read-only
local World = {}

---Adds a particle.
---@param def springbox.ParticleDef
---@return springbox.Particle
function World:particle(def) end

---Adds a spring between two particles of this world; tune it one way: hertz/damping_ratio,
---stiffness/damping (Nissen's Cs/Cd) or k/c. Rigid when no tuning is given.
---@param a springbox.Particle
---@param b springbox.Particle
---@param def? springbox.SpringDef
---@return springbox.Spring
function World:spring(a, b, def) end

---Tunes a group of springs (a mat, a jelly, a bridge) by its own motion: the group's lowest mode
---gets this frequency and damping ratio. Every spring's stiffness is multiplied by one factor
---(the group keeps its proportions) and given damping in proportion to its stiffness; each
---spring then holds its k and c. The mode is that of small motions about the group's current
---shape: the moving particles its springs join with their masses, each spring's stiffness along
---it and its tension across it; fixed particles and everything outside the group hold still,
---springs outside the group keep theirs. Motions no spring resists (a free jelly's drift and
---turn, a slack string's sag) are passed over; a string needs tension (rest lengths shorter than
---it is long) to have a sideways mode. Contacts and constraints are not part of it. For another
---mode, tune a smaller group. Rigid springs are refused (they have no stiffness to scale). The
---tune then measures the mode as the world steps it (a copy of the structure, settled, plucked
---along the mode), corrects the group's stiffness and damping from that, and says in the result
---what is delivered and, where it is not, the sub-steps that would deliver it. The scene's time
---limit reaches it, and a structure too widely joined to solve within a frame is refused.
---@param springs springbox.Spring[]
---damping_ratio defaults to 1, as a spring's; seconds ramps the change in (0: at once).
---@param def {hertz: number, damping_ratio?: number, seconds?: number}
---@return springbox.StructureMode
function World:tune_structure(springs, def) end

---The lowest mode of a group of springs as it is now (see World:tune_structure).
---@param springs springbox.Spring[]
---@return springbox.StructureMode
function World:structure_mode(springs) end

---What World:tune_structure found, or World:structure_mode reads.
---@class springbox.StructureMode
---@field hertz number the mode's natural frequency, Hz
---@field damping_ratio number what the springs' damping gives it (less than asked where they cannot reach it)
---@field scale number the factor the stiffnesses were multiplied by (1 when only read)
---@field particles integer moving particles in the group
---@field springs integer springs in the group
---@field free integer motions passed over because no spring resists them
---@field measured? boolean a tune: whether the mode was measured as the world steps it
---@field delivered? boolean a tune: measured within 3% of the asked hertz and 0.01 of the damping its springs can give
---@field delivered_hertz? number a tune: the mode's frequency as stepped, Hz (0: it runs away)
---@field delivered_damping_ratio? number a tune: its damping ratio as stepped
---@field substeps_needed? integer a tune not delivered: the sub-steps found to deliver it (0: none up to 64)
---@field warning? string a tune not delivered as asked: what it delivers, in the structure's terms

---Beads every `spacing` (default 0.2 m) along the polyline through the points {x1, y1, x2, y2,
---...}, the first and last on its ends, each linked to the next by a spring (rigid unless `link`
---tunes it); `bead` gives every bead's particle fields (but x and y), `pin` fixes the first, the
---last or both. What draw mode writes for a rope.
---@param points number[]
---@param def? {spacing: number, bead: springbox.ParticleDef, link: springbox.SpringDef, pin: "first"|"last"|"both"}
---@return springbox.Particle[] beads
---@return springbox.Spring[] links
function World:chain(points, def) end

---A grid of beads about `spacing` (default 0.25 m) apart filling the box of that width and height
---centred on (x, y), braced along every cell's sides and both its diagonals. With `hertz` the
---whole is tuned as a structure (World:tune_structure: its lowest mode at that frequency and
---damping ratio, default 1), otherwise its braces are rigid. Beads are listed row by row from the
---lower left. What draw mode writes for a jelly box.
---@param def? {spacing: number, bead: springbox.ParticleDef, hertz: number, damping_ratio: number}
---@return springbox.Particle[] beads
---@return springbox.Spring[] braces
---@return springbox.StructureMode? mode
function World:box(x, y, width, height, def) end

---Adds a static two-sided wall segment; returns its number.
---@param options? {one_sided: boolean} one_sided: solid only from the left of (x1, y1) -> (x2, y2)
---@return integer
function World:wall(x1, y1, x2, y2, options) end

---Walls through the points {x1, y1, x2, y2, ...} that collide as one smooth chain: a circle
---sliding across a joint meets no corner, and no crest or valley lets a centre through, at any
---speed. `closed` joins the last point to the first; `one_sided` makes each wall solid from the
---left of its direction only (a ground listed left to right can be jumped through from below; a
---loop listed counter-clockwise holds what is inside it, clockwise keeps things out).
---@param points number[]
---@param options? {closed: boolean, one_sided: boolean}
---@return integer[] walls
function World:polyline(points, options) end

---Removes wall n (walls are numbers, never reused).
---@param n integer
function World:remove_wall(n) end

---Moves wall n to (x1, y1)-(x2, y2) at once; walls are static to the solver, so one moved over a
---particle does not push it along.
---@param n integer
---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
function World:move_wall(n, x1, y1, x2, y2) end

---Removes a particle (and its springs and constraints), a spring or a constraint. Its userdata
---then says "was removed".
---@param object springbox.Particle|springbox.Spring|springbox.Constraint
function World:remove(object) end

---@return fun(): springbox.Particle
function World:particles() end

---@return fun(): springbox.Spring
function World:springs() end

---@return fun(): number, number, number, number
function World:walls() end

---Steps `frames` frames (default 1). Returns false and a message if the world halted.
---@param frames? integer
---@return boolean ok
---@return string? message
function World:step(frames) end

---@return springbox.Stats
function World:stats() end

---Grabs a particle and pulls it toward (x, y) with a soft spring (default 5 Hz, ratio 0.7).
---@param p springbox.Particle
---@param x number
---@param y number
---@param hertz? number
---@param damping_ratio? number
function World:drag(p, x, y, hertz, damping_ratio) end

---Moves the drag target.
function World:drag_to(x, y) end

---Lets go; the particle keeps the velocity the drag gave it.
function World:release() end

---The particle whose circle, grown by `slop`, holds (x, y), nearest first.
---@return springbox.Particle?
function World:pick(x, y, slop) end

---@class springbox.ConstraintDef
---@field hertz? number frequency of the constrained quantity; 0 = rigid (the default)
---@field damping_ratio? number 1 = critical, default 1
---@field stiffness? number Nissen's Cs in [0,1]
---@field damping? number Nissen's Cd in [0,1]
---@field k? number stiffness per unit of the quantity (N/m, N m/rad, N/m for an area's pressure per m^2 ...)
---@field c? number damper per unit of its rate
---@field length? number ropes and struts: the most (rope) or least (strut) distance; default: as built
---@field solid? boolean ropes and struts: particles and walls' corners collide with it as a capsule (default false)
---@field break_stretch? number ropes and struts: it breaks once |length/rest - 1| passes it (on_constraint_break)
---@field angle? number angles: the rest angle in radians; default: as built
---@field area? number areas: the rest area in m^2 (signed, counter-clockwise positive); default: as built

---A rope: pulls a and b together only when they are more than `length` apart.
---@param def? springbox.ConstraintDef
---@return springbox.Constraint
function World:rope(a, b, def) end

---A strut: pushes a and b apart only when they are less than `length` apart.
---@param def? springbox.ConstraintDef
---@return springbox.Constraint
function World:strut(a, b, def) end

---A bending joint: holds the signed angle at b from a to c (radians) with a spring's tuning.
---@param def? springbox.ConstraintDef
---@return springbox.Constraint
function World:angle(a, b, c, def) end

---A pressure body: holds the area of the closed loop of particles (3 or more) with a spring's tuning.
---@param particles springbox.Particle[]
---@param def? springbox.ConstraintDef
---@return springbox.Constraint
function World:area(particles, def) end

---@return fun(): springbox.Constraint
function World:constraints() end

---The particles whose circles overlap the box, in slot order.
---@return springbox.Particle[]
function World:query(xmin, ymin, xmax, ymax) end

---@class springbox.RayHit
---@field particle? springbox.Particle the particle hit, or nil for a wall
---@field wall? integer the wall's number, or nil for a particle
---@field x number where
---@field y number
---@field nx number the surface normal there, facing the ray
---@field ny number
---@field fraction number along the segment: 0 at its start, 1 at its end

---The first particle or wall the segment from (x1, y1) to (x2, y2) meets; nil if none.
---@return springbox.RayHit?
function World:raycast(x1, y1, x2, y2) end

---Hex hash of every particle's position and velocity bits.
---@return string
function World:hash() end

---Clears a halt so stepping resumes from the last finite state.
function World:resume() end

---The world as it stands: particles, springs, constraints, walls, warm starts, ramps, drag,
---settings and clock. Freed when nothing refers to it; live snapshots share a 512 MB budget.
---@class springbox.Snapshot
---@field time number the world's clock when it was taken, s
---@field bytes integer memory it holds

---Takes a snapshot of the world (w:restore puts it back).
---@return springbox.Snapshot
function World:snapshot() end

---Puts the world back as the snapshot holds it, structure included: stepping on repeats the
---run it was taken from bit for bit; handles made since go stale, handles removed since come back.
---With `{keep_tuning = true}` the springs and constraints it has now keep their current rest and
---tuning: the same moment again, under today's tuning.
---@param snapshot springbox.Snapshot
---@param options? {keep_tuning: boolean}
function World:restore(snapshot, options) end

---Frees the world now; its particles and springs then say "closed world".
function World:close() end

---@class springbox.Particle
---@field x number
---@field y number
---@field vx number
---@field vy number
---@field mass number
---@field radius number
---@field fixed boolean
---@field collide boolean
---@field restitution number?
---@field friction number?
---@field rolls boolean|"auto"
---@field turning boolean read-only: whether it turned in the last step
---@field angle number rad
---@field spin number rad/s
---@field inertia number
---@field rolling_resistance number?
---@field group integer
---@field category integer
---@field mask integer
---@field events boolean
---@field color string? "#rrggbbaa", or nil for the window's own
---@field hidden boolean
---@field index integer read-only: slot number
---@field world springbox.World read-only
---@field removed boolean read-only, never raises: true once removed (or its world closed)
local Particle = {}

---A force (N) for the next step: it acts on every sub-step of it, then is gone. Call it each
---frame (from update) for a steady push. Fixed particles ignore it.
function Particle:apply_force(fx, fy) end

---Changes the velocity by (ix, iy) / mass at once (N s). Fixed particles ignore it.
function Particle:apply_impulse(ix, iy) end

---Moves a fixed (kinematic) particle to (x, y) over the next frame by giving it that velocity:
---it pushes what it meets and is not pushed back.
function Particle:move_to(x, y) end

---@class springbox.Spring
---@field a springbox.Particle read-only
---@field b springbox.Particle read-only
---@field length number read-only: current length
---@field rest_length number
---@field stretch number read-only: length / rest_length - 1
---@field impulse number read-only: accumulated impulse (warm start)
---@field rigid boolean read-only
---@field tuning "hertz"|"coefficients"|"raw" read-only: how it was tuned
---@field hertz number every form reads; writing one switches the tuning to it
---@field damping_ratio number
---@field stiffness number
---@field damping number
---@field k number
---@field c number
---@field collide boolean its two ends collide with each other (default false)
---@field force number read-only: the force it carried in the last sub-step (a breakable rigid spring: the
--- step's mean), N, positive pulls
---@field break_stretch number 0 = never breaks
---@field break_force number 0 = never breaks
---@field break_push boolean a push past break_force breaks it too
---@field color string? "#rrggbbaa", or nil: coloured by strain
---@field hidden boolean
---@field index integer read-only
---@field world springbox.World read-only
---@field removed boolean read-only, never raises: true once removed or broken
---Once broken or taken out with world:remove, a spring still reads its last index, a, b,
---rest_length, rigid, tuning and its numbers, force and stretch; any other read and every write
---raise "spring was removed".
local Spring = {}

--- Retunes the running spring without throwing what it holds: its force is kept at the switch and
--- the new tuning and rest length blend in over `seconds` of simulated time (default 0.5), with
--- extra damping while the structure settles. Hot reload and the window's sliders do the same.
---@param tuning springbox.SpringDef hertz/damping_ratio, stiffness/damping or k/c, and rest_length
---@param seconds? number
function Spring:retune(tuning, seconds) end

---@class springbox.Constraint
---@field kind "rope"|"strut"|"angle"|"area" read-only
---@field length number ropes and struts: the rest value
---@field angle number angles: the rest value
---@field area number areas: the rest value
---@field value number read-only: the constrained quantity now
---@field unwrapped number an angle's value without the wrap at +-pi (each read nearest the last read's
--- turn); other kinds: value
---@field rigid boolean read-only
---@field tuning "hertz"|"coefficients"|"raw" read-only
---@field hertz number readable in the form it was tuned in; writing one of a pair keeps the other
---@field damping_ratio number
---@field stiffness number
---@field damping number
---@field k number
---@field c number
---@field particles springbox.Particle[] read-only
---@field index integer read-only
---@field world springbox.World read-only
---@field removed boolean read-only, never raises

---@class springbox.Scene
---@field world springbox.World the world the window shows and update() gets
---@field worlds? springbox.World[] more worlds stepped alongside (side-by-side scenes)
---@field title? string
---@field update? fun(world: springbox.World, dt: number) called once per frame before the step
---@field tune? table<string, number[]|number> what springbox.tune returned, or {value, min, max}
---@field keypressed? fun(key: string): boolean? return true to claim a key the window uses (space, R, arrows...)
---@field keyreleased? fun(key: string)
---@field mousepressed? fun(x: number, y: number, button: integer): boolean? world metres; true claims the click
--- (the window then does not drag or pan)
---@field mousereleased? fun(x: number, y: number, button: integer)
---@field mousemoved? fun(x: number, y: number, dx: number, dy: number)
---@field wheelmoved? fun(dx: number, dy: number): boolean? true claims it (the window then does not zoom)
---@field draw? fun(g: springbox.Graphics) called for every frame the window draws (and for --screenshot / --record)
---@field on_contact_begin? fun(a: springbox.Particle, b: springbox.Particle|integer|nil, info: springbox.ContactInfo)
--- for particles with events = true; b is a particle, a wall's number, or nil for the world's bounds
---@field on_contact_end? fun(a: springbox.Particle, b: springbox.Particle|integer|nil, info: springbox.ContactInfo)
---@field on_spring_break? fun(spring: springbox.Spring, a: springbox.Particle?, b: springbox.Particle?,
--- force: number, stretch: number, info: springbox.BrokenSpring) the spring is already removed; its
--- handle reads its last values (those info holds) and refuses writes
---@field on_leave_bounds? fun(p: springbox.Particle) a particle with events = true left the world's region
---@field on_constraint_break? fun(info: {index: integer, kind: string, a: springbox.Particle?, b: springbox.Particle?,
--- length: number, stretch: number}) a rope or strut with break_stretch broke (it is already removed)

---Where and how hard a contact began (on_contact_end gets the same, from its beginning).
---@class springbox.ContactInfo
---@field x number the point on a's surface toward b, m
---@field y number
---@field nx number the unit normal from a toward b (or the wall)
---@field ny number
---@field speed number m/s at which they closed along the normal when the step began (0 if parting)

---What on_spring_break is told about the spring that broke, readable after it is gone.
---@class springbox.BrokenSpring
---@field index integer the spring's index, as spring.index was
---@field a springbox.Particle? its ends, nil where removed since
---@field b springbox.Particle?
---@field rest_length number m
---@field rigid boolean
---@field tuning "hertz"|"coefficients"|"raw"|"rigid"
---@field hertz? number with tuning "hertz"
---@field damping_ratio? number with tuning "hertz"
---@field stiffness? number with tuning "coefficients"
---@field damping? number with tuning "coefficients"
---@field k? number with tuning "raw"
---@field c? number with tuning "raw"
---@field force number N it carried when it broke
---@field stretch number |length/rest - 1| when it broke

---What draw(g) draws with; calls use a dot, as love.graphics. Positions in world metres.
---@class springbox.Graphics
local Graphics = {}
---The colour of what follows: components in [0, 1] or "#rrggbb[aa]".
---@param r number|string
---@param g? number
---@param b? number
---@param a? number
function Graphics.color(r, g, b, a) end
---A polyline through two or more points: g.line(x1, y1, x2, y2, ...).
function Graphics.line(...) end
---@param mode "fill"|"line"
function Graphics.circle(mode, x, y, radius) end
---A convex polygon: g.polygon("fill", x1, y1, x2, y2, x3, y3, ...).
---@param mode "fill"|"line"
function Graphics.polygon(mode, ...) end
---The width in pixels (0.5 to 64, default 2) of the lines and outlines drawn after it this frame.
---@param pixels number
function Graphics.width(pixels) end
---An axis-aligned box from its lower left corner (x, y), in world metres.
---@param mode "fill"|"line"
function Graphics.rectangle(mode, x, y, width, height) end
---Text with its top left at (x, y) in world metres.
---@param size? "small"|"big" the HUD's font (default) or the title's
function Graphics.print(text, x, y, size) end
---Text at (x, y) pixels from the top left of the scene's own part of the window: below the HUD's
---lines and left of the tuning panel, so it never lands on the HUD.
---@param size? "small"|"big"
function Graphics.print_screen(text, x, y, size) end

return springbox
