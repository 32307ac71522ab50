// The benchmark's other reports: the README's table of what each method guarantees
// (--guarantees), measured from simulated motion, and what snapshots cost (--snapshots).
#define _POSIX_C_SOURCE 200809L
#include "bench_internal.h"
#include "motion.h"
#include "sb_pool.h"
#include "sb_samples.h"
#include "sb_tuning.h"
#include "sb_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ---------------------------------------------------------------- what each method guarantees

/// A lone spring (1 kg on a spring to a fixed point, no gravity, released 0.1 m out) at
/// `substeps`: the relative error of its damped frequency and the error of its damping ratio,
/// measured over 10 s of frames (tests/motion.h).
static void lone_spring_errors(sb_method method, int substeps, double hertz, double zeta, double *f_err, double *z_err)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.gravity = (sb_vec2){0.0, 0.0};
    sb_world *w = sb_world_create(&def);
    sb_particle_def p = sb_default_particle_def();
    p.fixed = true;
    sb_particle_id a = sb_world_add_particle(w, &p, NULL);
    p.fixed = false;
    p.position.x = 1.1;
    sb_particle_id b = sb_world_add_particle(w, &p, NULL);
    sb_spring_def sd = sb_default_spring_def();
    sd.a = a;
    sd.b = b;
    sd.rest_length = 1.0;
    sd.tuning = sb_tuning_hertz(hertz, zeta);
    sb_world_add_spring(w, &sd, NULL, NULL);
    double x[600];
    for (int f = 0; f < 600; ++f) {
        sb_world_step(w);
        sb_particle_get(w, b, &p);
        x[f] = p.position.x - 1.0;
    }
    sb_world_destroy(w);
    oscillation o = measure(x, 600, def.dt);
    *f_err = o.hertz / (hertz * sqrt(1.0 - zeta * zeta)) - 1.0;
    *z_err = o.zeta - zeta;
}

/// A particle that does not turn (a block; a ball would roll), radius 0.1 m, on a wall sloping
/// down at 30 degrees with mu 0.3, released at rest: the relative error of its acceleration from
/// 0.5 s to 2.5 s against g (sin - mu cos).
static double slope_friction_error(sb_method method, int substeps)
{
    const double th = 30.0 * 3.14159265358979 / 180.0, mu = 0.3, r = 0.1;
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.friction = mu;
    sb_world *w = sb_world_create(&def);
    sb_world_add_wall(w, (sb_vec2){0, 0}, (sb_vec2){60.0 * cos(th), -60.0 * sin(th)}, NULL);
    sb_particle_def p = sb_default_particle_def();
    p.position = (sb_vec2){cos(th) + sin(th) * r, -sin(th) + cos(th) * r};
    p.radius = r;
    p.rolling = SB_ROLLING_OFF;
    sb_particle_id id = sb_world_add_particle(w, &p, NULL);
    double v[2] = {0, 0};
    for (int f = 0; f < 150; ++f) {
        sb_world_step(w);
        sb_particle_get(w, id, &p);
        if (f == 29)
            v[0] = hypot(p.velocity.x, p.velocity.y);
    }
    v[1] = hypot(p.velocity.x, p.velocity.y);
    sb_world_destroy(w);
    double want = -def.gravity.y * (sin(th) - mu * cos(th));
    return (v[1] - v[0]) / 2.0 / want - 1.0;
}

