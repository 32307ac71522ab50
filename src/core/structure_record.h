// The groups a world was tuned as (sb_structure_tune), kept so that the window can read a
// spring's structure: what the group asked and which springs it holds. A spring is in the record
// of its latest tune only, so the records hold at most as many ids as the world has springs.
#ifndef SB_STRUCTURE_RECORD_H
#define SB_STRUCTURE_RECORD_H

#include "sb_structure.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_structure_record {
    double hertz, damping_ratio; // what the tune asked
    sb_structure_delivery delivery; // what the stepped world delivered of it, as the tune measured
    sb_spring_id *springs;       // the group, each once, in slot order; less springs tuned since in another group
    double *stretch;             // each spring's stretch in the tuned mode (the shape as the tune found it), as springs
    int count;
    sb_particle_id *moving;      // the tuned mode's particles and its shape (x, y each), as the tune found them
    double *shape;
    int moving_count;
    bool by_stretch;             // the mode is mostly its springs' stretch: read from their lengths (a swing leaves those)
} sb_structure_record;

/// The tuned mode's shape, kept with the record: each spring's stretch, the particles' moves, and
/// whether its energy is mostly its springs' stretch.
typedef struct structure_shape {
    const double *stretch;            // per spring of the group, as given to structure_remember
    const sb_particle_id *moving;
    const double *shape;
    int moving_count;
    bool by_stretch;
} structure_shape;

/// Keeps a tuned group, replacing one of the same springs; false without memory (nothing kept).
bool structure_remember(sb_world *w, const sb_spring_id *springs, int n, double hertz, double damping_ratio,
                        const sb_structure_delivery *delivery, const structure_shape *shape);
/// What the structure spring is part of asks and delivers ("a structure of 6 springs asks 3 Hz at
/// damping ratio 0.05 and delivers ..."), into buf; 0 if the spring is in none.
int structure_record_say(const sb_world *w, sb_spring_id spring, char *buf, size_t size);
/// Tunes again each structure the world was tuned as under another method, sub-steps or
/// iterations than it steps with now, so that it delivers the mode it asked as the world now steps
/// (sb_world_set_def). A structure that can no longer be tuned keeps its springs as they are.
void structures_follow_def(sb_world *w);
/// The ids the world's records hold, all together.
int structure_record_ids(const sb_world *w);
/// Frees the world's records (sb_world_destroy).
void structure_records_free(sb_world *w);

#ifdef __cplusplus
}
#endif

#endif
