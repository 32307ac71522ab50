// The contacts' and the walls' parts of the world: a contact, the lists of them a world keeps
// and what the warm starts keep of each (contact_find.c finds them, the contact_*.c files solve
// them), the walls and their broad phase (wall.c, wall_tree.c), and the passes solver.c calls.
#ifndef SB_CONTACT_INTERNAL_H
#define SB_CONTACT_INTERNAL_H

#include "sb_types.h"
#include "sb_pool.h"
#include "world_math.h"

/// A contact between particle a and either particle b or a static shape. The normal
/// points from a to b; separation is centre distance minus radii (negative = overlap).
/// A solid spring's contact has two forms: a particle a against the spring's point at t (b its
/// first end, b2 its other), or a wall's corner against it (b = -1, `corner`: the spring's point
/// at t is the a side, its ends a and b2 sharing it by 1 - t and t).
typedef struct sb_contact {
    uint64_t key;              // (a << 32) | shape code, emitted in increasing order
    int a, b;                  // b = -1 for a static shape
    int b2;                    // a solid spring's contact: its other end (b, or a at a corner, the first); else -1
    int art;                   // 1 + its record when articulated (articulation.c: a heavy particle on a structure); 0: not
    double t;                  // where along the spring b -> b2 the contact is (b2's share of it)
    uint32_t shape;            // wall slot, SHAPE_BOUND + side, SHAPE_PARTICLE | b, SHAPE_SEGMENT(_CONSTRAINT) | slot
    sb_vec2 normal;
    double separation;
    double normal_mass, friction, restitution;
    // verlet and xpbd: normal_impulse is the sub-step's push (kept for the next one's warm start),
    // and xpbd's tangent_impulse what of it its friction sweep has yet to take
    double normal_impulse, tangent_impulse, max_normal_impulse;
    double slip;               // verlet and xpbd: the tangent slip static friction holds since it stuck (contacts_keep_anchor)
    double tangent_mass;       // 1 / (wa + wb + ra^2 / Ia + rb^2 / Ib): the normal mass unless an end rolls
    double rolling_resistance, rolling_impulse; // angular impulse against relative spin, N m s (warm started)
    double relative_velocity;  // normal velocity when the step began (for restitution)
    // copied at each sub-step's prepare, so the velocity passes read them with the contact and not
    // from four particle arrays: the ends' inverse masses, and their levers and inverse inertias
    double inv_mass_a, inv_mass_b, lever_a, lever_b, inv_inertia_a, inv_inertia_b;
    int side;                  // walls: the side of the wall's line the particle came from (+1, -1); solid
                               // springs: the side of the spring's line the particle or corner came from
    uint8_t corner;            // a wall's corner against a solid spring: 1 + which end of wall `shape`; 0: no
    bool fresh;                // the last step had no such contact (warm_range): it may start inside
    bool was_touching;         // it touched as the last step ended (contacts_touching)
    bool was_articulated;      // the last step solved it with a structure (articulation.c)
    bool collided;             // this step's impacts collided its ends (contacts_collide): they have bounced
    int color;                 // contacts_color: 0..62 share no moving particle within a colour; 63 runs in order
} sb_contact;

#define SHAPE_SEGMENT 0x40000000u // | spring slot: a solid spring (sb_spring_def.solid)
#define SHAPE_SEGMENT_CONSTRAINT 0x60000000u // | constraint slot: a solid rope or strut
#define SHAPE_BOUND 0x7FFFFFF0u
#define SHAPE_PARTICLE 0x80000000u

/// Softness in Box2D v3's impulse form of Catto's gamma/beta (Catto's "Soft Constraints"): see method_soft.c.
typedef struct sb_soft { double bias_rate, mass_scale, impulse_scale; } sb_soft;

/// A committed contact as the next step's warm start needs it, and where it is in `contacts`.
typedef struct sb_warm {
    uint64_t key;
    double normal_impulse, tangent_impulse, rolling_impulse, slip;
    int slot;
    int8_t side;
    bool touching;  // as the step ended (contacts_touching)
    uint8_t color; // the colour it took (contacts_color), and what that colour was taken from:
    uint8_t moves; // WARM_* below
} sb_warm;
/// sb_warm.moves: which ends moved when the contact was coloured, and whether it was a solid
/// spring's or articulated (colour 63).
enum { WARM_A_MOVES = 1, WARM_B_MOVES = 2, WARM_SEGMENT = 4, WARM_ARTICULATED = 8 };

/// The step's articulated contacts and the structures they push on (articulation.c).
typedef struct sb_articulations sb_articulations;

