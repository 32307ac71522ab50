// springbox core: worlds, particles, springs, walls, dragging and stepping.
// A world owns structure-of-arrays storage that grows by doubling; handles carry a
// generation so that a handle to a removed object is recognised as stale.
#ifndef SB_WORLD_H
#define SB_WORLD_H

#include "sb_api.h"

#include "sb_constraint.h"
#include "sb_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Defaults: gravity (0,-9.81), 60 Hz, 6 sub-steps, 4 iterations, soft method, collisions on, tethers on.
SB_API sb_world_def sb_default_world_def(void);
/// Defaults: at the origin, at rest, 1 kg, radius 0.05 m (beads 0.1 m apart touch), free,
/// colliding, world restitution/friction.
SB_API sb_particle_def sb_default_particle_def(void);
/// Defaults: rest length = current distance, rigid (hertz 0, damping ratio 1), ends do not collide.
SB_API sb_spring_def sb_default_spring_def(void);

/// Checks a world definition; on failure *bad_field names the offending field.
SB_API sb_status sb_world_def_check(const sb_world_def *def, const char **bad_field);
/// Checks a particle definition; on failure *bad_field names the offending field.
SB_API sb_status sb_particle_def_check(const sb_particle_def *def, const char **bad_field);

/// Creates a world; NULL if the definition is invalid or memory is short.
SB_API sb_world *sb_world_create(const sb_world_def *def);
/// Frees a world and everything in it.
SB_API void sb_world_destroy(sb_world *world);

/// Reads the world's settings (gravity, dt, method, knobs, bounds...).
SB_API sb_world_def sb_world_get_def(const sb_world *world);
/// Changes the world's settings between frames; state, handles and warm starts are kept
/// (warm-start impulses are cleared when the method changes).
SB_API sb_status sb_world_set_def(sb_world *world, const sb_world_def *def, const char **bad_field);

/// Advances one frame of def.dt in def.substeps sub-steps. Returns SB_ERR_HALTED, and
/// does nothing, once a non-finite value or a runaway particle (past SB_MAX_COORD /
/// SB_MAX_SPEED) has stopped the world.
SB_API sb_status sb_world_step(sb_world *world);
/// A callback asked between sub-steps; when it returns true the step stops, the world goes back
/// to the state before the frame, and sb_world_step returns SB_ERR_INTERRUPTED (a host's time
/// limit). NULL removes it.
SB_API void sb_world_set_interrupt(sb_world *world, bool (*interrupt)(void *ud), void *ud);
/// Diagnostics of the last step.
SB_API const sb_stats *sb_world_get_stats(const sb_world *world);
/// One sentence for the console and the HUD on the springs the method cannot deliver as tuned
/// (sb_stats.clamped_springs): how many, and the worst with what it asks and what it gets.
/// Springs and particles are numbered from 1, as the Lua index. Returns snprintf's count.
SB_API int sb_world_clamp_message(const sb_world *world, char *buf, size_t size);
/// One sentence on the pairs that started overlapping and the particles that started inside walls
/// (sb_stats.overlapping_pairs, overlapping_walls), numbered from 1.
SB_API int sb_world_overlap_message(const sb_world *world, char *buf, size_t size);
/// Clears a halt so stepping resumes from the last finite state.
SB_API void sb_world_clear_halt(sb_world *world);

/// Adds a particle. On failure returns a null id and sets *status (may be NULL).
SB_API sb_particle_id sb_world_add_particle(sb_world *world, const sb_particle_def *def, sb_status *status);
/// Removes a particle and every spring attached to it.
SB_API sb_status sb_world_remove_particle(sb_world *world, sb_particle_id id);
/// True if the handle names a live particle of this world.
SB_API bool sb_particle_is_valid(const sb_world *world, sb_particle_id id);
/// Reads a particle's current state into *out.
SB_API sb_status sb_particle_get(const sb_world *world, sb_particle_id id, sb_particle_def *out);
/// Overwrites a particle's state, checked first; on failure nothing changes.
SB_API sb_status sb_particle_set(sb_world *world, sb_particle_id id, const sb_particle_def *def, const char **bad_field);
/// Whether a particle turned in the last step: it rolls (sb_particle_def.rolling), or is fixed and spins.
SB_API bool sb_particle_turns(const sb_world *world, sb_particle_id id);
/// Number of live particles.
SB_API int sb_world_particle_count(const sb_world *world);
/// Iterates live particles in slot order: pass a null id to start; returns false at the end.
SB_API bool sb_world_next_particle(const sb_world *world, sb_particle_id *it);
/// Adds a force (N) that acts on every sub-step of the next step, then is cleared (LÖVE's
/// applyForce). Fixed particles ignore it. The sum stays within 1e15 N per axis.
SB_API sb_status sb_particle_apply_force(sb_world *world, sb_particle_id id, sb_vec2 force);
/// Changes a particle's velocity by impulse / mass now (N s). Fixed particles ignore it.
SB_API sb_status sb_particle_apply_impulse(sb_world *world, sb_particle_id id, sb_vec2 impulse);

