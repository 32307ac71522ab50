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
---@field friction? number default Coulomb friction, default 0.3
---@field bounds? number[]|false {xmin, ymin, xmax, ymax}: a box particles stay in
---@field verlet_preserve_impulse? boolean verlet: run the impulse-preserving pass, default true
---@field tethers? boolean bound each particle by its rigid path to a fixed particle, default true

---Creates a world. Unknown fields and bad values raise an error naming them.
---@param def? springbox.WorldDef
---@return springbox.World
function springbox.world(def) end

---Declares live-tunable values; returns their current values (the defaults outside the
---window, the slider positions inside it). Moving a slider re-runs the scene like a save.
---@param decl table<string, number[]> name = {value, min, max}
---@return table<string, number>
function springbox.tune(decl) end

--- The scene's own state, kept across hot reloads: `local state = springbox.state{ frames = 0 }`.
--- A reload that keeps the physics hands the new version a (shallow) copy of the running table,
--- plus any default it lacks; a load that fails leaves the running one untouched; a restart
--- starts it afresh with the physics. Called from update() it returns the running table.
---@param defaults? table
---@return table
function springbox.state(defaults) end

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

---@class springbox.SpringDef
---@field hertz? number frequency; 0 = rigid (the default)
---@field damping_ratio? number 1 = critical, default 1
---@field stiffness? number Nissen's Cs in [0,1]
---@field damping? number Nissen's Cd in [0,1]
---@field k? number spring constant, N/m
---@field c? number damper, N s/m
---@field rest_length? number m; default: the current distance
---@field collide? boolean its two ends still collide with each other (default false, as Box2D's collideConnected)

---@class springbox.Stats
---@field steps integer
---@field time number simulated seconds
---@field kinetic number J
---@field potential number J (gravity and non-rigid springs)
---@field energy number kinetic + potential
---@field max_stretch number largest |length/rest - 1|
---@field contacts integer touching contacts
---@field step_ms number wall-clock time of the last step
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
---@field halted boolean stopped on a non-finite value
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
---@field friction number
---@field bounds number[]? {xmin, ymin, xmax, ymax} or nil
---@field verlet_preserve_impulse boolean
---@field tethers boolean
---@field time number read-only: simulated seconds
---@field steps integer read-only
---@field halted boolean read-only
---@field particle_count integer read-only
---@field spring_count integer read-only
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

---Adds a static two-sided wall segment; returns its number.
---@return integer
function World:wall(x1, y1, x2, y2) end

---Removes a particle (and its springs) or a spring. Its userdata then says "was removed".
---@param object springbox.Particle|springbox.Spring
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

---Hex hash of every particle's position and velocity bits.
---@return string
function World:hash() end

---Clears a halt so stepping resumes from the last finite state.
function World:resume() end

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
---@field index integer read-only: slot number
---@field world springbox.World read-only

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
---@field index integer read-only
---@field world springbox.World read-only
local Spring = {}

--- Retunes the running spring without throwing what it holds: its force is kept at the switch and
--- the new tuning and rest length blend in over `seconds` of simulated time (default 0.5), with
--- extra damping while the structure settles. Hot reload and the window's sliders do the same.
---@param tuning springbox.SpringDef hertz/damping_ratio, stiffness/damping or k/c, and rest_length
---@param seconds? number
function Spring:retune(tuning, seconds) end

---@class springbox.Scene
---@field world springbox.World the world the window shows and update() gets
---@field worlds? springbox.World[] more worlds stepped alongside (side-by-side scenes)
---@field title? string
---@field update? fun(world: springbox.World, dt: number) called once per frame before the step
---@field tune? table<string, number[]|number> what springbox.tune returned, or {value, min, max}

return springbox
