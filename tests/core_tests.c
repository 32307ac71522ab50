// Core tests: each asserts a claim from the articles in docs/references.md or a property the
// issue asks for. Run one by name (core_tests impulse_one_step) or all with no argument.
#include "sb_samples.h"
#include "sb_trig.h"
#include "sb_tuning.h"
#include "sb_world.h"
#include "world_internal.h"

#include "ensure.h"
#include "world_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_helpers.h"

static const double two_pi = 6.28318530717958647692;

static void set_radius(sb_world *w, sb_particle_id id, double radius)
{
    sb_particle_def d = particle_now(w, id);
    d.radius = radius;
    sb_particle_set(w, id, &d, NULL);
}

// ---------------------------------------------------------------- tuning model

TEST(tuning_formulas)
{
    const double h = 1.0 / 240.0, m = 2.5;
    // Cs = (w h)^2 and Cd = 2 zeta w h (Nissen's "Developing a rigid, stable spring" with k = m w^2, c = 2 m zeta w from Catto's "Soft Constraints").
    sb_tuning t = sb_tuning_hertz(5.0, 0.7);
    double cs, cd, k, c;
    sb_tuning_to_coefficients(&t, m, h, &cs, &cd);
    double wh = two_pi * 5.0 * h;
    ENSURE_NEAR(cs, wh * wh, 1e-15);
    ENSURE_NEAR(cd, 2.0 * 0.7 * wh, 1e-15);
    // Capped at 1, the one-step limit.
    t = sb_tuning_hertz(1000.0, 1.0);
    sb_tuning_to_coefficients(&t, m, h, &cs, &cd);
    ENSURE(cs == 1.0 && cd == 1.0);
    // Nissen's coefficients are k = Cs m / h^2 and c = Cd m / h, and convert back exactly.
    t = sb_tuning_coefficients(0.3, 0.2);
    sb_tuning_to_kc(&t, m, h, &k, &c);
    ENSURE_NEAR(k, 0.3 * m / (h * h), 1e-9);
    ENSURE_NEAR(c, 0.2 * m / h, 1e-12);
    sb_tuning raw = sb_tuning_raw(k, c);
    sb_tuning_to_coefficients(&raw, m, h, &cs, &cd);
    ENSURE_NEAR(cs, 0.3, 1e-12);
    ENSURE_NEAR(cd, 0.2, 1e-12);
    // Catto's gamma and beta are ODE's CFM = 1/(h k + c) and ERP = h k/(h k + c).
    const double ks[] = {0.0, 10.0, 1e3, 1e7}, cs_[] = {0.5, 3.0, 40.0};
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) {
            double beta, gamma;
            sb_softness_from_kc(ks[i], cs_[j], h, &beta, &gamma);
            double cfm = 1.0 / (h * ks[i] + cs_[j]), erp = h * ks[i] / (h * ks[i] + cs_[j]);
            ENSURE_NEAR(gamma, cfm, 1e-15 * cfm);
            ENSURE_NEAR(beta, erp, 1e-15);
        }
    }
    // Stiff limit: gamma -> 0, beta -> 1 (Catto's "Soft Constraints").
    double beta, gamma;
    sb_softness_from_kc(1e15, 1.0, h, &beta, &gamma);
    ENSURE(gamma < 1e-12 && beta > 0.999999);
    // Symplectic Euler: undamped limit w h < 2.
    ENSURE_NEAR(sb_symplectic_omega_h_limit(0.0), 2.0, 1e-15);
    ENSURE(sb_symplectic_omega_h_limit(1.0) < 1.0);
    // Nissen's safe limit 1/(n+1): rope 1/3, square mesh 1/5.
    ENSURE_NEAR(sb_nissen_safe_coefficient(2), 1.0 / 3.0, 1e-15);
    ENSURE_NEAR(sb_nissen_safe_coefficient(4), 0.2, 1e-15);
    return 0;
}

// ---------------------------------------------------------------- impulse (Nissen's "Developing a rigid, stable spring")