/// A network's lowest mode: `n` x `rows` particles of 1 kg joined by `hertz`, zeta 0.02
/// springs along rows, columns and diagonals (rows == 1: a chain along x from a fixed particle), pinned at
/// the top corners; released from the shape the reference (force at 60 sub-steps, heavily
/// damped) sags to under g along -y, with no gravity, it swings mostly in its lowest mode.
/// Returns the damped frequency of the bottom middle particle's y over 10 s; *clamped: the
/// springs the world reported it could not deliver.
static double network_mode(sb_method method, int substeps, int n, int rows, double hertz, int *clamped)
{
    sb_vec2 start[64];
    for (int pass = 0; pass < 2; ++pass) {
        sb_world_def def = sb_default_world_def();
        def.method = pass == 0 ? SB_METHOD_FORCE : method;
        def.substeps = pass == 0 ? 60 : substeps;
        def.gravity = pass == 0 ? (sb_vec2){rows == 1 ? 9.81 : 0.0, rows == 1 ? 0.0 : -9.81} : (sb_vec2){0.0, 0.0};
        def.collisions = false;
        sb_world *w = sb_world_create(&def);
        sb_particle_id id[64], anchor = sb_null_particle();
        int count = 0;
        if (rows == 1) {
            sb_particle_def p = sb_default_particle_def();
            p.fixed = true;
            anchor = sb_world_add_particle(w, &p, NULL);
        }
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < n; ++c) {
                sb_particle_def p = sb_default_particle_def();
                p.position = pass == 0 ? (sb_vec2){rows == 1 ? 0.5 * (c + 1) : 0.5 * c, -0.5 * r} : start[count];
                p.fixed = rows > 1 && r == 0 && (c == 0 || c == n - 1);
                id[count++] = sb_world_add_particle(w, &p, NULL);
            }
        sb_tuning t = sb_tuning_hertz(hertz, pass == 0 ? 1.0 : 0.02);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < n; ++c) {
                sb_spring_def sd = sb_default_spring_def();
                sd.tuning = t;
                sd.rest_length = 0.5;
                sd.a = id[r * n + c];
                if (rows == 1 && c == 0) { // the chain hangs from its fixed particle
                    sd.a = anchor;
                    sd.b = id[0];
                    sb_world_add_spring(w, &sd, NULL, NULL);
                }
                if (c + 1 < n) {
                    sd.a = id[r * n + c];
                    sd.b = id[r * n + c + 1];
                    sb_world_add_spring(w, &sd, NULL, NULL);
                }
                if (r + 1 < rows) {
                    sd.a = id[r * n + c];
                    sd.b = id[(r + 1) * n + c];
                    sb_world_add_spring(w, &sd, NULL, NULL);
                }
                if (r + 1 < rows && c + 1 < n) { // shear springs: a net of squares alone is a mechanism
                    sd.rest_length = 0.5 * sqrt(2.0);
                    sd.a = id[r * n + c];
                    sd.b = id[(r + 1) * n + c + 1];
                    sb_world_add_spring(w, &sd, NULL, NULL);
                    sd.a = id[r * n + c + 1];
                    sd.b = id[(r + 1) * n + c];
                    sb_world_add_spring(w, &sd, NULL, NULL);
                    sd.rest_length = 0.5;
                }
            }
        int probe = rows == 1 ? n - 1 : (rows - 1) * n + n / 2;
        if (pass == 0) {
            for (int f = 0; f < 600; ++f)
                sb_world_step(w);
            for (int i = 0; i < count; ++i) {
                sb_particle_def p;
                sb_particle_get(w, id[i], &p);
                start[i] = p.position;
            }
            sb_world_destroy(w);
            continue;
        }
        double x[600], rest = 0.0;
        for (int f = 0; f < 600; ++f) {
            sb_world_step(w);
            sb_particle_def p;
            sb_particle_get(w, id[probe], &p);
            x[f] = rows == 1 ? p.position.x : p.position.y;
            rest += x[f] / 600.0;
        }
        for (int f = 0; f < 600; ++f)
            x[f] -= rest;
        *clamped = sb_world_get_stats(w)->clamped_springs;
        sb_world_destroy(w);
        return measure(x, 600, def.dt).hertz;
    }
    return 0.0;
}

