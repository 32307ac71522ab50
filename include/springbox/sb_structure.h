// springbox core: a group of springs tuned as one structure by its own motion. A network moves far
// slower than its springs (a mat of 4 Hz springs lies on the floor), so a designer tunes what
// they see: the group's lowest mode.
//
// The mode: the lowest mode of small motions about the group's current shape, with two degrees of
// freedom for every moving particle the group's springs join, those particles' masses, and each
// spring's stiffness at its current length (along it, k; across it, its tension over its length,
// so a string under tension has its transverse modes). Fixed particles and every particle outside
// the group hold still; springs outside the group that reach the group's particles add their
// stiffness unchanged. Motions no spring resists have no frequency and are passed over: a free
// jelly's drift and turn, a slack string's sideways sag (a string needs tension, rest lengths
// shorter than it is long, to have a transverse mode). Contacts and constraints are not part of
// it. A designer who wants another mode tunes a smaller group (the mat's middle, one arm of a
// jelly), or tunes the springs by hertz.
#ifndef SB_STRUCTURE_H
#define SB_STRUCTURE_H

#include "sb_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "sb_world.h"

/// The most moving particles a structure may have. Its modes are found in work that grows with
/// its particles and the square of how far its springs reach across them once numbered along
/// the structure: a chain of 50,000 beads or a braced jelly of 30 x 30 beads tunes in a third of
/// a second at most, and a structure past that is refused ("cost").
#define SB_STRUCTURE_MAX_PARTICLES 100000

/// What the world, stepped as it is set (its method, sub-steps and iterations), delivers of a
/// tuned structure's mode, measured on a copy of the structure plucked along the mode.
typedef struct sb_structure_delivery {
    bool measured;         ///< false where the mode is too fast for the frames to show (a fifth of the frame rate)
                           ///< or the structure too large to run within a tune's budget
    bool delivered;        ///< measured within 3% of the asked hertz and 0.01 of damping_reachable
    bool ran_away;         ///< measured, and the mode ran away (its motion grew past bounds): nothing delivered
    double hertz;          ///< the mode's natural frequency as stepped, Hz
    double damping_ratio;  ///< its damping ratio as stepped
    double damping_reachable; ///< what the springs' dampers, along them, can give the mode: the asked damping ratio, or
                              ///< less for a swing across them (a string's, a trampoline's); what `delivered` holds it to
    sb_method method;      ///< what stepped it
    int substeps, iterations;
    int substeps_needed;   ///< where not delivered: the fewest sub-steps found (up to 64) that deliver it; 0 if none
} sb_structure_delivery;

/// A group's lowest mode.
typedef struct sb_structure_mode {
    double hertz;          ///< its natural frequency now, Hz
    double damping_ratio;  ///< its damping ratio from the springs' damping (c of each along its axis)
    double scale;          ///< the factor a tune multiplied the group's stiffnesses by (1 when only read)
    int particles;         ///< moving particles it spans
    int springs;           ///< springs in the group (each once)
    int free;              ///< motions passed over because no spring resists them
    sb_structure_delivery delivery; ///< a tune: what the stepped world delivers (not measured for a read)
} sb_structure_mode;

/// Reads the lowest mode of the group of n springs as they are. On failure *bad_field names what
/// stops it: "springs" (none, stale, a rigid one, too many particles), "cost" (springs that join
/// its particles too widely to solve within a frame), "buckles" (a mode below 0 Hz: springs pushed
/// shorter than they rest) or "free" (no spring resists any of its motions); *mode, if given,
/// then says its particles. SB_ERR_INTERRUPTED when the world's interrupt (a scene's time limit)
/// stopped it.
SB_API sb_status sb_structure_mode_of(const sb_world *world, const sb_spring_id *springs, int n, sb_structure_mode *mode,
                               const char **bad_field);

/// Tunes the group so that its lowest mode has this frequency and damping ratio: every spring's
/// stiffness times one factor (the group keeps its proportions), and damping in proportion to
/// stiffness, c = (2 zeta / w) k, which gives that mode exactly that damping ratio and faster modes
/// more. Each spring takes the result as its k and c (sb_tuning_raw), ramped over `seconds` as
/// sb_spring_retune ramps (0: at once). *mode, if given, says what was found. Refused as
/// sb_structure_mode_of refuses, and with *bad_field "hertz" where the springs outside the group
/// alone hold the mode faster than asked, or "ceiling" where no stiffness of the group's lifts it
/// that far (it moves the group as a whole against springs outside it): *mode's hertz is then
/// that floor or ceiling.
SB_API sb_status sb_structure_tune(sb_world *world, const sb_spring_id *springs, int n, double hertz, double damping_ratio,
                            double seconds, sb_structure_mode *mode, const char **bad_field);

/// The lowest mode's shape: the group's moving particles (at most `capacity`) and each one's
/// displacement in the mode (x and y), scaled so that the sum of m |d|^2 is 1. A motion's share of
/// the mode is then q = sum of m (d . x) over those particles. *count says how many.
SB_API sb_status sb_structure_mode_shape(const sb_world *world, const sb_spring_id *springs, int n, sb_particle_id *particles,
                                  double *shape, int capacity, int *count);

/// The first of the world's tuned structures whose mode the world, stepped as it was when tuned,
/// does not deliver as asked (or could not measure), in the structure's own terms ("a structure
/// of 6 springs asks 3 Hz at damping ratio 0.05 and delivers 2.24 Hz at 0.017 with impulse at 6
/// sub-steps: 48 would do"), into buf; 0 (buf empty) when every one delivers.
SB_API int sb_world_structure_message(const sb_world *world, char *buf, size_t size);

/// Where the structure spring was last tuned in stands along its tuned mode now: the mode's
/// coordinate, a number that swings at the mode's frequency alone. A mode that mostly stretches
/// the springs (a chain's, a loaded rope's bounce) is read from their lengths, which a swing of
/// the whole (a pendulum) leaves as they are; one that moves across them (a string's, a
/// trampoline's) from its particles' positions along the shape the tune found. *by_stretch says
/// which. False if the spring was never tuned as one.
SB_API bool sb_structure_coordinate(const sb_world *world, sb_spring_id spring, double *q, bool *by_stretch);

/// The structure spring was last tuned in (sb_structure_tune): what it asked, and its springs
/// (the world's: valid until the next tune or the world's end). False if it was never tuned as one.
SB_API bool sb_structure_of(const sb_world *world, sb_spring_id spring, double *hertz, double *damping_ratio,
                     const sb_spring_id **springs, int *count);

#ifdef __cplusplus
}
#endif

#endif
