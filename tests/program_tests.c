// Tests of what scene programs ask of the core (issue "scenes as programs"): forces and impulses
// from a script, springs that break, collision filtering, contact events and queries. Each
// measures motion or compares with a brute-force answer, in every method where motion is involved.
#include "sb_tuning.h"
#include "sb_world.h"

#include "ensure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sb_vec2 vec(double x, double y) { sb_vec2 v = {x, y}; return v; }

static sb_particle_id add(sb_world *w, double x, double y, double mass, bool fixed)
{
    sb_particle_def p = sb_default_particle_def();
    p.position = vec(x, y);
    p.mass = mass;
    p.fixed = fixed;
    return sb_world_add_particle(w, &p, NULL);
}

static sb_particle_def get(const sb_world *w, sb_particle_id id)
{
    sb_particle_def d;
    sb_particle_get(w, id, &d);
    return d;
}

static sb_world *world_of(sb_method m, int substeps, sb_vec2 gravity)
{
    sb_world_def d = sb_default_world_def();
    d.method = m;
    d.substeps = substeps;
    d.gravity = gravity;
    return sb_world_create(&d);
}

// A force from a script acts on every sub-step of the frame it was given for, in every method:
// a constant force held for T seconds gives exactly F T / m of velocity and F T^2 / 2m of travel
// (up to the one-sub-step lag of symplectic integration), and one frame's force is gone after it.
TEST(applied_force_acts_on_every_substep)
{
    const int sub[] = {1, 3, 8};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int si = 0; si < 3; ++si) {
            sb_world *w = world_of((sb_method)m, sub[si], vec(0, 0));
            sb_particle_id p = add(w, 0, 0, 2.0, false);
            const double f = 3.0, dt = sb_world_get_def(w).dt, h = dt / sub[si];
            const int frames = 60;
            for (int i = 0; i < frames; ++i) {
                ENSURE(sb_particle_apply_force(w, p, vec(f, 0)) == SB_OK);
                ENSURE(sb_world_step(w) == SB_OK);
            }
            double t = frames * dt, a = f / 2.0;
            ENSURE_NEAR(get(w, p).velocity.x, a * t, 1e-9);
            // symplectic Euler: x = a t (t + h) / 2. Verlet's accelerate step (x += a h^2, which
            // inertia then doubles; seed 004) runs 1.5 sub-steps of velocity ahead, as under gravity.
            double lead = m == SB_METHOD_VERLET ? 1.5 : 0.5;
            ENSURE_NEAR(get(w, p).position.x, 0.5 * a * t * t + lead * a * t * h, 1e-9);
            ENSURE(sb_world_step(w) == SB_OK); // no force this frame: it was for one frame only
            ENSURE_NEAR(get(w, p).velocity.x, a * t, 1e-9);
            sb_world_destroy(w);
        }
    }
    return 0;
}

// An applied force and gravity are the same thing to a spring: a 3 Hz spring pulled sideways by
// m g sags as far as one hanging under gravity, in every method, at 1 and 8 sub-steps, and the
// force the spring reports is the load it holds.
TEST(applied_force_loads_a_spring_like_gravity)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int sub = 1; sub <= 8; sub += 7) {
            double sag[2], force[2];
            for (int pull = 0; pull < 2; ++pull) {
                sb_world *w = world_of((sb_method)m, sub, pull ? vec(0, 0) : vec(9.81, 0));
                sb_particle_id a = add(w, 0, 0, 1, true), b = add(w, 1, 0, 2.0, false);
                sb_spring_def sd = sb_default_spring_def();
                sd.a = a;
                sd.b = b;
                sd.tuning = sb_tuning_hertz(3.0, 0.7);
                sb_spring_id s = sb_world_add_spring(w, &sd, NULL, NULL);
                for (int i = 0; i < 600; ++i) {
                    if (pull)
                        sb_particle_apply_force(w, b, vec(2.0 * 9.81, 0));
                    sb_world_step(w);
                }
                sag[pull] = get(w, b).position.x - 1.0;
                force[pull] = sb_spring_force(w, s);
                sb_world_destroy(w);
            }
            ENSURE_NEAR(sag[1], sag[0], 1e-9);
            ENSURE(sag[0] > 0.01);
            ENSURE_NEAR(force[1], 2.0 * 9.81, 1e-3);
            ENSURE_NEAR(force[0], 2.0 * 9.81, 1e-3);
        }
    }
    return 0;
}