/// A retune: a 6-link hanging chain of 0.2 m, 3 Hz at 0.1, its tip pushed sideways,
/// retuned to 6 Hz over 0.5 s after 1 s; the tip's half swing in x over the last 5 s.
static double retuned_swing(sb_method method, int substeps)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    sb_world *w = sb_world_create(&def);
    sb_particle_def p = sb_default_particle_def();
    p.fixed = true;
    sb_particle_id prev = sb_world_add_particle(w, &p, NULL), tip = prev;
    sb_spring_id spring[6];
    p.fixed = false;
    for (int i = 1; i <= 6; ++i) {
        p.position = (sb_vec2){0.0, -0.2 * i};
        tip = sb_world_add_particle(w, &p, NULL);
        sb_spring_def sd = sb_default_spring_def();
        sd.a = prev;
        sd.b = tip;
        sd.tuning = sb_tuning_hertz(3.0, 0.1);
        spring[i - 1] = sb_world_add_spring(w, &sd, NULL, NULL);
        prev = tip;
    }
    sb_particle_apply_impulse(w, tip, (sb_vec2){0.5, 0.0});
    double lo = INFINITY, hi = -INFINITY;
    sb_tuning to = sb_tuning_hertz(6.0, 0.1);
    for (int f = 0; f < 480; ++f) {
        if (f == 60)
            for (int i = 0; i < 6; ++i)
                sb_spring_retune(w, spring[i], 0.2, &to, 0.5, NULL);
        sb_world_step(w);
        if (f >= 180) {
            sb_particle_get(w, tip, &p);
            lo = fmin(lo, p.position.x);
            hi = fmax(hi, p.position.x);
        }
    }
    sb_world_destroy(w);
    return 0.5 * (hi - lo);
}

/// A world of the defaults with this method and sub-step count, without friction.
static sb_world *frictionless(sb_method method, int substeps, sb_vec2 gravity)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.friction = 0.0;
    def.gravity = gravity;
    return sb_world_create(&def);
}

static sb_particle_id add_ball(sb_world *w, double x, double y, double r, double restitution, bool fixed)
{
    sb_particle_def p = sb_default_particle_def();
    p.position = (sb_vec2){x, y};
    p.radius = r;
    p.restitution = restitution;
    p.fixed = fixed;
    p.events = true;
    return sb_world_add_particle(w, &p, NULL);
}

/// A 0.1 m ball with restitution 0.7 dropped onto a wall from 0.3 to 3 m, 3 s each: the share
/// of its bounces (its vertical velocity turning from down to up) with a contact begin since the
/// bounce before.
static double impacts_heard(sb_method method, int substeps)
{
    int bounces = 0, heard = 0;
    for (int k = 0; k < 10; ++k) {
        sb_world *w = frictionless(method, substeps, (sb_vec2){0.0, -9.81});
        sb_world_add_wall(w, (sb_vec2){-5, 0}, (sb_vec2){5, 0}, NULL);
        sb_particle_id b = add_ball(w, 0, 0.1 + 0.3 + 0.3 * k, 0.1, 0.7, false);
        double vy = 0.0;
        bool begun = false; // a contact began since the last bounce
        for (int f = 0; f < 180; ++f) {
            sb_world_step(w);
            sb_particle_def p;
            sb_particle_get(w, b, &p);
            const sb_contact_event *begins, *ends;
            int nb, ne;
            sb_world_contact_events(w, &begins, &nb, &ends, &ne);
            begun = begun || nb > 0;
            if (vy < -0.3 && p.velocity.y > 0.3) {
                bounces += 1;
                heard += begun;
                begun = false;
            }
            vy = p.velocity.y;
        }
        sb_world_destroy(w);
    }
    return bounces ? (double)heard / bounces : 0.0;
}

/// Newton's cradle: five 0.1 m balls (restitution 1) touching, on rigid 1 m rods, the first let
/// go from 40 degrees: the last ball's fastest in the 10 frames after the strike over the
/// first's speed at it.
static double cradle_pass(sb_method method, int substeps)
{
    sb_world *w = frictionless(method, substeps, (sb_vec2){0.0, -9.81});
    sb_particle_id b[5];
    const double th = 40.0 / 180.0 * 3.14159265358979323846;
    for (int i = 0; i < 5; ++i) {
        sb_spring_def rod = sb_default_spring_def();
        rod.a = add_ball(w, 0.2 * i, 1.0, 0.01, 0.0, true);
        b[i] = add_ball(w, i ? 0.2 * i : -sin(th), i ? 0.0 : 1.0 - cos(th), 0.1, 1.0, false);
        rod.b = b[i];
        sb_world_add_spring(w, &rod, NULL, NULL);
    }
    double v_in = 0.0, last = 0.0;
    int hit = -1;
    for (int f = 0; f < 120 && (hit < 0 || f < hit + 10); ++f) {
        sb_world_step(w);
        double v[5];
        for (int i = 0; i < 5; ++i) {
            sb_particle_def p;
            sb_particle_get(w, b[i], &p);
            v[i] = hypot(p.velocity.x, p.velocity.y);
        }
        if (hit < 0 && (v[1] > 0.02 || v[4] > 0.02))
            hit = f;
        if (hit < 0)
            v_in = v[0];
        else
            last = fmax(last, v[4]);
    }
    sb_world_destroy(w);
    return v_in > 0.0 ? last / v_in : 0.0;
}

