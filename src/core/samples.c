// Built-in scenes. Sizes and masses follow the benchmark definitions where
// one exists, so that tests, the headless runner and the benchmark see the same scene.
#include "sb_samples.h"

#include "sb_tuning.h"
#include "sb_world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sb_rng sb_rng_seed(uint64_t seed)
{
    // xorshift needs a state that is not 0; setting the low bit guarantees it without a
    // branch. The branch this replaces (`if (state == 0) state = C`) was miscompiled by
    // GCC 12.2 at -O2: it added the caller's rdx instead of C, so a scene's layout
    // depended on the build (tests/core_tests.c: rng_is_deterministic).
    sb_rng r = {(seed * 2685821657736338717ull + 0x9E3779B97F4A7C15ull) | 1u};
    return r;
}

double sb_rng_uniform(sb_rng *rng, double lo, double hi)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    double unit = (double)((x * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * unit;
}

static sb_particle_id add_point(sb_world *w, double x, double y, double mass, double radius, bool fixed)
{
    sb_particle_def p = sb_default_particle_def();
    p.position.x = x;
    p.position.y = y;
    p.mass = mass;
    p.radius = radius;
    p.fixed = fixed;
    return sb_world_add_particle(w, &p, NULL);
}

static void link(sb_world *w, sb_particle_id a, sb_particle_id b, sb_tuning tuning)
{
    sb_spring_def s = sb_default_spring_def();
    s.a = a;
    s.b = b;
    s.tuning = tuning;
    sb_world_add_spring(w, &s, NULL, NULL);
}

// A world from the base definition, with particle collisions on or off.
static sb_world *scene_world(const sb_world_def *base, bool collisions)
{
    sb_world_def def = *base;
    def.collisions = collisions;
    return sb_world_create(&def);
}

// A horizontal chain of `links` rigid links of `length`, its first particle fixed, 1 kg
// particles of radius 0.05 m and a last one of `end_mass` and `end_radius`.
static sb_world *rigid_chain(const sb_world_def *base, int links, double length, double end_mass, double end_radius)
{
    sb_world *w = scene_world(base, false);
    if (!w)
        return NULL;
    sb_particle_id prev = add_point(w, 0.0, 0.0, 1.0, 0.05, true);
    for (int i = 1; i <= links; ++i) {
        bool end = i == links;
        sb_particle_id p = add_point(w, length * i, 0.0, end ? end_mass : 1.0, end ? end_radius : 0.05, false);
        link(w, prev, p, sb_tuning_hertz(0.0, 1.0));
        prev = p;
    }
    return w;
}

/// Wrecking ball: `size` links of 0.25 m, first particle fixed, chain horizontal,
/// a 100 kg ball at the end and 1 kg elsewhere; rigid links (Nissen's demo, Nissen's "Stable Rigid Springs with Sequential Impulses").
static sb_world *build_wrecking_ball(const sb_world_def *base, int size)
{
    return rigid_chain(base, size, 0.25, 100.0, 0.5);
}

/// Rope: `size` segments of 0.2 m hanging from a fixed end, released from horizontal.
static sb_world *build_rope(const sb_world_def *base, int size)
{
    return rigid_chain(base, size, 0.2, 1.0, 0.05);
}

/// Cloth: size x size particles of 1 kg spaced 0.1 m, top row fixed, rigid springs between
/// horizontal and vertical neighbours, built with a 30% horizontal shear so it swings.
static sb_world *build_cloth(const sb_world_def *base, int size)
{
    sb_world *w = scene_world(base, false);
    if (!w)
        return NULL;
    const double spacing = 0.1;
    int n = size;
    sb_particle_id row_above[1024];
    if (n > 1024)
        n = 1024;
    for (int r = 0; r < n; ++r) {
        sb_particle_id left = sb_null_particle();
        for (int c = 0; c < n; ++c) {
            double y = -r * spacing;
            double x = c * spacing + 0.3 * r * spacing; // shear
            sb_particle_id p = add_point(w, x, y, 1.0, 0.02, r == 0);
            if (c > 0)
                link(w, left, p, sb_tuning_hertz(0.0, 1.0));
            if (r > 0)
                link(w, row_above[c], p, sb_tuning_hertz(0.0, 1.0));
            row_above[c] = p;
            left = p;
        }
    }
    // Rest lengths are the built distances: the sheared cloth starts unstretched, out of
    // balance, and swings.
    return w;
}

/// Truss bridge: a deck and a top chord with diagonals, pinned at both ends, a load in the middle.
static sb_world *build_bridge(const sb_world_def *base, int size)
{
    sb_world *w = scene_world(base, false);
    if (!w)
        return NULL;
    const double dx = 0.5, height = 0.5;
    sb_particle_id deck[256], top[256];
    int n = size < 2 ? 2 : size > 255 ? 255 : size;
    sb_tuning girder = sb_tuning_hertz(0.0, 1.0);
    for (int i = 0; i <= n; ++i) {
        bool end = i == 0 || i == n;
        deck[i] = add_point(w, i * dx, 0.0, 1.0, 0.05, end);
        top[i] = add_point(w, i * dx, height, 1.0, 0.05, false);
        link(w, deck[i], top[i], girder);
        if (i > 0) {
            link(w, deck[i - 1], deck[i], girder);
            link(w, top[i - 1], top[i], girder);
            link(w, (i % 2) ? deck[i - 1] : top[i - 1], (i % 2) ? top[i] : deck[i], girder);
        }
    }
    sb_particle_id load = add_point(w, n * dx / 2, -1.0, 20.0, 0.2, false);
    link(w, deck[n / 2], load, girder);
    return w;
}

/// Ball pit: circles of radius 0.05 to 0.1 m from a fixed seed dropped into a 10 m box.
static sb_world *build_ball_pit(const sb_world_def *base, int size)
{
    sb_world_def def = *base;
    def.collisions = true;
    def.has_bounds = true;
    const double width = 10.0;
    double rows = ceil(size / (width / 0.2));
    def.bounds = (sb_bounds){0.0, 0.0, width, 2.0 + rows * 0.25 + 10.0};
    sb_world *w = sb_world_create(&def);
    if (!w)
        return NULL;
    sb_rng rng = sb_rng_seed(4000);
    int per_row = (int)(width / 0.2) - 1;
    for (int i = 0; i < size; ++i) {
        int row = i / per_row, col = i % per_row;
        double r = sb_rng_uniform(&rng, 0.05, 0.1);
        double x = 0.2 + col * 0.2 + sb_rng_uniform(&rng, -0.02, 0.02);
        double y = 0.5 + row * 0.22;
        add_point(w, x, y, 1.0, r, false);
    }
    return w;
}

/// A column of equal circles resting on the floor: the jitter test of Boesch's "Verlet collision with impulse preservation".
static sb_world *build_stack(const sb_world_def *base, int size)
{
    sb_world_def def = *base;
    def.collisions = true;
    def.has_bounds = true;
    def.bounds = (sb_bounds){-2.0, 0.0, 2.0, 100.0};
    sb_world *w = sb_world_create(&def);
    if (!w)
        return NULL;
    for (int i = 0; i < size; ++i)
        add_point(w, 0.0, 0.25 + 0.5 * i, 1.0, 0.25, false);
    return w;
}

static const sb_sample samples[] = {
    {"wrecking_ball", "40 rigid links and a 100 kg ball swinging down from horizontal (Nissen's sequential-impulse article's demo)", 40, 100000, build_wrecking_ball},
    {"bridge", "a pinned truss bridge with a hanging load (Nissen's sequential-impulse article's demo)", 16, 255, build_bridge},
    {"rope", "a rigid rope falling from horizontal", 30, 100000, build_rope},
    {"cloth", "an N x N cloth pinned along its top row, sheared so it swings", 32, 1000, build_cloth},
    {"ball_pit", "N circles of mixed sizes dropped into a 10 m box (Boesch's Verlet article's demo)", 400, 1000000, build_ball_pit},
    {"stack", "a column of circles resting on the floor", 6, 10000, build_stack},
};

const sb_sample *sb_samples(int *count)
{
    *count = (int)(sizeof samples / sizeof samples[0]);
    return samples;
}

const sb_sample *sb_sample_find(const char *name)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i)
        if (name && strcmp(samples[i].name, name) == 0)
            return &samples[i];
    return NULL;
}