TEST(impulse_changes_velocity_by_impulse_over_mass)
{
    sb_world *w = world_of(SB_METHOD_SOFT, 4, vec(0, 0));
    sb_particle_id p = add(w, 0, 0, 4.0, false), f = add(w, 1, 0, 4.0, true);
    ENSURE(sb_particle_apply_impulse(w, p, vec(2.0, -1.0)) == SB_OK);
    ENSURE_NEAR(get(w, p).velocity.x, 0.5, 1e-15);
    ENSURE_NEAR(get(w, p).velocity.y, -0.25, 1e-15);
    ENSURE(sb_particle_apply_impulse(w, f, vec(2.0, 0)) == SB_OK);
    ENSURE(get(w, f).velocity.x == 0.0); // fixed: infinite mass
    ENSURE(sb_particle_apply_impulse(w, p, vec(NAN, 0)) == SB_ERR_INVALID);
    ENSURE(sb_particle_apply_force(w, p, vec(INFINITY, 0)) == SB_ERR_INVALID);
    ENSURE(sb_particle_apply_impulse(w, p, vec(1e15, 0)) == SB_ERR_INVALID); // 2.5e14 m/s
    ENSURE_NEAR(get(w, p).velocity.x, 0.5, 1e-15); // a refused call changes nothing
    sb_world_remove_particle(w, p);
    ENSURE(sb_particle_apply_force(w, p, vec(1, 0)) == SB_ERR_STALE);
    sb_world_destroy(w);
    return 0;
}