/// A 0.1 m ball with restitution 0.7 dropped from 1 m (its bottom) onto a wall: the height of
/// its first bounce over the drop (e^2 = 0.49 asked).
static double bounce_ratio(sb_method method, int substeps)
{
    sb_world *w = frictionless(method, substeps, (sb_vec2){0.0, -9.81});
    sb_world_add_wall(w, (sb_vec2){-5, 0}, (sb_vec2){5, 0}, NULL);
    sb_particle_id b = add_ball(w, 0, 1.1, 0.1, 0.7, false);
    double top = 0.0;
    bool bounced = false;
    for (int f = 0; f < 240; ++f) {
        sb_world_step(w);
        sb_particle_def p;
        sb_particle_get(w, b, &p);
        bounced = bounced || p.velocity.y > 0.5;
        if (bounced && p.velocity.y < 0.0)
            break;
        if (bounced)
            top = fmax(top, p.position.y - 0.1);
    }
    sb_world_destroy(w);
    return top;
}

/// A rigid pendulum of `links` links, 1 m in all, let go from 60 degrees without friction: its
/// swing energy (kinetic, and potential above hanging straight down) over the last 5 s of a
/// minute against the first 5 s.
static double swing_kept(sb_method method, int substeps, int links)
{
    sb_world *w = frictionless(method, substeps, (sb_vec2){0.0, -9.81});
    const double len = 1.0 / links, th = 60.0 / 180.0 * 3.14159265358979323846;
    sb_particle_id prev = add_ball(w, 0, 0, 0.0, 0.0, true), bob[4];
    for (int i = 0; i < links; ++i) {
        bob[i] = add_ball(w, (i + 1) * len * sin(th), -(i + 1) * len * cos(th), 0.0, 0.0, false);
        sb_spring_def s = sb_default_spring_def();
        s.a = prev;
        s.b = bob[i];
        sb_world_add_spring(w, &s, NULL, NULL);
        prev = bob[i];
    }
    double first = 0.0, last = 0.0;
    for (int f = 0; f < 3600; ++f) {
        sb_world_step(w);
        double e = 0.0;
        for (int i = 0; i < links; ++i) {
            sb_particle_def p;
            sb_particle_get(w, bob[i], &p);
            e += p.mass * (0.5 * (p.velocity.x * p.velocity.x + p.velocity.y * p.velocity.y) + 9.81 * (p.position.y + (i + 1) * len));
        }
        first += f < 300 ? e : 0.0;
        last += f >= 3300 ? e : 0.0;
    }
    sb_world_destroy(w);
    return last / first;
}

/// The fastest of 20, 40, 60, 80 and 100 m/s at which a 0.1 m ball fired at a 5 cm particle
/// (fixed or free, head on or off centre by up to half the radii) never passes through it (0: it
/// passes at 20).
static double tunnel_free_speed(sb_method method, int substeps)
{
    double held = 0.0;
    for (int v = 20; v <= 100; v += 20) {
        for (int shot = 0; shot < 6; ++shot) {
            sb_world *w = frictionless(method, substeps, (sb_vec2){0.0, 0.0});
            sb_particle_id t = add_ball(w, 3.0, 0.0, 0.05, 0.0, shot % 2);
            sb_particle_id b = add_ball(w, 0.0, 0.035 * (shot / 2), 0.1, 0.0, false);
            sb_particle_def p;
            sb_particle_get(w, b, &p);
            p.velocity = (sb_vec2){v, 0.0};
            sb_particle_set(w, b, &p, NULL);
            bool through = false;
            for (int f = 0; f < 30 && !through; ++f) {
                sb_world_step(w);
                sb_particle_def q, r;
                sb_particle_get(w, b, &q);
                sb_particle_get(w, t, &r);
                through = q.velocity.x == v && q.position.x > r.position.x; // untouched, and past it
            }
            sb_world_destroy(w);
            if (through)
                return held;
        }
        held = v;
    }
    return held;
}