// "The spring reaches rest length and stops dead without any oscillation in one loop"
// with Cs = Cd = 1, and "particle mass or simulation time step has literally no influence".
// Under symplectic Euler the step that lands on the rest length still carries the velocity
// that took it there; the next step cancels it and nothing moves: no overshoot, no wobble.
TEST(impulse_one_step)
{
    const double masses[] = {1e-3, 1.0, 7.0, 1e4};
    const double dts[] = {1.0 / 30.0, 1.0 / 60.0, 1.0 / 1000.0, 0.25};
    for (int mi = 0; mi < 4; ++mi) {
        for (int di = 0; di < 4; ++di) {
            sb_world_def def = quiet_def(SB_METHOD_IMPULSE);
            def.dt = dts[di];
            sb_world *w = sb_world_create(&def);
            sb_particle_id anchor = add_particle(w, 0.0, 0.0, 1.0, true);
            sb_particle_id p = add_particle(w, 0.6, 0.8, masses[mi], false); // distance 1
            sb_particle_def d = particle_now(w, p);
            d.velocity = v2(-1.5, -2.0); // along the axis, toward the anchor
            sb_particle_set(w, p, &d, NULL);
            sb_spring_id s = add_spring(w, anchor, p, 2.0, sb_tuning_coefficients(1.0, 1.0));
            ENSURE(sb_world_step(w) == SB_OK);
            ENSURE_NEAR(sb_spring_length(w, s), 2.0, 1e-12);
            sb_vec2 landed = particle_now(w, p).position;
            for (int f = 0; f < 5; ++f) {
                ENSURE(sb_world_step(w) == SB_OK);
                d = particle_now(w, p);
                ENSURE_NEAR(sb_spring_length(w, s), 2.0, 1e-12);
                ENSURE_NEAR(v2_len(v2_sub(d.position, landed)), 0.0, 1e-12);
                ENSURE_NEAR(v2_len(d.velocity), 0.0, 1e-12);
            }
            sb_world_destroy(w);
        }
    }
    // Two free particles of different mass: rest length and no relative velocity in one step.
    sb_world_def def = quiet_def(SB_METHOD_IMPULSE);
    sb_world *w = sb_world_create(&def);
    sb_particle_id a = add_particle(w, 0.0, 0.0, 3.0, false), b = add_particle(w, 0.0, 1.5, 0.2, false);
    sb_particle_def db = particle_now(w, b);
    db.velocity = v2(0.0, 4.0);
    sb_particle_set(w, b, &db, NULL);
    sb_spring_id s = add_spring(w, a, b, 1.0, sb_tuning_coefficients(1.0, 1.0));
    sb_world_step(w);
    ENSURE_NEAR(sb_spring_length(w, s), 1.0, 1e-12);
    sb_world_step(w);
    ENSURE_NEAR(sb_spring_length(w, s), 1.0, 1e-12);
    ENSURE_NEAR(particle_now(w, b).velocity.y - particle_now(w, a).velocity.y, 0.0, 1e-12);
    sb_world_destroy(w);
    return 0;
}

// ---------------------------------------------------------------- soft (Catto's "Soft Constraints")

// One sub-step of a soft constraint on a single mass gives the implicit-Euler velocity
// v2 = (v1 - h k/m x1) / (1 + h c/m + h^2 k/m) for the k and c it is given ("identical to the
// implicit Euler solution of the harmonic oscillator"), even far beyond the explicit limit.
// springbox gives it the k and c whose implicit Euler step has the tuning's exact poles
// (method_soft.c); physics_tests.c measures that the motion then is the one asked for.
TEST(soft_matches_implicit_euler)
{
    const double hertz[] = {0.5, 5.0, 60.0, 2000.0}, zetas[] = {0.0, 0.3, 1.0, 4.0}, masses[] = {0.01, 2.0, 500.0};
    for (int fi = 0; fi < 4; ++fi) {
        for (int zi = 0; zi < 4; ++zi) {
            for (int mi = 0; mi < 3; ++mi) {
                sb_world_def def = quiet_def(SB_METHOD_SOFT);
                def.iterations = 1;
                sb_world *w = sb_world_create(&def);
                const double m = masses[mi], x1 = 0.3, v1 = -0.7, rest = 1.0;
                sb_particle_id anchor = add_particle(w, 0.0, 0.0, 1.0, true);
                sb_particle_id p = add_particle(w, rest + x1, 0.0, m, false);
                sb_particle_def d = particle_now(w, p);
                d.velocity = v2(v1, 0.0);
                sb_particle_set(w, p, &d, NULL);
                sb_tuning tuning = sb_tuning_hertz(hertz[fi], zetas[zi]);
                add_spring(w, anchor, p, rest, tuning);
                sb_world_step(w);
                const double h = def.dt;
                bool limited, clamped;
                sb_poles poles = implicit_euler_poles_within(sb_tuning_poles(&tuning, m, h, &limited), INFINITY, &clamped);
                double k, c;
                implicit_euler_kc(poles, m, h, &k, &c);
                double v2_expected = (v1 - h * k / m * x1) / (1.0 + h * c / m + h * h * k / m);
                d = particle_now(w, p);
                ENSURE_NEAR(d.velocity.x, v2_expected, 1e-9 * (1.0 + fabs(v2_expected)));
                ENSURE_NEAR(d.position.x, rest + x1 + h * v2_expected, 1e-11);
                sb_world_destroy(w);
            }
        }
    }
    return 0;
}