/// The contacts: `list` holds the committed list of the last step, in the order its step solved
/// them (colours); `warm` the same contacts by key, what the next step's warm start and the
/// contact events read (contacts_commit). A step builds `next` and swaps only once the step is
/// finite; the rest is the step's scratch.
typedef struct sb_contact_lists {
    sb_contact *list, *next;
    int count, next_count, cap, next_cap;
    int joined;               // how many of this step's contacts have an end springs join; -1: not counted yet (contact_solver.c)
    sb_warm *warm;            // `count` of them, in key order
    int warm_cap;
    int *order, order_cap;    // the key rank of each position of `next` while it is in colour order
                              // (contacts_color), for contacts_commit
    sb_contact *scratch;      // the other buffer of the colour ordering
    int scratch_cap;
    bool permuted;            // `next` is in colour order (contacts_color)
    int colors_unmatched;     // contacts of this step whose last colour cannot stand (warm_range)
    int color_start[65];      // where each colour begins in `order`; [64] = the count
    sb_contact *chunks[SB_POOL_MAX_THREADS]; // the narrow phase's chunks past the first
    int chunk_count[SB_POOL_MAX_THREADS], chunk_cap[SB_POOL_MAX_THREADS];
    sb_contact *segments;     // this step's contacts with solid springs, merged in by key
    int segment_count, segment_cap;
    sb_articulations *art;    // this step's articulated contacts (articulation.c); NULL until one
} sb_contact_lists;

/// The walls' broad phase (wall_tree.c): a bounding volume hierarchy over the live walls.
typedef struct sb_wall_tree sb_wall_tree;

/// The walls: slot arrays (no free list: a wall's number is never given twice).
typedef struct sb_walls {
    int cap, high, alive;
    int made;                 // walls ever made, restores included
    sb_vec2 *a, *b;
    uint32_t *gen;
    uint8_t *alive_flag;
    uint8_t *one_sided;       // solid only from the left of a -> b (sb_wall_set_one_sided)
    int *nb;                  // per wall, 2 entries: the wall sharing its end a, its end b (-1: none)
    int *chain;               // per wall: the lowest number of the walls linked to it end to end (its chain)
    bool dirty;               // walls added or removed: nb and tree are rebuilt before the next contacts
    uint64_t version;         // sb_world_walls_version: the world's number in the high half, its wall changes in the low
    sb_wall_tree *tree;       // the walls' broad phase (NULL: to be built)
} sb_walls;
/// Builds it again from the live walls; false out of memory (queries then take every wall).
bool wall_tree_build(sb_world *w);
void wall_tree_free(sb_world *w);
void walls_free(sb_world *w);      // wall.c: the walls' arrays and their broad phase
/// The live walls whose boxes meet the box (lo_x, lo_y)-(hi_x, hi_y), in increasing order, into
/// `out`; returns their count, which past `cap` says only how many there are (ask again with room).
int wall_tree_query(const sb_world *w, double lo_x, double lo_y, double hi_x, double hi_y, int *out, int cap);
/// The walls one query of a contact pass keeps on its stack; more go on the heap.
enum { WALLS_NEAR_MAX = 64 };
/// The walls near a box, in increasing order: on the stack, or on the heap when there are many
/// (walls_near_free lets those go).
typedef struct walls_near { int stack[WALLS_NEAR_MAX]; int *walls, count; } walls_near;
/// Finds them; false out of memory (near->walls then NULL).
bool walls_near_find(const sb_world *w, double lo_x, double lo_y, double hi_x, double hi_y, walls_near *near);
void walls_near_free(walls_near *near);

// contact_find.c: this step's contacts, found (with contact_stops.c and contact_segments.c).
bool contacts_reserve(sb_world *w);
void contacts_build(sb_world *w);                 // broad + narrow phase into contact.next, in colour order
double contact_combined_restitution(const sb_world *w, int a, int b);
double contact_combined_friction(const sb_world *w, int a, int b);

// contact_graph.c: coloured and committed.
void contacts_report_overlaps(sb_world *w);      // the first step's sb_stats.overlapping_pairs
void contact_lists_free(sb_world *w);             // every list and the articulations
void contacts_commit(sb_world *w);                // contact.next becomes the committed list, with its warm starts by key
/// Which committed contacts touch where the step left their ends, kept in their warm starts
/// (sb_warm.touching) for the events and the next step; how many (sb_stats.contacts). A contact
/// touches within the slop and, once touching, until it is twice the slop apart: a particle riding
/// a curved surface, whose straight sub-step rises off it by (v h)^2 / 2R, does not end and begin
/// again from one frame to the next. Where the ends are now, not the stored separation: a method
/// that moves positions after its contacts' last look (verlet's projections) leaves that behind.
int contacts_touching(sb_world *w);
/// Box2D's filter: may particles a and b collide?
bool particles_should_collide(const sb_world *w, int a, int b);