// The weight a rope holds, in every method and at 1 and 4 sub-steps: a rope rated for 1.4 m g
// holds it for seconds, one rated for 0.7 m g parts within the first frames; the break is
// reported with the force it carried and the spring is gone. A stretchy 2 Hz spring rated for a
// stretch below its static sag g / w^2 (6.2%) breaks, one rated above its overshoot does not.
TEST(springs_break_at_their_thresholds)
{
    const int sub[] = {1, 4};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int si = 0; si < 2; ++si) {
            for (int strong = 0; strong < 2; ++strong) {
                sb_world *w = world_of((sb_method)m, sub[si], vec(0, -9.81));
                sb_particle_id top = add(w, 0, 0, 1, true), bob = add(w, 0, -1, 3.0, false);
                sb_spring_def sd = sb_default_spring_def();
                sd.a = top;
                sd.b = bob;
                sd.break_force = (strong ? 1.4 : 0.7) * 3.0 * 9.81;
                sb_spring_id s = sb_world_add_spring(w, &sd, NULL, NULL);
                int broke_at = -1;
                double force = 0.0;
                for (int i = 0; i < 180 && broke_at < 0; ++i) {
                    sb_world_step(w);
                    const sb_break_event *e;
                    if (sb_world_break_events(w, &e) == 1) {
                        broke_at = i;
                        force = e->force;
                        ENSURE(e->spring.index == s.index && e->b.index == bob.index);
                    }
                }
                if (strong) {
                    ENSURE(broke_at < 0);
                    ENSURE(sb_spring_is_valid(w, s));
                    ENSURE_NEAR(sb_spring_force(w, s), 3.0 * 9.81, 0.05 * 3.0 * 9.81);
                } else {
                    if (broke_at < 0 || broke_at > 3)
                        fprintf(stderr, "method %s substeps %d: broke at frame %d\n", sb_method_name((sb_method)m), sub[si], broke_at);
                    ENSURE(broke_at >= 0 && broke_at <= 3);
                    ENSURE(force > sd.break_force);
                    ENSURE(!sb_spring_is_valid(w, s));
                    ENSURE(sb_world_get_stats(w)->broken_springs == 1);
                    sb_world_step(w); // the bob falls free
                    ENSURE(get(w, bob).velocity.y < -0.1);
                    ENSURE(sb_world_break_events(w, &(const sb_break_event *){0}) == 0);
                }
                sb_world_destroy(w);
            }
            for (int strong = 0; strong < 2; ++strong) {
                sb_world *w = world_of((sb_method)m, sub[si], vec(0, -9.81));
                sb_particle_id top = add(w, 0, 0, 1, true), bob = add(w, 0, -1, 1.0, false);
                sb_spring_def sd = sb_default_spring_def();
                sd.a = top;
                sd.b = bob;
                sd.tuning = sb_tuning_hertz(2.0, 1.0);
                sd.break_stretch = strong ? 0.09 : 0.04;
                sb_spring_id s = sb_world_add_spring(w, &sd, NULL, NULL);
                for (int i = 0; i < 240; ++i)
                    sb_world_step(w);
                ENSURE(sb_spring_is_valid(w, s) == (bool)strong);
                sb_world_destroy(w);
            }
        }
    }
    sb_world *w = world_of(SB_METHOD_SOFT, 4, vec(0, 0));
    sb_particle_id a = add(w, 0, 0, 1, false), b = add(w, 1, 0, 1, false);
    sb_spring_def sd = sb_default_spring_def();
    sd.a = a;
    sd.b = b;
    sd.break_force = -1.0;
    const char *bad = NULL;
    sb_status st;
    ENSURE(sb_world_add_spring(w, &sd, &st, &bad).generation == 0 && st == SB_ERR_INVALID);
    ENSURE(bad && !strcmp(bad, "break_force"));
    sd.break_force = 0.0;
    sd.break_stretch = NAN;
    ENSURE(sb_world_add_spring(w, &sd, &st, &bad).generation == 0 && !strcmp(bad, "break_stretch"));
    sb_world_destroy(w);
    return 0;
}

// Box2D's filter: a ball dropped onto another falls through exactly when the rules say they
// do not collide.
TEST(collision_filter_follows_box2d_rules)
{
    struct { int32_t ga, gb; uint32_t ca, ma, cb, mb; bool collide; } cases[] = {
        {0, 0, 1, 0xFFFFFFFF, 1, 0xFFFFFFFF, true},
        {-1, -1, 1, 0xFFFFFFFF, 1, 0xFFFFFFFF, false}, // same negative group: never
        {2, 2, 1, 0, 1, 0, true},                      // same positive group: always, masks aside
        {-1, -2, 1, 0xFFFFFFFF, 1, 0xFFFFFFFF, true},  // different groups: masks decide
        {0, 0, 2, 0xFFFFFFFF, 1, ~2u, false},          // b's mask leaves out a's category
        {0, 0, 2, 0x1, 1, 0x2, true},
        {0, 0, 2, 0x4, 1, 0x2, false},                 // a's mask leaves out b's category
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int m = 0; m < SB_METHOD_COUNT; ++m) {
            sb_world *w = world_of((sb_method)m, 4, vec(0, -9.81));
            sb_particle_def pd = sb_default_particle_def();
            pd.radius = 0.2;
            pd.fixed = true;
            pd.group = cases[c].ga;
            pd.category = cases[c].ca;
            pd.mask = cases[c].ma;
            sb_world_add_particle(w, &pd, NULL);
            pd.fixed = false;
            pd.position = vec(0, 1);
            pd.group = cases[c].gb;
            pd.category = cases[c].cb;
            pd.mask = cases[c].mb;
            sb_particle_id ball = sb_world_add_particle(w, &pd, NULL);
            for (int i = 0; i < 120; ++i)
                sb_world_step(w);
            bool resting = get(w, ball).position.y > 0.3;
            if (resting != cases[c].collide)
                fprintf(stderr, "case %zu, %s: ball at y %g\n", c, sb_method_name((sb_method)m), get(w, ball).position.y);
            ENSURE(resting == cases[c].collide);
            sb_world_destroy(w);
        }
    }
    return 0;
}

