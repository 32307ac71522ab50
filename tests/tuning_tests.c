// Tuning a running world and networks: retunes and ramps end where they are
// asked without throwing the structure, and networks of springs move at their own modes in
// every method. Measured from simulated motion, as physics_tests.c.
#include "sb_tuning.h"
#include "sb_world.h"
#include "world_internal.h"

#include "ensure.h"
#include "motion.h"
#include "world_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- retuning a running world

/// A truss bridge of 12 panels pinned at both ends (the scene tests' deck), every spring at
/// `hertz` and damping ratio 1; `springs` receives its springs.
static sb_world *truss(double hertz, sb_spring_id springs[64], int *count)
{
    sb_world_def def = sb_default_world_def();
    def.substeps = 4;
    def.iterations = 8;
    def.collisions = false;
    sb_world *w = sb_world_create(&def);
    sb_particle_id top[13], bottom[13];
    *count = 0;
    for (int i = 0; i <= 12; ++i) {
        bottom[i] = add_particle(w, -3 + i * 0.5, 0, 1, i == 0 || i == 12);
        top[i] = add_particle(w, -3 + i * 0.5, 0.5, 1, false);
        springs[(*count)++] = add_spring(w, bottom[i], top[i], -1.0, sb_tuning_hertz(hertz, 1));
        if (i > 0) {
            springs[(*count)++] = add_spring(w, bottom[i - 1], bottom[i], -1.0, sb_tuning_hertz(hertz, 1));
            springs[(*count)++] = add_spring(w, top[i - 1], top[i], -1.0, sb_tuning_hertz(hertz, 1));
            springs[(*count)++] = add_spring(w, bottom[i - 1], top[i], -1.0, sb_tuning_hertz(hertz, 1));
        }
    }
    return w;
}

/// The middle of the deck's bottom chord.
static double deck_y(const sb_world *w) { return w->pos[12].y; }

/// Stiffens a settled 3 Hz truss to 30 Hz, at once (seconds 0) or with sb_spring_retune; the
/// overshoot past the new shape as a fraction of the rise.
static double stiffen(double seconds)
{
    sb_spring_id springs[64];
    int n;
    sb_world *w = truss(3.0, springs, &n);
    for (int f = 0; f < 1800; ++f)
        sb_world_step(w);
    double sag_soft = deck_y(w), highest = -INFINITY;
    for (int k = 0; k < n; ++k) {
        sb_spring_def d;
        sb_spring_get(w, springs[k], &d);
        sb_tuning t = sb_tuning_hertz(30.0, 1.0);
        sb_spring_retune(w, springs[k], d.rest_length, &t, seconds, NULL);
    }
    for (int f = 0; f < 1200; ++f) {
        sb_world_step(w);
        highest = fmax(highest, deck_y(w));
    }
    double sag_stiff = deck_y(w);
    ENSURE(sb_world_ramp_count(w) == 0); // all done after 20 s
    sb_world_destroy(w);
    return (highest - sag_stiff) / (sag_stiff - sag_soft);
}

// The core's retune (used by hot reload, the sliders and spring:retune): stiffening a sagging
// truss from 3 Hz to 30 Hz over 0.5 s overshoots its new shape by at most 10% of the rise;
// the same change at once throws it (more than half the rise).
TEST(retune_does_not_throw_a_structure)
{
    double sudden = stiffen(0.0), ramped = stiffen(0.5);
    printf("overshoot: at once %.1f%%, retuned over 0.5 s %.1f%%\n", 100 * sudden, 100 * ramped);
    ENSURE(sudden > 0.5);
    ENSURE(ramped <= 0.10);
    return 0;
}

/// A 6-link chain of 0.2 m, 3 Hz at 0.1, hanging, its tip pushed sideways (a small swing, so
/// runs can be compared); after 1 s every spring is retuned over 0.5 s to `to` at rest length
/// `rest`. Returns the tip's half swing in x over the last 5 s, INFINITY if the world halted.
static double retuned_swing(sb_method method, int substeps, sb_tuning to, double rest)
{
    sb_world *w = world_with(method, substeps, sb_default_world_def().gravity);
    sb_particle_id prev = add_particle(w, 0, 0, 1, true), tip = prev;
    sb_spring_id spring[6];
    for (int i = 1; i <= 6; ++i) {
        tip = add_particle(w, 0, -0.2 * i, 1, false);
        spring[i - 1] = add_spring(w, prev, tip, -1.0, sb_tuning_hertz(3.0, 0.1));
        prev = tip;
    }
    sb_particle_apply_impulse(w, tip, v2(0.5, 0.0));
    double lo = INFINITY, hi = -INFINITY;
    for (int f = 0; f < 480; ++f) {
        if (f == 60)
            for (int i = 0; i < 6; ++i)
                sb_spring_retune(w, spring[i], rest, &to, 0.5, NULL);
        if (sb_world_step(w) != SB_OK) {
            sb_world_destroy(w);
            return INFINITY;
        }
        if (f >= 180) {
            lo = fmin(lo, w->pos[tip.index].x);
            hi = fmax(hi, w->pos[tip.index].x);
        }
    }
    sb_world_destroy(w);
    return 0.5 * (hi - lo);
}