// ---------------------------------------------------------------- sequential (Nissen's "Stable Rigid Springs with Sequential Impulses")

static double hanging_chain_stretch(int iterations, double warmstart)
{
    sb_world_def def = sb_default_world_def();
    def.method = SB_METHOD_SEQUENTIAL;
    def.substeps = 1;
    def.iterations = iterations;
    def.warmstart = warmstart;
    def.collisions = false;
    def.tethers = false; // the article's solver alone (tethers would hold the chain for it)
    sb_world *w = sb_world_create(&def);
    sb_particle_id prev = add_particle(w, 0.0, 0.0, 1.0, true);
    for (int i = 1; i <= 20; ++i) {
        sb_particle_id p = add_particle(w, 0.0, -0.25 * i, i == 20 ? 10.0 : 1.0, false);
        add_spring(w, prev, p, 0.25, sb_tuning_hertz(0.0, 1.0));
        prev = p;
    }
    // Path stretch averaged over the second half of 4 s, once hanging has settled.
    double sum = 0.0;
    int n = 0;
    for (int f = 0; f < 240; ++f) {
        sb_world_step(w);
        if (f >= 120) {
            double len = 0.0;
            sb_spring_id s = sb_null_spring();
            while (sb_world_next_spring(w, &s))
                len += sb_spring_length(w, s);
            sum += len / 5.0 - 1.0;
            n += 1;
        }
    }
    sb_world_destroy(w);
    return sum / n;
}

// "The impulse propagates outwards ... one layer per simulation iteration": more iterations,
// less stretch. "This warmstart method is roughly equivalent to doubling the number of iterations."
TEST(sequential_iterations_and_warm_start)
{
    double previous = INFINITY;
    const int counts[] = {2, 4, 8, 16};
    for (int i = 0; i < 4; ++i) {
        double stretch = hanging_chain_stretch(counts[i], 0.0);
        printf("sequential, no warm start, %2d iterations: mean stretch %.5f%%\n", counts[i], 100 * stretch);
        ENSURE(stretch > 0.0);
        ENSURE(stretch < previous);
        previous = stretch;
    }
    for (int n = 2; n <= 8; n *= 2) {
        double warm = hanging_chain_stretch(n, 1.0);
        double cold = hanging_chain_stretch(n, 0.0);
        double cold_double = hanging_chain_stretch(2 * n, 0.0);
        printf("%d iterations: warm %.5f%%, cold %.5f%%, cold with %d iterations %.5f%%\n", n, 100 * warm,
               100 * cold, 2 * n, 100 * cold_double);
        ENSURE(warm < cold);             // warm start stiffens
        ENSURE(fabs(warm / cold_double - 1.0) < 0.1); // "roughly equivalent to doubling"
    }
    return 0;
}

// ---------------------------------------------------------------- force (the "Mass spring algorithm" note)