/// Adds a spring. Rejects stale ends, a particle to itself, and bad tuning.
SB_API sb_spring_id sb_world_add_spring(sb_world *world, const sb_spring_def *def, sb_status *status, const char **bad_field);
/// Removes a spring.
SB_API sb_status sb_world_remove_spring(sb_world *world, sb_spring_id id);
/// True if the handle names a live spring of this world.
SB_API bool sb_spring_is_valid(const sb_world *world, sb_spring_id id);
/// Reads a spring's ends, rest length and tuning.
SB_API sb_status sb_spring_get(const sb_world *world, sb_spring_id id, sb_spring_def *out);
/// Reduced mass 1/(1/ma + 1/mb) of a spring's ends at their current masses; 0 if both are fixed.
SB_API double sb_spring_reduced_mass(const sb_world *world, sb_spring_id id);
/// Current length of a spring in metres.
SB_API double sb_spring_length(const sb_world *world, sb_spring_id id);
/// Changes a spring's rest length (>= 0) and tuning; its ends cannot change.
SB_API sb_status sb_spring_set(sb_world *world, sb_spring_id id, double rest_length, const sb_tuning *tuning, const char **bad_field);
/// Lets a spring's ends collide with each other (true) or not (false, the default).
SB_API sb_status sb_spring_set_collide(sb_world *world, sb_spring_id id, bool collide);
/// Makes a spring solid (particles and walls' corners collide with it as a capsule of its ends' radii) or not.
SB_API sb_status sb_spring_set_solid(sb_world *world, sb_spring_id id, bool solid);
/// Accumulated impulse of the spring's last solve (N s), the warm start of the impulse methods.
SB_API double sb_spring_impulse(const sb_world *world, sb_spring_id id);
/// Restores a warm-start impulse (used when a reload carries state over).
SB_API sb_status sb_spring_set_impulse(sb_world *world, sb_spring_id id, double impulse);
/// Sets when a spring breaks: past a stretch |length - rest| / rest, past a force (N); 0 = never.
SB_API sb_status sb_spring_set_break(sb_world *world, sb_spring_id id, double stretch, double force, const char **bad_field);
/// Whether a push past the spring's break_force breaks it too (otherwise only a pull does).
SB_API sb_status sb_spring_set_break_push(sb_world *world, sb_spring_id id, bool push);
/// Sets how a host draws a spring: colour 0xRRGGBBAA (0 = its own) and whether it is hidden.
SB_API sb_status sb_spring_set_style(sb_world *world, sb_spring_id id, uint32_t color, bool hidden);
/// The force a spring carried in the last sub-step (a breakable rigid spring: the step's mean), N: positive pulls.
SB_API double sb_spring_force(const sb_world *world, sb_spring_id id);
/// Number of live springs.
SB_API int sb_world_spring_count(const sb_world *world);
/// Iterates live springs in slot order: pass a null id to start; returns false at the end.
SB_API bool sb_world_next_spring(const sb_world *world, sb_spring_id *it);

/// Adds a static two-sided wall segment from a to b (ends finite, within 1e12 m of the origin).
SB_API sb_wall_id sb_world_add_wall(sb_world *world, sb_vec2 a, sb_vec2 b, sb_status *status);
/// Adds the walls of a polyline through `count` points (a closed one also joins the last to the
/// first), filling `walls` (count entries, or NULL); returns how many it added. Walls that share
/// an end point collide as one smooth chain: a circle sliding across a joint meets no corner.
/// One-sided walls are solid from the left of each a -> b only: a ground listed left to right is
/// solid from above and can be jumped through from below; a loop listed counter-clockwise holds
/// what is inside it, clockwise keeps things out.
SB_API int sb_world_add_polyline(sb_world *world, const sb_vec2 *points, int count, bool closed, bool one_sided,
                          sb_wall_id *walls, sb_status *status);