// A retune moves every method to the same motion, the near-continuous
// reference's (soft at 60 sub-steps) within 25%, at the default sub-steps: stiffer, softer,
// longer and more damped. The springs kept their static stiffness in no network method while
// the ramp's settling damping ran (verlet's went 4 times softer: twice the reference's swing).
// At one and two sub-steps the explicit methods cannot deliver the settling damping (they say
// so while it runs) and keep up to three times the swing: printed, and said in the README.
TEST(retunes_end_alike_in_every_method)
{
    const struct { sb_tuning to; double rest; const char *what; } kinds[] = {
        {{SB_TUNE_HERTZ, 6.0, 0.1, 0, 0, 0, 0}, 0.2, "3 -> 6 Hz"},
        {{SB_TUNE_HERTZ, 1.5, 0.1, 0, 0, 0, 0}, 0.2, "3 -> 1.5 Hz"},
        {{SB_TUNE_HERTZ, 3.0, 0.1, 0, 0, 0, 0}, 0.25, "rest 0.2 -> 0.25 m"},
        {{SB_TUNE_HERTZ, 3.0, 0.5, 0, 0, 0, 0}, 0.2, "damping 0.1 -> 0.5"},
    };
    const int substeps[] = {1, 2, 6};
    for (int k = 0; k < 4; ++k) {
        double ref = retuned_swing(SB_METHOD_SOFT, 60, kinds[k].to, kinds[k].rest);
        printf("%-20s reference %.3f m; at 1, 2, 6 sub-steps:", kinds[k].what, ref);
        for (int m = 0; m < SB_METHOD_COUNT; ++m) {
            printf("  %s", sb_method_name((sb_method)m));
            for (int si = 0; si < 3; ++si) {
                double swing = retuned_swing((sb_method)m, substeps[si], kinds[k].to, kinds[k].rest);
                printf(" %.2f", swing);
                if (substeps[si] == sb_default_world_def().substeps)
                    ENSURE(fabs(swing / ref - 1.0) <= 0.25);
            }
        }
        printf("\n");
    }
    return 0;
}

// While a retune settles, a clamp warning names the tuning the designer asked for, not the
// ramp's settling damping ratio of 20 (it read "asks 4 Hz at damping ratio 20" for a file
// saying 0.02), and says the spring is settling; after the ramp, nothing is clamped.
TEST(retune_warnings_name_the_asked_tuning)
{
    sb_world_def def = sb_default_world_def();
    def.method = SB_METHOD_FORCE;
    def.substeps = 1;
    sb_world *w = sb_world_create(&def);
    sb_particle_id prev = add_particle(w, 0, 0, 1, true);
    sb_spring_id spring[4];
    for (int i = 1; i <= 4; ++i) {
        sb_particle_id p = add_particle(w, 0.3 * i, 0, 1, false);
        spring[i - 1] = add_spring(w, prev, p, -1.0, sb_tuning_hertz(4.0, 0.02));
        prev = p;
    }
    for (int f = 0; f < 30; ++f)
        sb_world_step(w);
    ENSURE(sb_world_get_stats(w)->clamped_springs == 0);
    sb_tuning same = sb_tuning_hertz(4.0, 0.02);
    for (int i = 0; i < 4; ++i)
        ENSURE(sb_spring_retune(w, spring[i], 0.25, &same, 0.5, NULL) == SB_OK);
    bool seen = false;
    for (int f = 0; f < 200; ++f) {
        sb_world_step(w);
        const sb_stats *st = sb_world_get_stats(w);
        if (st->clamped_springs > 0) {
            char line[300];
            sb_world_clamp_message(w, line, sizeof line);
            if (!seen)
                printf("%s\n", line);
            seen = true;
            ENSURE_NEAR(st->clamped_asked_hertz, 4.0, 1e-9);
            ENSURE_NEAR(st->clamped_asked_damping_ratio, 0.02, 1e-9);
            ENSURE(strstr(line, "damping ratio 0.02") != NULL && strstr(line, "settling after a retune") != NULL);
        }
    }
    ENSURE(seen); // the settling damping is more than one explicit sub-step can deliver
    ENSURE(sb_world_get_stats(w)->clamped_springs == 0);
    sb_world_destroy(w);
    return 0;
}