static double force_spring_peak(double omega_h, double zeta, int *clamped, sb_method method)
{
    sb_world_def def = quiet_def(method);
    sb_world *w = sb_world_create(&def);
    double h = def.dt / def.substeps;
    double hertz = omega_h / h / two_pi;
    sb_particle_id anchor = add_particle(w, 0.0, 0.0, 1.0, true);
    sb_particle_id p = add_particle(w, 1.1, 0.0, 3.0, false);
    add_spring(w, anchor, p, 1.0, sb_tuning_hertz(hertz, zeta));
    double peak = 0.0, early_peak = 0.0;
    *clamped = 0;
    for (int f = 0; f < 600; ++f) {
        if (f == 300)
            early_peak = peak;
        if (sb_world_step(w) != SB_OK)
            break;
        const sb_stats *st = sb_world_get_stats(w);
        *clamped = st->clamped_springs > *clamped ? st->clamped_springs : *clamped;
        double x = fabs(particle_now(w, p).position.x - 1.0);
        peak = x > peak ? x : peak;
    }
    if (sb_world_get_stats(w)->halted)
        peak = INFINITY;
    sb_world_destroy(w);
    // Stability means the second half of the run adds no growth.
    return peak > early_peak * 1.0001 ? INFINITY : peak;
}

// the "Mass spring algorithm" note: explicit springs are "only conditionally stable"; Catto's "Soft Constraints": "take at least 4 time
// steps per period". Plugging k and c into symplectic Euler diverges past w h = 2. A lone
// spring is delivered exactly up to four sub-steps per period, and past it the force method reports the spring and runs it
// at that limit instead of diverging; the same in a chain, whose modes reach twice the lone
// spring's, where the network limit scales the springs and reports them.
TEST(force_stability_limit)
{
    const double zetas[] = {0.0, 0.2};
    for (int i = 0; i < 2; ++i) {
        int clamped;
        double peak = force_spring_peak(0.9 * SB_MAX_OMEGA_H, zetas[i], &clamped, SB_METHOD_FORCE);
        ENSURE(clamped == 0);
        ENSURE(peak < 0.1 * 1.5);
        peak = force_spring_peak(2.2, zetas[i], &clamped, SB_METHOD_FORCE); // past w h = 2
        ENSURE(clamped == 1);
        ENSURE(peak < 0.1 * 1.5); // bounded: no growth
        peak = force_spring_peak(40.0, zetas[i], &clamped, SB_METHOD_IMPULSE);
        ENSURE(clamped == 1);
        ENSURE(peak <= 0.1 + 1e-12);
    }
    // A chain of undamped springs at four sub-steps per period: each lone spring is fine, the
    // chain's fastest mode (twice the stiffness) is not; the force method scales it down.
    sb_world_def def = quiet_def(SB_METHOD_FORCE);
    sb_world *w = sb_world_create(&def);
    sb_particle_id prev = add_particle(w, 0, 0, 1, true), last = prev;
    double hertz = 0.99 * SB_MAX_OMEGA_H / def.dt / two_pi;
    for (int i = 1; i <= 10; ++i) {
        last = add_particle(w, i * 0.5 + (i % 2) * 0.05, 0, 1, false);
        add_spring(w, prev, last, 0.5, sb_tuning_hertz(hertz, 0.0));
        prev = last;
    }
    double peak = 0.0;
    for (int f = 0; f < 600; ++f) {
        ENSURE(sb_world_step(w) == SB_OK);
        peak = fmax(peak, fabs(particle_now(w, last).position.x - 5.0));
    }
    const sb_stats *st = sb_world_get_stats(w);
    char line[256];
    sb_world_clamp_message(w, line, sizeof line);
    printf("%s\n", line);
    ENSURE(st->clamped_springs >= 1 && sb_spring_is_valid(w, st->clamped_spring));
    ENSURE(st->clamped_hertz < st->clamped_asked_hertz);
    ENSURE(strstr(line, "cannot run as tuned with force") != NULL);
    ENSURE(peak < 1.0); // bounded (it started 0.05 m out per link)
    sb_world_destroy(w);
    return 0;
}

// ---------------------------------------------------------------- verlet (Boesch's "Verlet collision with impulse preservation")

