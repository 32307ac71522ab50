// The groups a world was tuned as (structure_record.h, sb_structure_of): the latest tune of a
// spring's group is its structure. A spring belongs to one record at most: a new tune takes its
// springs out of the older records, and a record left with no live spring is dropped, so the
// records never hold more ids than the world has springs, however often and in whatever order a
// scene retunes.
#include "sb_structure.h"
#include "structure_record.h"
#include "world_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int id_order(const void *pa, const void *pb)
{
    const sb_spring_id *a = pa, *b = pb;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->generation < b->generation ? -1 : a->generation > b->generation;
}

/// Whether `id` is in the sorted list.
static bool holds(const sb_structure_record *r, sb_spring_id id)
{
    return bsearch(&id, r->springs, (size_t)r->count, sizeof id, id_order) != NULL;
}

/// Takes out of `r` every spring `taken` holds and every spring no longer in the world.
static void take_out(const sb_world *w, sb_structure_record *r, const sb_structure_record *taken)
{
    int kept = 0;
    for (int k = 0; k < r->count; ++k)
        if (!holds(taken, r->springs[k]) && sb_spring_is_valid(w, r->springs[k])) {
            r->stretch[kept] = r->stretch[k];
            r->springs[kept++] = r->springs[k];
        }
    r->count = kept;
}

static void record_free(sb_structure_record *r)
{
    free(r->springs);
    free(r->stretch);
    free(r->moving);
    free(r->shape);
}

/// The springs in slot order, each with its stretch in the mode.
typedef struct spring_stretch { sb_spring_id id; double stretch; } spring_stretch;

static int stretch_order(const void *a, const void *b)
{
    return id_order(&((const spring_stretch *)a)->id, &((const spring_stretch *)b)->id);
}

bool structure_remember(sb_world *w, const sb_spring_id *springs, int n, double hertz, double damping_ratio,
                        const sb_structure_delivery *delivery, const structure_shape *shape)
{
    const int moving = shape ? shape->moving_count : 0;
    sb_structure_record fresh = {hertz, damping_ratio, *delivery, malloc(sizeof(sb_spring_id) * (size_t)n),
                                 malloc(sizeof(double) * (size_t)n), n,
                                 malloc(sizeof(sb_particle_id) * (size_t)(moving > 0 ? moving : 1)),
                                 malloc(sizeof(double) * 2 * (size_t)(moving > 0 ? moving : 1)), moving,
                                 shape && shape->by_stretch};
    spring_stretch *order = malloc(sizeof *order * (size_t)n);
    if (!fresh.springs || !fresh.stretch || !fresh.moving || !fresh.shape || !order ||
        !ARRAY_RESERVE(w->structures, w->structure_cap, w->structure_count + 1)) {
        record_free(&fresh);
        free(order);
        return false;
    }
    for (int i = 0; i < n; ++i)
        order[i] = (spring_stretch){springs[i], shape ? shape->stretch[i] : 0.0};
    qsort(order, (size_t)n, sizeof *order, stretch_order);
    for (int i = 0; i < n; ++i) {
        fresh.springs[i] = order[i].id;
        fresh.stretch[i] = order[i].stretch;
    }
    free(order);
    if (moving > 0) {
        memcpy(fresh.moving, shape->moving, sizeof *fresh.moving * (size_t)moving);
        memcpy(fresh.shape, shape->shape, sizeof *fresh.shape * 2 * (size_t)moving);
    }
    int kept = 0;
    for (int i = 0; i < w->structure_count; ++i) {
        sb_structure_record *r = &w->structures[i];
        take_out(w, r, &fresh);
        if (r->count == 0)
            record_free(r);
        else
            w->structures[kept++] = *r;
    }
    w->structure_count = kept;
    w->structures[w->structure_count++] = fresh;
    return true;
}

void structure_records_free(sb_world *w)
{
    for (int i = 0; i < w->structure_count; ++i)
        record_free(&w->structures[i]);
    free(w->structures);
    w->structures = NULL;
    w->structure_count = w->structure_cap = 0;
}

bool sb_structure_of(const sb_world *w, sb_spring_id spring, double *hertz, double *damping_ratio,
                     const sb_spring_id **springs, int *count)
{
    for (int i = w->structure_count - 1; i >= 0; --i) { // a spring is in one record at most
        const sb_structure_record *r = &w->structures[i];
        if (holds(r, spring)) {
            *hertz = r->hertz;
            *damping_ratio = r->damping_ratio;
            *springs = r->springs;
            *count = r->count;
            return true;
        }
    }
    return false;
}