// Ramps are state: a world copied in the middle of one (a hot reload) carries on exactly as
// the original, and a retune started mid-ramp starts from where the spring stands.
TEST(ramps_carry_over_with_the_state)
{
    sb_spring_id springs[64], twins[64];
    int n, m;
    sb_world *a = truss(3.0, springs, &n), *b = truss(3.0, twins, &m);
    for (int f = 0; f < 600; ++f)
        sb_world_step(a);
    sb_tuning stiff = sb_tuning_hertz(30.0, 1.0);
    for (int k = 0; k < n; ++k)
        sb_spring_retune(a, springs[k], 0.5, &stiff, 0.5, NULL);
    for (int f = 0; f < 10; ++f)
        sb_world_step(a);
    ENSURE(sb_world_ramp_count(a) == n);
    for (int k = 0; k < n; ++k) { // b takes a's tunings as they stand, then its state and ramps
        sb_spring_def d;
        sb_spring_get(a, springs[k], &d);
        sb_spring_set(b, twins[k], d.rest_length, &d.tuning, NULL);
    }
    ENSURE(sb_world_copy_state(b, a) == SB_OK);
    ENSURE(sb_world_ramp_count(b) == n);
    double rest;
    sb_tuning target;
    ENSURE(sb_spring_ramp_target(b, twins[0], &rest, &target) && rest == 0.5 && target.hertz == 30.0);
    for (int f = 0; f < 300; ++f) {
        sb_world_step(a);
        sb_world_step(b);
    }
    ENSURE(sb_world_state_hash(a) == sb_world_state_hash(b));
    ENSURE(sb_world_ramp_count(a) == 0 && sb_world_ramp_count(b) == 0);
    sb_spring_def d;
    sb_spring_get(b, twins[0], &d);
    ENSURE(d.rest_length == 0.5 && d.tuning.hertz == 30.0 && d.tuning.damping_ratio == 1.0); // settled: no extra damping left
    // bad input: named, nothing changed
    const char *field = NULL;
    ENSURE(sb_spring_retune(b, twins[0], 0.5, &stiff, -1.0, &field) == SB_ERR_INVALID && strcmp(field, "seconds") == 0);
    sb_tuning bad = sb_tuning_hertz(-3.0, 1.0);
    ENSURE(sb_spring_retune(b, twins[0], 0.5, &bad, 0.5, &field) == SB_ERR_INVALID && strcmp(field, "hertz") == 0);
    ENSURE(sb_world_ramp_count(b) == 0);
    sb_world_destroy(a);
    sb_world_destroy(b);
    return 0;
}

// While a retune ramps in, a spring's working rest length is re-based (see
// retune.c) and can be far from the one asked for; the stretch a designer sees is measured
// against the asked-for rest length, from the positions, so a ramp never looks like an
// explosion: it reads what the positions show, and it stays within a quarter of the soft truss's
// own settled stretch (the deck falling onto its soft springs overshoots by 19% of the drop;
// the working rest length read 3.2e4% before). Softening a settled 30 Hz truss to 2 Hz over 0.5 s, and
// stiffening it back.
TEST(stretch_during_a_ramp_is_against_the_asked_rest_length)
{
    sb_spring_id springs[64];
    int n;
    sb_world *w = truss(30.0, springs, &n);
    double asked[64];
    for (int k = 0; k < n; ++k) {
        sb_spring_def d;
        sb_spring_get(w, springs[k], &d);
        asked[k] = d.rest_length;
    }
    for (int f = 0; f < 600; ++f)
        sb_world_step(w);
    double peak = 0.0, settled_soft = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        sb_tuning t = sb_tuning_hertz(pass == 0 ? 2.0 : 30.0, 1.0);
        for (int k = 0; k < n; ++k)
            ENSURE(sb_spring_retune(w, springs[k], asked[k], &t, 0.5, NULL) == SB_OK);
        for (int f = 0; f < 1800; ++f) {
            sb_world_step(w);
            double measured = 0.0;
            for (int k = 0; k < n; ++k)
                measured = fmax(measured, fabs(sb_spring_length(w, springs[k]) - asked[k]) / asked[k]);
            const sb_stats *st = sb_world_get_stats(w);
            ENSURE_NEAR(st->max_stretch, measured, 1e-12);
            peak = fmax(peak, st->max_stretch);
        }
        if (pass == 0)
            settled_soft = sb_world_get_stats(w)->max_stretch;
    }
    printf("largest stretch while ramping 30 -> 2 -> 30 Hz: %.2f%%; settled at 2 Hz: %.2f%%\n", 100.0 * peak,
           100.0 * settled_soft);
    ENSURE(peak <= 1.25 * settled_soft);
    sb_world_destroy(w);
    return 0;
}

