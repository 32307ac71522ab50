// The groups a world was tuned as (structure_record.h, sb_structure_of): the latest tune of a
// spring's group is its structure; a group retuned with the same springs replaces its record.
#include "sb_structure.h"
#include "structure_record.h"
#include "world_internal.h"

#include <stdlib.h>
#include <string.h>

static bool same_springs(const sb_structure_record *r, const sb_spring_id *springs, int n)
{
    return r->count == n && memcmp(r->springs, springs, sizeof *springs * (size_t)n) == 0;
}

bool structure_remember(sb_world *w, const sb_spring_id *springs, int n, double hertz, double damping_ratio)
{
    for (int i = 0; i < w->structure_count; ++i)
        if (same_springs(&w->structures[i], springs, n)) {
            w->structures[i].hertz = hertz;
            w->structures[i].damping_ratio = damping_ratio;
            return true;
        }
    sb_spring_id *copy = malloc(sizeof *copy * (size_t)n);
    if (!copy || !array_reserve((void **)&w->structures, &w->structure_cap, w->structure_count + 1, sizeof *w->structures)) {
        free(copy);
        return false;
    }
    memcpy(copy, springs, sizeof *copy * (size_t)n);
    w->structures[w->structure_count++] = (sb_structure_record){hertz, damping_ratio, copy, n};
    return true;
}

void structure_records_free(sb_world *w)
{
    for (int i = 0; i < w->structure_count; ++i)
        free(w->structures[i].springs);
    free(w->structures);
    w->structures = NULL;
    w->structure_count = w->structure_cap = 0;
}

bool sb_structure_of(const sb_world *w, sb_spring_id spring, double *hertz, double *damping_ratio,
                     const sb_spring_id **springs, int *count)
{
    for (int i = w->structure_count - 1; i >= 0; --i) { // the latest tune first
        const sb_structure_record *r = &w->structures[i];
        for (int k = 0; k < r->count; ++k)
            if (r->springs[k].index == spring.index && r->springs[k].generation == spring.generation) {
                *hertz = r->hertz;
                *damping_ratio = r->damping_ratio;
                *springs = r->springs;
                *count = r->count;
                return true;
            }
    }
    return false;
}