static int count_events(const sb_world *w, bool begins, sb_particle_id p)
{
    const sb_contact_event *b, *e;
    int nb, ne, n = 0;
    sb_world_contact_events(w, &b, &nb, &e, &ne);
    const sb_contact_event *list = begins ? b : e;
    for (int i = 0; i < (begins ? nb : ne); ++i)
        n += list[i].a.index == p.index || list[i].b.index == p.index;
    return n;
}

// A ball that asked for events lands on a floor: one begin naming the floor; it is knocked up:
// one end. A neighbour that did not ask reports nothing, and its landing on the first ball
// reports through the first ball.
TEST(contact_events_begin_and_end)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world *w = world_of((sb_method)m, 4, vec(0, -9.81));
        sb_wall_id floor = sb_world_add_wall(w, vec(-5, 0), vec(5, 0), NULL);
        sb_particle_def pd = sb_default_particle_def();
        pd.radius = 0.1;
        pd.position = vec(0, 0.5);
        pd.events = true;
        sb_particle_id ball = sb_world_add_particle(w, &pd, NULL);
        pd.events = false;
        pd.position = vec(3, 0.5);
        sb_particle_id quiet = sb_world_add_particle(w, &pd, NULL);
        int begins = 0, ends = 0, quiet_events = 0;
        for (int i = 0; i < 90; ++i) {
            sb_world_step(w);
            const sb_contact_event *b, *e;
            int nb, ne;
            sb_world_contact_events(w, &b, &nb, &e, &ne);
            for (int k = 0; k < nb; ++k) {
                ENSURE(b[k].a.index == ball.index && b[k].wall.index == floor.index && b[k].b.generation == 0);
                begins += 1;
            }
            ends += ne;
            quiet_events += count_events(w, true, quiet) + count_events(w, false, quiet);
        }
        ENSURE(begins == 1 && ends == 0 && quiet_events == 0);
        sb_particle_apply_impulse(w, ball, vec(0, 5));
        for (int i = 0; i < 10; ++i) {
            sb_world_step(w);
            ends += count_events(w, false, ball);
        }
        ENSURE(ends == 1);
        // the quiet ball dropped onto the ball that listens: reported, naming both
        sb_particle_def q = get(w, quiet);
        q.position = vec(0, 2.0);
        q.velocity = vec(0, 0);
        sb_particle_set(w, quiet, &q, NULL);
        int pair_begins = 0;
        for (int i = 0; i < 120; ++i) {
            sb_world_step(w);
            const sb_contact_event *b, *e;
            int nb, ne;
            sb_world_contact_events(w, &b, &nb, &e, &ne);
            for (int k = 0; k < nb; ++k)
                pair_begins += b[k].b.index == quiet.index || b[k].a.index == quiet.index;
        }
        ENSURE(pair_begins >= 1);
        sb_world_destroy(w);
    }
    return 0;
}

// A world with no listening particle keeps no event state at all (the ball pit pays nothing).
TEST(no_events_without_listeners)
{
    sb_world *w = world_of(SB_METHOD_SOFT, 4, vec(0, -9.81));
    sb_world_add_wall(w, vec(-5, 0), vec(5, 0), NULL);
    for (int i = 0; i < 200; ++i)
        add(w, -2.0 + 0.11 * (i % 40), 0.2 + 0.11 * (i / 40), 1, false);
    for (int i = 0; i < 60; ++i)
        sb_world_step(w);
    const sb_contact_event *b, *e;
    int nb, ne;
    sb_world_contact_events(w, &b, &nb, &e, &ne);
    ENSURE(nb == 0 && ne == 0 && b == NULL && e == NULL);
    ENSURE(sb_world_get_stats(w)->contacts > 100);
    sb_world_destroy(w);
    return 0;
}