// ---------------------------------------------------------------- networks

/// A chain along x from a fixed anchor: `n` free particles of masses[i], every spring tuned t.
/// Released from its static stretch under a pull along x proportional to mass (its lowest mode
/// dominates), no gravity; returns the tip's motion over 10 s and the clamped-spring count.
static oscillation chain_mode(sb_method method, int substeps, int iterations, int n, const double *masses, sb_tuning t,
                              int *clamped)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.iterations = iterations;
    def.gravity = v2(0, 0);
    sb_world *w = sb_world_create(&def);
    sb_particle_id id[8];
    id[0] = add_particle(w, 0, 0, 1, true);
    // static stretch: spring j carries the pull of every particle beyond it; k_j = m_red omega^2
    double omega = two_pi * t.hertz, u = 0.0, x[8];
    for (int j = 1; j <= n; ++j) {
        double beyond = 0.0;
        for (int i = j; i <= n; ++i)
            beyond += masses[i - 1];
        double m_red = j == 1 ? masses[0] : masses[j - 2] * masses[j - 1] / (masses[j - 2] + masses[j - 1]);
        u += beyond / (m_red * omega * omega);
        x[j] = u;
    }
    for (int j = 1; j <= n; ++j)
        id[j] = add_particle(w, 1.0 * j + 0.05 * x[j] / u, 0, masses[j - 1], false);
    for (int j = 1; j <= n; ++j) {
        sb_spring_def s = sb_default_spring_def();
        s.a = id[j - 1];
        s.b = id[j];
        s.rest_length = 1.0;
        s.tuning = t;
        sb_world_add_spring(w, &s, NULL, NULL);
    }
    double tip[600];
    for (int f = 0; f < 600; ++f) {
        sb_world_step(w);
        sb_particle_def d;
        sb_particle_get(w, id[n], &d);
        tip[f] = d.position.x - n;
    }
    *clamped = sb_world_get_stats(w)->clamped_springs;
    sb_world_destroy(w);
    return measure(tip, 600, def.dt);
}

// A network moves at its own modes in every method, whatever the iteration
// count, as closely as a lone spring does (frequency within 2%, damping ratio within 0.01 or 5%)
// against the near-continuous reference (the force method at 60 sub-steps, which the issue's
// two-spring case checks against its exact 2.706 Hz), or the world reports the springs it cannot
// deliver. sequential ran the two springs' 2.71 Hz mode at 4.99 Hz and at 2.37 to 3.37 Hz from 1
// to 8 iterations, reporting nothing.
TEST(networks_move_at_their_modes_in_every_method)
{
    static const double equal[6] = {1, 1, 1, 1, 1, 1}, heavy[4] = {1, 100, 1, 100};
    const struct { int n; const double *masses; double hertz, zeta; } shapes[] = {
        {2, equal, 5.0, 0.05}, {6, equal, 3.0, 0.1}, {4, heavy, 15.0, 0.1},
    };
    const int substeps[] = {1, 2, 6}, iterations[] = {1, 2, 4, 8, 32};
    int reported = 0, delivered = 0, silent = 0;
    for (int sh = 0; sh < 3; ++sh) {
        sb_tuning t = sb_tuning_hertz(shapes[sh].hertz, shapes[sh].zeta);
        int clamped;
        oscillation ref = chain_mode(SB_METHOD_FORCE, 60, 1, shapes[sh].n, shapes[sh].masses, t, &clamped);
        printf("%d springs, %g Hz at %g: reference %.3f Hz at %.4f (%d crossings)\n", shapes[sh].n, shapes[sh].hertz,
               shapes[sh].zeta, ref.hertz, ref.zeta, ref.crossings);
        ENSURE(clamped == 0 && ref.crossings > 10);
        if (sh == 0) // two 5 Hz springs, 1 kg each, anchored: slow mode omega^2 = (1 - 1/sqrt 2) (2 pi 5)^2
            ENSURE(fabs(ref.hertz / (5.0 * sqrt(1.0 - sqrt(0.5)) * sqrt(1.0 - ref.zeta * ref.zeta)) - 1.0) < 0.005);
        for (int m = 0; m < SB_METHOD_COUNT; ++m) {
            printf("  %-10s", sb_method_name((sb_method)m));
            for (int si = 0; si < 3; ++si)
                for (int it = 0; it < 5; ++it) {
                    oscillation o = chain_mode((sb_method)m, substeps[si], iterations[it], shapes[sh].n,
                                               shapes[sh].masses, t, &clamped);
                    bool as_asked = fabs(o.hertz / ref.hertz - 1.0) <= 0.02 &&
                                    fabs(o.zeta - ref.zeta) <= fmax(0.01, 0.05 * ref.zeta);
                    printf(" %.3f%s", o.hertz, as_asked ? "" : clamped ? "*" : "!");
                    if (!as_asked && clamped == 0)
                        printf("\n%s %d sub-steps %d iterations: %.3f Hz at %.4f, nothing reported\n",
                               sb_method_name((sb_method)m), substeps[si], iterations[it], o.hertz, o.zeta);
                    silent += !as_asked && clamped == 0;
                    reported += !as_asked;
                    delivered += as_asked;
                }
            printf("\n");
        }
    }
    printf("%d delivered as the reference, %d reported as clamped (* above)\n", delivered, reported);
    ENSURE(silent == 0);
    return 0;
}