/// springbox_bench --guarantees: the README's table "what each method guarantees", measured.
/// Per method and sub-step count (default iterations): the tuning errors of a lone spring,
/// the worst link stretch of the 30-link chain over 3 s, and ms per step of cloth 32; then
/// the peers on the same chain and cloth.
int guarantees(void)
{
    bench_scene chain, cloth, column, pit, net;
    make_heavy_net(&net);
    make_chain(&chain);
    make_cloth(&cloth, 32);
    make_column(&column);
    make_ball_pit(&pit, 1000);
    const int substeps[] = {1, 2, 6};
    sb_world_def defaults = sb_default_world_def();
    printf("| method | sub-steps | 10 Hz, zeta 0.05: frequency | damping ratio | 4 Hz, zeta 0.5: frequency | damping "
           "ratio | chain 30: worst stretch | cloth 32: ms/step | column 20: sink | 30 degrees, mu 0.3: acceleration "
           "| pit 1000: KE at 10 s | pit 1000: deepest overlap | chain of 6, 3 Hz: lowest mode | net 5 x 4, 10 Hz: lowest mode | retune 3 -> 6 Hz: "
           "swing after | net 1000:1: the ball against the ends, links' worst stretch | events: bounces heard | cradle: last ball "
           "leaves at | restitution 0.7: bounce height (0.49 asked) | pendulum / 4-link chain: swing kept over 60 s | "
           "tunnelling: no pass-through up to |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int clamped;
    double chain_ref = network_mode(SB_METHOD_FORCE, 60, 6, 1, 3.0, &clamped);
    double net_ref = network_mode(SB_METHOD_FORCE, 60, 5, 4, 10.0, &clamped);
    double retune_ref = retuned_swing(SB_METHOD_SOFT, 60);
    const bench_engine sb_engine = {"springbox", "", sb_create, sb_step, sb_state, sb_destroy};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int si = 0; si < 3; ++si) {
            double f1, z1, f2, z2, q[BENCH_QUALITY];
            lone_spring_errors((sb_method)m, substeps[si], 10.0, 0.05, &f1, &z1);
            lone_spring_errors((sb_method)m, substeps[si], 4.0, 0.5, &f2, &z2);
            bench_method = (sb_method)m;
            bench_tethers = defaults.tethers;
            bench_substeps = substeps[si];
            run(&sb_engine, &chain, 180, q);
            double chain_worst = q[2];
            double ms = run(&sb_engine, &cloth, 120, q);
            run(&sb_engine, &column, 600, q);
            double sink = q[0];
            run(&sb_engine, &pit, 600, q);
            double ke = q[0], overlap = q[1];
            double slope = slope_friction_error((sb_method)m, substeps[si]);
            int chain_clamped, net_clamped;
            double chain_mode = network_mode((sb_method)m, substeps[si], 6, 1, 3.0, &chain_clamped);
            double net_mode = network_mode((sb_method)m, substeps[si], 5, 4, 10.0, &net_clamped);
            double swing = retuned_swing((sb_method)m, substeps[si]);
            run(&sb_engine, &net, 600, q);
            double net_ball = q[0], net_stretch = q[1];
            double heard = impacts_heard((sb_method)m, substeps[si]), cradle = cradle_pass((sb_method)m, substeps[si]);
            double bounce = bounce_ratio((sb_method)m, substeps[si]);
            double kept1 = swing_kept((sb_method)m, substeps[si], 1), kept4 = swing_kept((sb_method)m, substeps[si], 4);
            double tunnel = tunnel_free_speed((sb_method)m, substeps[si]);
            printf("| %s | %d | %+.2f%% | %+.4f | %+.2f%% | %+.4f | %.1f%% | %.3f | %.1f mm | %+.1f%% | %.3g J | %.0f%% | %.3f Hz "
                   "(%+.1f%%%s) | %.3f Hz (%+.1f%%%s) | %.3f m (%+.0f%%) | %.2f m, %.0f%% | %.0f%% | %.2f | %.3f | %.0f%% / %.0f%% | "
                   "%.0f m/s |\n",
                   sb_method_name((sb_method)m), substeps[si], 100.0 * f1, z1, 100.0 * f2, z2, 100.0 * chain_worst, ms,
                   sink, 100.0 * slope, ke, 100.0 * overlap, chain_mode, 100.0 * (chain_mode / chain_ref - 1.0),
                   chain_clamped ? ", reported" : "", net_mode, 100.0 * (net_mode / net_ref - 1.0),
                   net_clamped ? ", reported" : "", swing, 100.0 * (swing / retune_ref - 1.0), net_ball,
                   100.0 * net_stretch, 100.0 * heard, cradle, bounce, 100.0 * kept1, 100.0 * kept4, tunnel);
        }
    }
    bench_substeps = 0;
    const bench_engine *peers[2] = {NULL, NULL};