/// Appends to buf (size bytes, `used` of them taken), cut at its end.
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size)
        return;
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, args);
    va_end(args);
    *used = n < 0 ? size : *used + (size_t)n < size ? *used + (size_t)n : size;
}

/// What a record asks and its delivery says: "a structure of N springs asks F Hz at damping
/// ratio Z and delivers ...".
static int say_delivery(const sb_structure_record *r, char *buf, size_t size)
{
    const sb_structure_delivery *d = &r->delivery;
    const char *subs = d->substeps == 1 ? "" : "s";
    size_t used = 0;
    append(buf, size, &used, "a structure of %d spring%s asks %.3g Hz at damping ratio %.3g", r->count,
           r->count == 1 ? "" : "s", r->hertz, r->damping_ratio);
    if (!d->measured)
        append(buf, size, &used, "; its mode was not measured as %s steps it at %d sub-step%s (too fast for the frames "
                                 "or too large to run within a tune)",
               sb_method_name(d->method), d->substeps, subs);
    else if (d->ran_away)
        append(buf, size, &used, " and runs away with %s at %d sub-step%s", sb_method_name(d->method), d->substeps, subs);
    else
        append(buf, size, &used, " and delivers %.3g Hz at %.3g with %s at %d sub-step%s", d->hertz, d->damping_ratio,
               sb_method_name(d->method), d->substeps, subs);
    if (d->delivered)
        append(buf, size, &used, ": as its springs allow");
    else if (d->measured && d->substeps_needed > 0)
        append(buf, size, &used, ": %d would do", d->substeps_needed);
    else if (d->measured && !d->delivered)
        append(buf, size, &used, ": up to 64 sub-steps do not");
    if (d->damping_reachable < r->damping_ratio - 0.01)
        append(buf, size, &used, " (its dampers, along its springs, give a swing across them %.3g at most)",
               d->damping_reachable);
    return (int)used;
}

int sb_world_structure_message(const sb_world *w, char *buf, size_t size)
{
    for (int i = 0; i < w->structure_count; ++i) {
        const sb_structure_record *r = &w->structures[i];
        const sb_structure_delivery *d = &r->delivery;
        if (r->count > 0 && d->measured && (!d->delivered || d->damping_reachable < r->damping_ratio - 0.01))
            return say_delivery(r, buf, size);
    }
    if (size > 0)
        buf[0] = '\0';
    return 0;
}

int structure_record_say(const sb_world *w, sb_spring_id spring, char *buf, size_t size)
{
    for (int i = 0; i < w->structure_count; ++i)
        if (holds(&w->structures[i], spring))
            return say_delivery(&w->structures[i], buf, size);
    return 0;
}

bool sb_structure_coordinate(const sb_world *w, sb_spring_id spring, double *q, bool *by_stretch)
{
    const sb_structure_record *r = NULL;
    for (int i = 0; i < w->structure_count && !r; ++i)
        if (holds(&w->structures[i], spring))
            r = &w->structures[i];
    if (!r)
        return false;
    double sum = 0.0, weight = 0.0;
    if (r->by_stretch) { // the springs' lengths along the mode's stretch: a least-squares fit of q e_s to them
        for (int k = 0; k < r->count; ++k) {
            if (!sb_spring_is_valid(w, r->springs[k]))
                continue;
            sum += r->stretch[k] * sb_spring_length(w, r->springs[k]);
            weight += r->stretch[k] * r->stretch[k];
        }
    } else { // the particles' positions along the mode's shape, weighted by mass
        for (int i = 0; i < r->moving_count; ++i) {
            sb_particle_def p;
            if (sb_particle_get(w, r->moving[i], &p) != SB_OK)
                continue;
            sum += p.mass * (r->shape[2 * i] * p.position.x + r->shape[2 * i + 1] * p.position.y);
            weight += p.mass * (r->shape[2 * i] * r->shape[2 * i] + r->shape[2 * i + 1] * r->shape[2 * i + 1]);
        }
    }
    *q = weight > 0.0 ? sum / weight : 0.0;
    *by_stretch = r->by_stretch;
    return true;
}

int structure_record_ids(const sb_world *w)
{
    int total = 0;
    for (int i = 0; i < w->structure_count; ++i)
        total += w->structures[i].count;
    return total;
}