static unsigned rng_state = 12345u;
static double rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) / 16777216.0;
}

// Box queries against a brute-force test of every circle; ray casts against the analytic hit.
TEST(queries_find_particles_and_walls)
{
    sb_world *w = world_of(SB_METHOD_SOFT, 4, vec(0, 0));
    sb_particle_id ids[300];
    for (int i = 0; i < 300; ++i) {
        sb_particle_def pd = sb_default_particle_def();
        pd.position = vec(rnd() * 20 - 10, rnd() * 20 - 10);
        pd.radius = rnd() * 0.5;
        ids[i] = sb_world_add_particle(w, &pd, NULL);
    }
    for (int q = 0; q < 50; ++q) {
        double x0 = rnd() * 20 - 10, y0 = rnd() * 20 - 10;
        sb_bounds box = {x0, y0, x0 + rnd() * 6, y0 + rnd() * 6};
        sb_particle_id out[300];
        int n = sb_world_query_box(w, box, out, 300), expect = 0;
        for (int i = 0; i < 300; ++i) {
            sb_particle_def d = get(w, ids[i]);
            double cx = fmin(fmax(d.position.x, box.xmin), box.xmax), cy = fmin(fmax(d.position.y, box.ymin), box.ymax);
            bool in = hypot(d.position.x - cx, d.position.y - cy) <= d.radius;
            bool found = false;
            for (int k = 0; k < n; ++k)
                found = found || out[k].index == ids[i].index;
            ENSURE(in == found);
            expect += in;
        }
        ENSURE(n == expect);
        ENSURE(sb_world_query_box(w, box, out, 1) == expect); // the count, past the capacity
    }
    sb_world_destroy(w);

    w = world_of(SB_METHOD_SOFT, 4, vec(0, 0));
    sb_particle_def pd = sb_default_particle_def();
    pd.position = vec(5, 0.3);
    pd.radius = 0.5;
    sb_particle_id ball = sb_world_add_particle(w, &pd, NULL);
    sb_wall_id wall = sb_world_add_wall(w, vec(8, -1), vec(8, 1), NULL);
    sb_ray_hit hit = sb_world_raycast(w, vec(0, 0), vec(10, 0));
    ENSURE(hit.hit && hit.particle.index == ball.index && hit.wall.generation == 0);
    double x = 5 - sqrt(0.25 - 0.09); // where y = 0 enters the circle
    ENSURE_NEAR(hit.point.x, x, 1e-12);
    ENSURE_NEAR(hit.fraction, x / 10, 1e-12);
    ENSURE_NEAR(hit.normal.x, (x - 5) / 0.5, 1e-12);
    ENSURE_NEAR(hit.normal.y, -0.3 / 0.5, 1e-12);
    hit = sb_world_raycast(w, vec(0, 2), vec(10, -2)); // passes over the ball? y at x=5 is 0: hits
    ENSURE(hit.hit && hit.particle.index == ball.index);
    hit = sb_world_raycast(w, vec(0, 0.9), vec(10, 0.9)); // above the ball: the wall
    ENSURE(hit.hit && hit.wall.index == wall.index && hit.particle.generation == 0);
    ENSURE_NEAR(hit.point.x, 8, 1e-12);
    ENSURE_NEAR(hit.normal.x, -1, 1e-12);
    hit = sb_world_raycast(w, vec(0, 0.9), vec(7, 0.9)); // stops short of the wall
    ENSURE(!hit.hit && hit.fraction == 1.0);
    sb_world_destroy(w);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(applied_force_acts_on_every_substep),
    ENTRY(applied_force_loads_a_spring_like_gravity),
    ENTRY(impulse_changes_velocity_by_impulse_over_mass),
    ENTRY(springs_break_at_their_thresholds),
    ENTRY(collision_filter_follows_box2d_rules),
    ENTRY(contact_events_begin_and_end),
    ENTRY(no_events_without_listeners),
    ENTRY(queries_find_particles_and_walls),
};

int main(int argc, char **argv)
{
    return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