// contact_geometry.c: the geometry of a contact (normal and separation) from the positions now;
// the finding of contacts uses it for walls, bounds and solid springs.
void static_shape_geometry(const sb_world *w, sb_contact *c);
/// A chain's wall whose corner its neighbour owns now, within `reach` of particle i: kept in the
/// list (true), so that a particle rolling over the joint within the step meets its face (without
/// it, a frame without support); its face is the chain's, the side of the owning wall the
/// particle is on (c->side).
bool wall_ghost(const sb_world *w, int i, sb_contact *c, double reach);
void segment_geometry(const sb_world *w, sb_contact *c);
/// A wall's corner against a solid spring (c->corner): the normal from the spring toward the
/// corner, a side kept as segment_geometry keeps one; a one-sided wall's corner first met from
/// behind is not there.
void corner_geometry(const sb_world *w, sb_contact *c);
void contact_find_geometry(const sb_world *w, sb_contact *c); // any contact's

// contact_solver.c: the velocity methods' contacts.
/// The contacts' solve passes a step, and as many relax passes (the relax's velocity is the one
/// kept), where the floor on their stiffness binds (contact_solver.c); the position methods
/// project their contacts six times a step there, as at six sub-steps
/// (docs/decisions/2026-11-24-contact-stiffness-floor.md).
enum { CONTACT_STIFF_PASSES = 10, PROJECTION_STIFF_PASSES = 6 };
/// How many passes the contacts take a sub-step at sub-step h: 1, or a share of `stiff_passes` a
/// step where the floor on their stiffness binds (contact_solver.c).
int contact_passes(const sb_world *w, double h, int stiff_passes);
/// What a contact's softness depends on (contact_hertz): an end joined by springs, one end that
/// cannot move (a wall, a bound, a fixed particle), or neither.
typedef enum { CONTACT_FREE, CONTACT_JOINED, CONTACT_HELD, CONTACT_KINDS } contact_kind;
double contact_hertz(double h, double dt, contact_kind kind);
/// The contacts' softness at sub-step h of step dt (contact_hertz) and the most they push out, m/s.
sb_soft contact_softness(double h, double dt, contact_kind kind);
double contact_push_limit(void);
sb_soft soft_from_hertz(double hertz, double damping_ratio, double h); // (method_soft.c)
void contacts_prepare(sb_world *w, double h, bool first_substep, bool geometry_current);
void contacts_warm_start(sb_world *w);
void contacts_solve(sb_world *w, double h, bool skip_joined); // the soft non-penetration impulses, biased
void contacts_solve_joined(sb_world *w, double h); // those of contacts an end of which springs join, once
void contacts_relax(sb_world *w, double h);      // the geometry where positions are now, then unbiased
void contacts_restitution(sb_world *w);

// contact_impact.c
/// Impacts, one pair at a time, before the sub-step's solve: ends closing faster than the
/// restitution threshold that will touch within `window` seconds collide: the sub-step, or for
/// verlet, whose collide passes act a sub-step ahead (Boesch's Verlet article's x), two. The contacts' geometry
/// is found here unless `geometry_current` (prepare found it).
void contacts_collide(sb_world *w, double window, bool geometry_current);

// contact_project.c: the position methods' contacts.
/// verlet and xpbd, at a sub-step's start: the overlap of a contact the last step did not have (a
/// particle made inside another or a wall, or moved there) is moved apart by position alone, so
/// that it never becomes velocity, as Box2D's relax removes the push velocity.
void contacts_settle_overlaps(sb_world *w, double h, bool geometry_current);
void contacts_project(sb_world *w, bool preserve_impulse, double h); // verlet second pass (Boesch's "Verlet collision with impulse preservation")
void contacts_warm_push(sb_world *w);  // verlet and xpbd: a share of the last sub-step's push
void contacts_project_by_position(sb_world *w, double h); // verlet and xpbd: a projection pass, then friction
void contacts_keep_anchor(sb_world *w); // verlet and xpbd: static friction's slip, after their passes
void contacts_xpbd_velocity(sb_world *w);

// contact_bounds.c
void contacts_confine_to_bounds(sb_world *w);   // hold particle centres inside the bounds
void walls_hold_centres(sb_world *w);           // no centre crosses a wall in a sub-step (from w->scratch.start)

#endif