// A spring in a network keeps the stiffness asked: a hanging chain of three 6 Hz springs of 1 kg
// beads sags sum m g / k (k = m_red omega^2) within 5% in every method at 1, 2 and 6 sub-steps,
// light or heavily damped (0.1 to 20, a retune's settling damping), or the world reports it.
// Matching a lone spring's poles gave implicit Euler 34% too stiff a spring at damping ratio 0.5
// (26% short of the sag) and verlet 4 times too soft at 20 (a retuned chain sagged 4.2 times);
// xpbd's tuned springs, their multipliers restarted at zero each sub-step, sagged 2.5 times too
// far at 20 (method_xpbd.c).
TEST(networks_sag_as_their_stiffness_says)
{
    const double zetas[] = {0.1, 0.5, 2.0, 20.0};
    const int substeps[] = {1, 2, 6};
    const double w2 = two_pi * 6.0 * two_pi * 6.0, want = 9.81 * (3.0 / w2 + 2.0 / (0.5 * w2) + 1.0 / (0.5 * w2));
    int silent = 0;
    for (int z = 0; z < 4; ++z)
        for (int m = 0; m < SB_METHOD_COUNT; ++m) {
            printf("zeta %4.1f %-10s", zetas[z], sb_method_name((sb_method)m));
            for (int si = 0; si < 3; ++si) {
                sb_world *w = world_with((sb_method)m, substeps[si], v2(0, -9.81));
                sb_particle_id prev = add_particle(w, 0, 0, 1, true), tip = prev;
                for (int i = 1; i <= 3; ++i) {
                    tip = add_particle(w, 0, -1.0 * i, 1, false);
                    add_spring(w, prev, tip, -1.0, sb_tuning_hertz(6.0, zetas[z]));
                    prev = tip;
                }
                for (int f = 0; f < 1200; ++f)
                    sb_world_step(w);
                double sag = -w->pos[tip.index].y - 3.0;
                int clamped = sb_world_get_stats(w)->clamped_springs;
                bool as_asked = fabs(sag / want - 1.0) <= 0.05;
                printf("  %+5.1f%%%s", 100.0 * (sag / want - 1.0), as_asked ? "" : clamped ? "*" : "!");
                silent += !as_asked && !clamped;
                sb_world_destroy(w);
            }
            printf("\n");
        }
    ENSURE(silent == 0);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(retune_does_not_throw_a_structure),
    ENTRY(retunes_end_alike_in_every_method),
    ENTRY(retune_warnings_name_the_asked_tuning),
    ENTRY(ramps_carry_over_with_the_state),
    ENTRY(stretch_during_a_ramp_is_against_the_asked_rest_length),
    ENTRY(networks_move_at_their_modes_in_every_method),
    ENTRY(networks_sag_as_their_stiffness_says),
};

int main(int argc, char **argv) { return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]); }