#ifdef BENCH_HAVE_BOX2D
    peers[0] = &bench_box2d;
#endif
#ifdef BENCH_HAVE_CHIPMUNK
    peers[1] = &bench_chipmunk;
#endif
    for (int k = 0; k < 2; ++k) {
        if (!peers[k])
            continue;
        double q[BENCH_QUALITY];
        run(peers[k], &chain, 180, q);
        double chain_worst = q[2];
        double ms = run(peers[k], &cloth, 120, q);
        run(peers[k], &column, 600, q);
        double sink = q[0];
        run(peers[k], &pit, 600, q);
        double ke = q[0], overlap = q[1];
        run(peers[k], &net, 600, q);
        printf("| %s (%s) | 1 step per frame | - | - | - | - | %.1f%% | %.3f | %.1f mm | - | %.3g J | %.0f%% | - | - | - | %.2f m, %.0f%% "
               "| - | - | - | - | - |\n",
               peers[k]->name, peers[k]->settings, 100.0 * chain_worst, ms, sink, ke, 100.0 * overlap, q[0], 100.0 * q[1]);
    }
    printf("| reference: force at 60 sub-steps (retune: soft) | 60 | - | - | - | - | - | - | - | - | - | - | %.3f Hz | %.3f Hz | "
           "%.3f m | - | - | - | - | - | - |\n",
           chain_ref, net_ref, retune_ref);
    scene_free(&chain);
    scene_free(&cloth);
    scene_free(&column);
    scene_free(&pit);
    scene_free(&net);
    return 0;
}


// ---------------------------------------------------------------- snapshots


/// What a snapshot costs: for built-in scenes at the default settings, the time to
/// take one (and free it) and to restore one, against the time of a step in the same run, and
/// its size. A window that keeps a minute of history takes one every frame.
int snapshots(void)
{
    const struct { const char *sample; int size; } cases[] = {
        {"bridge", 40}, {"cloth", 32}, {"cloth", 64}, {"ball_pit", 4000},
    };
    printf("| scene | particles | springs | step: ms | snapshot: ms | of a step | restore: ms | size: KiB |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sb_world_def def = sb_default_world_def();
        sb_world *w = sb_sample_find(cases[k].sample)->build(&def, cases[k].size);
        if (!w)
            return 1;
        for (int f = 0; f < 60; ++f) // contacts and warm starts in place
            sb_world_step(w);
        enum { N = 120 };
        double step = 0.0, take = 0.0, back = 0.0;
        size_t bytes = 0;
        sb_snapshot *keep = sb_world_snapshot(w);
        for (int f = 0; f < N; ++f) {
            double t0 = now_ms();
            sb_world_step(w);
            double t1 = now_ms();
            sb_snapshot *s = sb_world_snapshot(w);
            bytes = sb_snapshot_bytes(s);
            sb_snapshot_destroy(s);
            double t2 = now_ms();
            sb_world_restore(w, keep);
            double t3 = now_ms();
            step += t1 - t0;
            take += t2 - t1;
            back += t3 - t2;
        }
        printf("| %s %d | %d | %d | %.3f | %.3f | %.0f%% | %.3f | %zu |\n", cases[k].sample, cases[k].size,
               sb_world_particle_count(w), sb_world_spring_count(w), step / N, take / N, 100.0 * take / step,
               back / N, bytes >> 10);
        sb_snapshot_destroy(keep);
        sb_world_destroy(w);
    }
    return 0;
}


// ---------------------------------------------------------------- main