static double verlet_bounce_height(bool preserve)
{
    sb_world_def def = sb_default_world_def();
    def.method = SB_METHOD_VERLET;
    def.has_bounds = true;
    def.bounds = (sb_bounds){-5, 0, 5, 20};
    def.restitution = 1.0;
    def.verlet_preserve_impulse = preserve;
    sb_world *w = sb_world_create(&def);
    sb_particle_id p = add_particle(w, 0.0, 2.0, 1.0, false); // radius 0.1: drop of 1.9 m
    double peak_after = 0.0;
    bool bounced = false;
    for (int f = 0; f < 150; ++f) {
        sb_world_step(w);
        sb_particle_def d = particle_now(w, p);
        if (d.position.y < 0.3)
            bounced = true;
        if (bounced && d.position.y > peak_after)
            peak_after = d.position.y;
    }
    sb_world_destroy(w);
    return peak_after;
}

// "Normally verlet physics annihilates a lot of energy"; the impulse-preserving pass keeps it.
TEST(verlet_bounce_preserves_impulse)
{
    double with = verlet_bounce_height(true), without = verlet_bounce_height(false);
    printf("verlet elastic bounce: back to %.3f m with impulse preservation, %.3f m without (dropped from 2 m)\n",
           with, without);
    ENSURE(with > 1.9);
    ENSURE(without < 0.3);
    return 0;
}

// "You can see that the obnoxious jittering is gone": a resting stack stays where it is.
// Phase one's projection does not fully converge on a tall column in 8 iterations, so the
// stored velocity keeps a tiny residual that phase one cancels again every sub-step; the
// positions do not move at all, and the residual stays far below a visible bounce.
TEST(verlet_resting_stack_no_jitter)
{
    const sb_sample *stack = sb_sample_find("stack");
    sb_world_def def = sb_default_world_def();
    def.method = SB_METHOD_VERLET;
    def.restitution = 1.0; // the bounciest case: any ghost impulse would show
    sb_world *w = stack->build(&def, 6);
    for (int f = 0; f < 120; ++f)
        sb_world_step(w);
    double max_ke = 0.0, max_move = 0.0;
    sb_vec2 start[6];
    for (int i = 0; i < 6; ++i)
        start[i] = w->pos[i];
    for (int f = 0; f < 300; ++f) {
        sb_world_step(w);
        double ke = sb_world_get_stats(w)->kinetic_energy;
        max_ke = ke > max_ke ? ke : max_ke;
        for (int i = 0; i < 6; ++i) {
            double move = v2_len(v2_sub(w->pos[i], start[i]));
            max_move = move > max_move ? move : max_move;
        }
    }
    printf("verlet stack: max kinetic energy %.3g J, max drift %.3g m over 5 s\n", max_ke, max_move);
    ENSURE(max_ke < 1e-4); // a 1 kg circle bouncing 1 mm would carry about 1e-2 J
    ENSURE(max_move < 1e-9);
    // and the circles barely overlap
    for (int i = 1; i < 6; ++i)
        ENSURE(w->pos[i].y - w->pos[i - 1].y > 0.5 - 0.001 * 0.25); // overlap under 0.1% of r
    sb_world_destroy(w);
    return 0;
}

// The bounds confine (sb_world_def): a column of 40 circles under a 2000 kg weight
// overloads the soft contacts, but no centre may leave the box in any method.
TEST(bounds_hold_under_load)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world_def def = sb_default_world_def();
        def.method = (sb_method)m;
        def.has_bounds = true;
        def.bounds = (sb_bounds){-0.1, 0.0, 0.1, 100.0};
        sb_world *w = sb_world_create(&def);
        for (int i = 0; i < 41; ++i) {
            sb_particle_def p = sb_default_particle_def();
            p.position = v2(0.0, 0.1 + 0.2 * i);
            p.mass = i == 40 ? 2000.0 : 1.0;
            sb_world_add_particle(w, &p, NULL);
        }
        double lowest = INFINITY;
        for (int f = 0; f < 240; ++f) {
            sb_world_step(w);
            for (int i = 0; i < w->p_high; ++i)
                lowest = fmin(lowest, w->pos[i].y);
        }
        printf("%-10s lowest centre %.4f m (the floor is at 0)\n", sb_method_name((sb_method)m), lowest);
        ENSURE(lowest >= 0.0);
        sb_world_destroy(w);
    }
    return 0;
}

// ---------------------------------------------------------------- invariances