/// Makes a wall one-sided (solid from the left of a -> b only) or two-sided again (the default).
SB_API sb_status sb_wall_set_one_sided(sb_world *world, sb_wall_id id, bool one_sided);
/// True for a live one-sided wall.
SB_API bool sb_wall_is_one_sided(const sb_world *world, sb_wall_id id);
/// Removes a wall.
SB_API sb_status sb_world_remove_wall(sb_world *world, sb_wall_id id);
/// Moves a wall to a -> b at once. Walls are static to the solver: a particle it passes over is
/// not pushed along (the contacts keep the side a particle met it from, so it holds from there).
SB_API sb_status sb_wall_set(sb_world *world, sb_wall_id id, sb_vec2 a, sb_vec2 b);
/// Number of live walls.
SB_API int sb_world_wall_count(const sb_world *world);
/// Reads a wall's end points.
SB_API sb_status sb_wall_get(const sb_world *world, sb_wall_id id, sb_vec2 *a, sb_vec2 *b);
/// Iterates live walls in slot order: pass a null id to start; returns false at the end.
/// The live walls whose boxes meet `box`, in the order they were made (through the walls' broad
/// phase): up to `capacity` into `out`; returns how many there are (past `capacity`, ask again).
SB_API int sb_world_query_walls(const sb_world *world, sb_bounds box, sb_wall_id *out, int capacity);
/// A number that changes whenever a wall is added, removed or moved, a restore included, and
/// that no other world's walls ever have: what a drawing of the walls can be kept by.
SB_API uint64_t sb_world_walls_version(const sb_world *world);
SB_API bool sb_world_next_wall(const sb_world *world, sb_wall_id *it);

/// Starts dragging a particle toward `target` with a soft point constraint of the given
/// frequency and damping ratio (Catto's "Soft Constraints"). Fixed particles are moved kinematically. The target
/// must lie within 1e12 m of the origin, hertz in [1e-6, 1e6], damping ratio in [0, 1e6].
SB_API sb_status sb_world_drag_begin(sb_world *world, sb_particle_id id, sb_vec2 target, double hertz, double damping_ratio);
/// Moves the drag target; a target past 1e12 m from the origin (or not finite) is ignored.
SB_API void sb_world_drag_move(sb_world *world, sb_vec2 target);
/// Ends the drag; the particle keeps the velocity the drag gave it (a fixed one stops).
SB_API void sb_world_drag_end(sb_world *world);
/// The dragged particle, or a null id.
SB_API sb_particle_id sb_world_drag_particle(const sb_world *world);

/// Reads the drag: particle, target, frequency and damping ratio; false if none.
SB_API bool sb_world_drag_info(const sb_world *world, sb_particle_id *id, sb_vec2 *target, double *hertz, double *damping_ratio);

/// Retunes a running spring without throwing the structure it holds: the new tuning applies at
/// once with the rest length at which the spring's force is unchanged, which then moves to
/// `rest_length` over `seconds` of simulated time while extra damping settles the structure.
/// 0 seconds applies at once. A later retune of the same spring starts from where this one stands.
SB_API sb_status sb_spring_retune(sb_world *world, sb_spring_id id, double rest_length, const sb_tuning *tuning, double seconds,
                           const char **bad_field);
/// Changes a particle's mass over `seconds` of simulated time (a geometric blend).
SB_API sb_status sb_particle_ramp_mass(sb_world *world, sb_particle_id id, double mass, double seconds);
/// Changes the gravity over `seconds` of simulated time.
SB_API sb_status sb_world_ramp_gravity(sb_world *world, sb_vec2 gravity, double seconds);
/// Number of ramps still running.
SB_API int sb_world_ramp_count(const sb_world *world);
/// The rest length and tuning a ramping spring is heading for; false if it is not ramping.
SB_API bool sb_spring_ramp_target(const sb_world *world, sb_spring_id id, double *rest_length, sb_tuning *tuning);

