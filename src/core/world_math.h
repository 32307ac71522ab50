// The small helpers every part of the world uses: 2D vector arithmetic, the range checks that
// name a bad field, and the growing arrays (their bodies in world.c).
#ifndef SB_WORLD_MATH_H
#define SB_WORLD_MATH_H

#include "sb_types.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline sb_vec2 v2(double x, double y) { sb_vec2 r = {x, y}; return r; }
static inline sb_vec2 v2_add(sb_vec2 a, sb_vec2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline sb_vec2 v2_sub(sb_vec2 a, sb_vec2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline sb_vec2 v2_scale(sb_vec2 a, double s) { return v2(a.x * s, a.y * s); }
static inline sb_vec2 v2_mad(sb_vec2 a, double s, sb_vec2 b) { return v2(a.x + s * b.x, a.y + s * b.y); }
static inline double v2_dot(sb_vec2 a, sb_vec2 b) { return a.x * b.x + a.y * b.y; }
static inline double v2_len(sb_vec2 a) { return sqrt(a.x * a.x + a.y * a.y); }
static inline bool v2_finite(sb_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

/// realloc *p to `cap` elements of `elem` bytes; false, with *p unchanged, when memory is short.
bool array_grow(void **p, size_t elem, int cap);
#define ARRAY_GROW(arr, cap) array_grow((void **)&(arr), sizeof *(arr), (cap))
/// Makes room for `need` elements, doubling *cap from 16; false when memory is short.
bool array_reserve(void **p, int *cap, int need, size_t elem);
#define ARRAY_RESERVE(arr, cap, need) array_reserve((void **)&(arr), &(cap), (need), sizeof *(arr))
/// Frees each of `n` arrays (a part's *_free); FREE_ARRAYS(a, b, ...) names them.
void free_arrays(void *const *arrays, size_t n);
#define FREE_ARRAYS(...) free_arrays((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

static inline bool field_bad(bool ok, const char *name, const char **bad_field)
{
    if (!ok && bad_field)
        *bad_field = name;
    return !ok;
}

static inline bool in_range(double v, double lo, double hi) { return isfinite(v) && v >= lo && v <= hi; }

static inline bool in_coord(double v) { return in_range(v, -SB_MAX_COORD, SB_MAX_COORD); }

static inline bool in_speed(double v) { return in_range(v, -SB_MAX_SPEED, SB_MAX_SPEED); }

/// Positions the world accepts: finite and within SB_MAX_COORD of the origin, as particles.
static inline bool in_world(sb_vec2 p) { return in_coord(p.x) && in_coord(p.y); }

// memcpy with a null pointer is undefined even for zero bytes, and an empty world has none.
static inline void copy_array(void *dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        memcpy(dst, src, bytes);
}

#endif