static sb_world *build_mixed_scene(sb_method method, double mass_scale, bool rigid)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.has_bounds = true;
    def.bounds = (sb_bounds){-3, -3, 3, 3};
    def.restitution = 0.3;
    sb_world *w = sb_world_create(&def);
    sb_particle_id prev = add_particle(w, -2.0, 2.0, 1.0, true);
    for (int i = 1; i <= 8; ++i) {
        sb_particle_id p = add_particle(w, -2.0 + 0.3 * i, 2.0, (1.0 + 0.5 * i) * mass_scale, false);
        set_radius(w, p, 0.1); // the scene's circles (0.05 m, the default, meet
                               // the loose balls at a contact margin that rounding decides)
        add_spring(w, prev, p, -1.0, rigid ? sb_tuning_hertz(0.0, 1.0) : sb_tuning_hertz(4.0 + i, 0.3));
        prev = p;
    }
    for (int i = 0; i < 5; ++i) // loose balls to collide with
        set_radius(w, add_particle(w, -1.0 + 0.45 * i, -2.5, 2.0 * mass_scale, false), 0.1);
    return w;
}

// "Changing them wouldn't make it necessary to re-tune the system": with hertz tuning,
// scaling every mass by the same factor leaves the motion unchanged, in every method: after 3 s
// of a falling chain striking loose balls within a micrometre (the scale, 37.5, is no power of
// two, so the two runs round apart, and collisions make that grow; a motion that depended on the
// masses would differ by millimetres).
TEST(mass_scaling_invariance)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int rigid = 0; rigid < 2; ++rigid) {
            sb_world *a = build_mixed_scene((sb_method)m, 1.0, rigid), *b = build_mixed_scene((sb_method)m, 37.5, rigid);
            for (int f = 0; f < 180; ++f) {
                sb_world_step(a);
                sb_world_step(b);
            }
            double worst = 0.0;
            for (int i = 0; i < a->p_high; ++i) {
                double d = v2_len(v2_sub(a->pos[i], b->pos[i]));
                worst = d > worst ? d : worst;
            }
            printf("%s (%s): positions differ by %.3g m\n", sb_method_name((sb_method)m), rigid ? "rigid" : "hertz", worst);
            ENSURE(worst < 1e-6);
            sb_world_destroy(a);
            sb_world_destroy(b);
        }
    }
    return 0;
}

// Internal springs and particle contacts exchange equal and opposite impulses, so total
// momentum is conserved, in every method.
TEST(momentum_conservation)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world_def def = sb_default_world_def();
        def.method = (sb_method)m;
        def.gravity = v2(0, 0);
        def.restitution = 0.5;
        sb_world *w = sb_world_create(&def);
        sb_rng rng = sb_rng_seed(7);
        sb_particle_id ids[12];
        for (int i = 0; i < 12; ++i) {
            sb_particle_def p = sb_default_particle_def();
            p.position = v2((i % 6) * 0.25 + (i >= 6 ? 2.0 : 0.0), (i % 2) * 0.25);
            p.velocity = v2(sb_rng_uniform(&rng, -1, 1) + (i >= 6 ? -3.0 : 3.0), sb_rng_uniform(&rng, -1, 1));
            p.mass = sb_rng_uniform(&rng, 0.5, 3.0);
            ids[i] = sb_world_add_particle(w, &p, NULL);
        }
        for (int i = 0; i < 5; ++i) { // two blobs that fly into each other
            add_spring(w, ids[i], ids[i + 1], -1, sb_tuning_hertz(i % 2 ? 0.0 : 6.0, 0.4));
            add_spring(w, ids[6 + i], ids[7 + i], -1, sb_tuning_coefficients(0.3, 0.2));
        }
        sb_vec2 p0 = v2(0, 0);
        for (int i = 0; i < 12; ++i)
            p0 = v2_mad(p0, w->mass[i], w->vel[i]);
        int contacts_seen = 0;
        for (int f = 0; f < 120; ++f) {
            sb_world_step(w);
            contacts_seen += sb_world_get_stats(w)->contacts;
        }
        sb_vec2 p1 = v2(0, 0);
        for (int i = 0; i < 12; ++i)
            p1 = v2_mad(p1, w->mass[i], w->vel[i]);
        ENSURE(contacts_seen > 0);
        ENSURE_NEAR(p1.x, p0.x, 1e-10);
        ENSURE_NEAR(p1.y, p0.y, 1e-10);
        sb_world_destroy(w);
    }
    return 0;
}