/// Copies the dynamic state of `src` into `dst`: positions, velocities, warm-start impulses,
/// contacts, the drag, the ramps in progress and the clock. Tuning, masses and settings of `dst` stay. Both worlds
/// must have the same particle and spring slots joined the same way (a scene rebuilt by the
/// same script); otherwise nothing is copied and SB_ERR_INVALID is returned.
SB_API sb_status sb_world_copy_state(sb_world *dst, const sb_world *src);
/// True when sb_world_copy_state(dst, src) would copy: the same particle and spring slots,
/// live and joined the same way.
SB_API bool sb_world_can_copy_state(const sb_world *dst, const sb_world *src);
/// Copies the dynamic state of `src` into the slots `dst` shares with it, where one world's slots
/// begin with all of the other's (a scene file that added things after the rest, or took its
/// last ones away): those take src's positions, velocities, warm starts and ramps, dst's others
/// keep theirs; contacts carry only when dst has every slot of src's. SB_ERR_INVALID otherwise.
SB_API sb_status sb_world_carry_state(sb_world *dst, const sb_world *src);
/// True when sb_world_carry_state(dst, src) would copy.
SB_API bool sb_world_can_carry_state(const sb_world *dst, const sb_world *src);

/// A world as it stood: every particle, spring, constraint, wall, contact, warm start, ramp,
/// event, drag and setting (snapshot.c). Owned by the caller; independent of the world.
typedef struct sb_snapshot sb_snapshot;
/// Takes a snapshot of the world; NULL if memory is short.
SB_API sb_snapshot *sb_world_snapshot(const sb_world *world);
/// Puts the world back as the snapshot holds it, structure included: the run continues
/// bit-identically; handles made after the snapshot go stale. SB_ERR_NO_MEMORY leaves it as it was.
SB_API sb_status sb_world_restore(sb_world *world, const sb_snapshot *snapshot);
/// As sb_world_restore, but the springs and constraints the world has now and the snapshot has
/// too keep their current rest and tuning: the same moment again, under today's tuning.
SB_API sb_status sb_world_restore_keep_tuning(sb_world *world, const sb_snapshot *snapshot);
/// Bytes the snapshot holds.
SB_API size_t sb_snapshot_bytes(const sb_snapshot *snapshot);
/// Simulated time of the world when the snapshot was taken, seconds.
SB_API double sb_snapshot_time(const sb_snapshot *snapshot);
/// Frees a snapshot (NULL is ignored).
SB_API void sb_snapshot_destroy(sb_snapshot *snapshot);

/// Contacts that began and ended in the last step for particles that asked (sb_particle_def.events).
/// The arrays stay valid until the next step. A world with no such particle pays nothing.
SB_API void sb_world_contact_events(const sb_world *world, const sb_contact_event **begins, int *begin_count,
                             const sb_contact_event **ends, int *end_count);
/// Springs that broke in the last step (already removed), in slot order.
SB_API int sb_world_break_events(const sb_world *world, const sb_break_event **events);
/// Particles with events that went from inside the world's region to outside it in the last
/// step (sb_world_def.region), in slot order; once each time they leave.
SB_API int sb_world_leave_events(const sb_world *world, const sb_particle_id **events);

/// Particles whose circle overlaps the box: writes up to `capacity` handles to `out` in slot order
/// and returns how many overlap (more than capacity means some were left out).
SB_API int sb_world_query_box(const sb_world *world, sb_bounds box, sb_particle_id *out, int capacity);
/// What a ray met first (sb_world_raycast): a particle, a wall, or nothing.
typedef struct sb_ray_hit {
    bool hit;
    sb_particle_id particle; ///< null unless a particle was hit
    sb_wall_id wall;         ///< null unless a wall was hit
    sb_vec2 point, normal;   ///< where, and the surface normal facing the ray
    double fraction;         ///< along the segment, 0 at its start and 1 at its end
} sb_ray_hit;
/// The first particle (as its circle) or wall met by the segment from p1 to p2.
SB_API sb_ray_hit sb_world_raycast(const sb_world *world, sb_vec2 p1, sb_vec2 p2);

/// The null handles.
SB_API sb_particle_id sb_null_particle(void);
SB_API sb_spring_id sb_null_spring(void);
SB_API sb_wall_id sb_null_wall(void);

/// Name of a method, as --method and Lua's `method` take it ("soft", "xpbd", ...).
SB_API const char *sb_method_name(sb_method method);
/// Parses a method name; returns false if unknown.
SB_API bool sb_method_from_name(const char *name, sb_method *out);
/// A short English description of a status.
SB_API const char *sb_status_string(sb_status status);

/// FNV-1a hash of every live particle's position and velocity bits, for determinism checks.
SB_API uint64_t sb_world_state_hash(const sb_world *world);

#ifdef __cplusplus
}
#endif

#endif