// ---------------------------------------------------------------- handles and input

TEST(stale_handles_rejected)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_particle_id a = add_particle(w, 0, 0, 1, false), b = add_particle(w, 1, 0, 1, false);
    sb_spring_id s = add_spring(w, a, b, -1, sb_tuning_hertz(0, 1));
    ENSURE(sb_spring_is_valid(w, s));
    ENSURE(sb_world_remove_particle(w, b) == SB_OK);
    ENSURE(!sb_particle_is_valid(w, b));
    ENSURE(!sb_spring_is_valid(w, s)); // removed with its particle
    sb_particle_id c = add_particle(w, 5, 5, 2, false); // reuses b's slot
    ENSURE(c.index == b.index && c.generation != b.generation);
    sb_particle_def d;
    ENSURE(sb_particle_get(w, b, &d) == SB_ERR_STALE);
    ENSURE(sb_particle_set(w, b, &d, NULL) == SB_ERR_STALE);
    ENSURE(sb_world_remove_particle(w, b) == SB_ERR_STALE);
    ENSURE(sb_particle_get(w, c, &d) == SB_OK && d.position.x == 5.0);
    sb_status st;
    sb_spring_def sd = sb_default_spring_def();
    sd.a = a;
    sd.b = b;
    const char *field = NULL;
    sb_world_add_spring(w, &sd, &st, &field);
    ENSURE(st == SB_ERR_STALE && strcmp(field, "b") == 0);
    ENSURE(sb_world_remove_spring(w, s) == SB_ERR_STALE);
    sb_particle_id never = {9999, 1}, null = sb_null_particle();
    ENSURE(!sb_particle_is_valid(w, never) && !sb_particle_is_valid(w, null));
    sb_wall_id wall = sb_world_add_wall(w, v2(0, 0), v2(1, 0), &st);
    ENSURE(sb_world_remove_wall(w, wall) == SB_OK && sb_world_remove_wall(w, wall) == SB_ERR_STALE);
    sb_world_destroy(w);
    return 0;
}

TEST(bad_input_rejected)
{
    sb_world_def def = sb_default_world_def();
    const char *field = NULL;
    def.substeps = 0;
    ENSURE(sb_world_def_check(&def, &field) == SB_ERR_INVALID && strcmp(field, "substeps") == 0);
    ENSURE(sb_world_create(&def) == NULL);
    def = sb_default_world_def();
    def.gravity.y = NAN;
    ENSURE(sb_world_def_check(&def, &field) == SB_ERR_INVALID && strcmp(field, "gravity") == 0);
    def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_particle_def p = sb_default_particle_def();
    sb_status st;
    p.mass = -1.0;
    ENSURE(sb_particle_def_check(&p, &field) == SB_ERR_INVALID && strcmp(field, "mass") == 0);
    sb_world_add_particle(w, &p, &st);
    ENSURE(st == SB_ERR_INVALID && sb_world_particle_count(w) == 0);
    p = sb_default_particle_def();
    p.position.x = INFINITY;
    ENSURE(sb_particle_def_check(&p, &field) == SB_ERR_INVALID && strcmp(field, "x") == 0);
    sb_particle_id a = add_particle(w, 0, 0, 1, false);
    sb_spring_def sd = sb_default_spring_def();
    sd.a = sd.b = a;
    sb_world_add_spring(w, &sd, &st, &field);
    ENSURE(st == SB_ERR_SAME_PARTICLE);
    sd.b = add_particle(w, 1, 0, 1, false);
    sd.tuning = sb_tuning_coefficients(1.5, 0.5);
    sb_world_add_spring(w, &sd, &st, &field);
    ENSURE(st == SB_ERR_INVALID && strcmp(field, "stiffness") == 0);
    sd.tuning = sb_tuning_hertz(-2.0, 0.5);
    sb_world_add_spring(w, &sd, &st, &field);
    ENSURE(st == SB_ERR_INVALID && strcmp(field, "hertz") == 0);
    ENSURE(sb_world_spring_count(w) == 0);
    // A rejected write changes nothing.
    sb_particle_def d = particle_now(w, a);
    d.velocity.y = NAN;
    ENSURE(sb_particle_set(w, a, &d, &field) == SB_ERR_INVALID && strcmp(field, "vy") == 0);
    ENSURE(particle_now(w, a).velocity.y == 0.0);
    sb_world_destroy(w);
    return 0;
}


/// How many ulps of b apart a is.
static double ulps_apart(double a, double b)
{
    if (a == b)
        return 0.0;
    return fabs(a - b) / (nextafter(fabs(b), INFINITY) - fabs(b));
}

// springbox's own trigonometry (sb_trig.h) against the C library, which is correctly rounded
// nearly everywhere on glibc, and against values known in closed form: within 3 ulps over
// arguments from 1e-4 to 1.6e6, and C's answers for zeros, infinities and NaNs.
TEST(trig_is_within_three_ulps_and_answers_as_c_does)
{
    sb_rng rng = sb_rng_seed(12345);
    double worst[7] = {0};
    for (int i = 0; i < 400000; ++i) {
        const double r = sb_rng_uniform(&rng, -0.5, 0.5);
        const double scale[] = {2e-4, 8.0, 200.0, 3.2e6};
        const double x = r * scale[i % 4], y = r * 10.0, z = (double)(((long long)i * 7919) % 2001 - 1000) / 97.0;
        const double w = 2.0 * r;
        const double got[7] = {sb_sin(x), sb_cos(x), fabs(x) < 100.0 ? sb_tan(x) : 0.0, sb_atan(y * exp(z)),
                               sb_atan2(y, z), sb_asin(w), sb_acos(w)};
        const double want[7] = {sin(x), cos(x), fabs(x) < 100.0 ? tan(x) : 0.0, atan(y * exp(z)), atan2(y, z), asin(w),
                                acos(w)};
        for (int k = 0; k < 7; ++k)
            worst[k] = fmax(worst[k], ulps_apart(got[k], want[k]));
    }
    for (int k = 0; k < 7; ++k)
        ENSURE(worst[k] <= 3.0);
    // closed forms: the double nearest pi has sin 1.2246467991473532e-16; tan(pi/4) and atan(1)
    ENSURE(ulps_apart(sb_sin(3.141592653589793), 1.2246467991473532e-16) <= 2.0);
    ENSURE(ulps_apart(sb_atan2(1.0, 1.0), 0.78539816339744831) <= 1.0);
    ENSURE(sb_acos(-1.0) == 3.141592653589793 && sb_acos(1.0) == 0.0 && sb_asin(1.0) == 1.5707963267948966);
    ENSURE(fabs(sb_tan(0.78539816339744831) - 1.0) <= 2.3e-16);
    for (double t = -40.0; t <= 40.0; t += 0.37)
        ENSURE(fabs(sb_sin(t) * sb_sin(t) + sb_cos(t) * sb_cos(t) - 1.0) <= 4.5e-16);
    // zeros, infinities, NaNs: as C's
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0};
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) {
            const double a = sb_atan2(special[i], special[j]), b = atan2(special[i], special[j]);
            ENSURE((isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b)));
        }
    ENSURE(signbit(sb_sin(-0.0)) && sb_sin(-0.0) == 0.0 && sb_cos(-0.0) == 1.0);
    ENSURE(isnan(sb_sin(INFINITY)) && isnan(sb_cos(-INFINITY)) && isnan(sb_asin(1.5)) && isnan(sb_acos(-1.5)));
    return 0;
}

static const test_entry tests[] = {
    ENTRY(tuning_formulas),
    ENTRY(impulse_one_step),
    ENTRY(soft_matches_implicit_euler),
    ENTRY(sequential_iterations_and_warm_start),
    ENTRY(force_stability_limit),
    ENTRY(verlet_bounce_preserves_impulse),
    ENTRY(verlet_resting_stack_no_jitter),
    ENTRY(bounds_hold_under_load),
    ENTRY(mass_scaling_invariance),
    ENTRY(momentum_conservation),
    ENTRY(stale_handles_rejected),
    ENTRY(bad_input_rejected),
    ENTRY(trig_is_within_three_ulps_and_answers_as_c_does),
};

int main(int argc, char **argv) { return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]); }
