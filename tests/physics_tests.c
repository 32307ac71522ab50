// Physics tests: what a scene written without reading the docs must get, measured
// from simulated motion (frequency from zero crossings, damping from the decay of the peaks,
// stretch over time, energy against the gravity released), in every method, over sub-steps,
// iterations and mass ratios. Run one by name (physics_tests chains_hold) or all.
#include "sb_tuning.h"
#include "sb_world.h"
#include "world_internal.h"

#include "ensure.h"
#include "world_helpers.h"
#include "motion.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- what you tune is what you get

/// One particle on a spring to a fixed point, no gravity, released 0.1 m out; returns what the
/// motion shows over 10 s, and how many springs the world reports as clamped.
static oscillation lone_spring(sb_method method, int substeps, double mass, sb_tuning t, int *clamped)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.gravity = v2(0, 0);
    sb_world *w = sb_world_create(&def);
    sb_particle_id anchor = add_particle(w, 0, 0, 1, true), p = add_particle(w, 1.1, 0, mass, false);
    sb_spring_def s = sb_default_spring_def();
    s.a = anchor;
    s.b = p;
    s.rest_length = 1.0;
    s.tuning = t;
    sb_world_add_spring(w, &s, NULL, NULL);
    double x[600];
    for (int f = 0; f < 600; ++f) {
        sb_world_step(w);
        sb_particle_def d;
        sb_particle_get(w, p, &d);
        x[f] = d.position.x - 1.0;
    }
    *clamped = sb_world_get_stats(w)->clamped_springs;
    sb_world_destroy(w);
    // Read the motion while it is motion: a well-damped spring is down to 1e-54 m after 10 s,
    // where the crossings are rounding's (positions near 1 m resolve 1e-16 m), not the spring's.
    int n = 600;
    while (n > 60 && fabs(x[n - 1]) < 1e-9)
        n -= 1;
    return measure(x, n, def.dt);
}

// The promise: a requested frequency and damping ratio give that motion in every method
// at 1, 2 and 6 sub-steps: damped frequency within 2%, damping ratio within 0.01 (or 5% when
// larger). Masses 1 and 100 kg; hertz tunings and the same spring as raw k and c.
TEST(tuning_delivered_in_every_method)
{
    const struct { double hertz, zeta; } asks[] = {{10.0, 0.05}, {4.0, 0.5}, {2.0, 0.01}, {7.0, 0.2}};
    const int substeps[] = {1, 2, 6};
    const double masses[] = {1.0, 100.0};
    int checked = 0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int a = 0; a < 4; ++a) {
            for (int si = 0; si < 3; ++si) {
                for (int mi = 0; mi < 2; ++mi) {
                    double hz = asks[a].hertz, zeta = asks[a].zeta, mass = masses[mi];
                    double omega = two_pi * hz, wanted = hz * sqrt(1.0 - zeta * zeta);
                    sb_tuning forms[2] = {sb_tuning_hertz(hz, zeta),
                                          sb_tuning_raw(mass * omega * omega, 2.0 * mass * zeta * omega)};
                    for (int f = 0; f < 2; ++f) {
                        int clamped;
                        oscillation o = lone_spring((sb_method)m, substeps[si], mass, forms[f], &clamped);
                        double zeta_tol = fmax(0.01, 0.05 * zeta);
                        bool ok = fabs(o.hertz / wanted - 1.0) <= 0.02 && fabs(o.zeta - zeta) <= zeta_tol && clamped == 0;
                        if (!ok)
                            printf("%s, %d sub-steps, %g kg, %s: asked %.3f Hz (damped) at %.3f, measured %.3f Hz at %.4f, "
                                   "%d clamped\n",
                                   sb_method_name((sb_method)m), substeps[si], mass, f ? "k/c" : "hertz", wanted, zeta,
                                   o.hertz, o.zeta, clamped);
                        ENSURE(ok);
                        checked += 1;
                    }
                }
            }
        }
    }
    printf("%d lone springs delivered as tuned\n", checked);
    return 0;
}

/// A lone spring's motion after its release 0.1 m out (as lone_spring), 5 s of it into x[300].
static void lone_spring_motion(sb_method method, int substeps, double mass, sb_tuning t, double *x)
{
    sb_world *w = world_with(method, substeps, v2(0, 0));
    sb_particle_id anchor = add_particle(w, 0, 0, 1, true), p = add_particle(w, 1.1, 0, mass, false);
    add_spring(w, anchor, p, 1.0, t);
    x[0] = 0.1;
    for (int f = 1; f < 300; ++f) {
        sb_world_step(w);
        x[f] = particle_now(w, p).position.x - 1.0;
    }
    sb_world_destroy(w);
}

// A release that swings too little to count crossings (a damping ratio of 0.75 overshoots by
// 2.8%, one of 1 or more not at all) reads its frequency and damping ratio from the shape of its
// decay (sb_measure_release): the closed forms sampled at 60 Hz give back what made them within
// 1% from 0.5 to 6 Hz and damping ratios 0.6 to 3. Lone springs tuned 2 Hz at 0.75, 1 and 2 read
// within 3% of their tuning in every method at six sub-steps, and closer with each sub-step added
// (the methods' first-order error in the step: at one sub-step force, impulse, sequential and
// verlet deliver 2 Hz at 2 as 2.39 Hz at 2.34, soft and xpbd as 1.92 at 1.93).
TEST(heavily_damped_releases_read_their_tuning)
{
    const double hertz[] = {0.5, 2.0, 6.0}, zetas[] = {0.6, 0.75, 1.0, 1.5, 3.0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
            double x[300], w = two_pi * hertz[i], z = zetas[j];
            for (int f = 0; f < 300; ++f) {
                double t = f / 60.0;
                if (z < 1.0) {
                    double wd = w * sqrt(1.0 - z * z);
                    x[f] = 0.1 * exp(-z * w * t) * (cos(wd * t) + z * w / wd * sin(wd * t));
                } else if (z == 1.0) {
                    x[f] = 0.1 * exp(-w * t) * (1.0 + w * t);
                } else {
                    double s1 = -z * w + w * sqrt(z * z - 1.0), s2 = -z * w - w * sqrt(z * z - 1.0);
                    x[f] = 0.1 * (s2 * exp(s1 * t) - s1 * exp(s2 * t)) / (s2 - s1);
                }
            }
            sb_release r = sb_measure_release(x, 300, 1.0 / 60.0);
            if (!(fabs(r.hertz / hertz[i] - 1.0) < 0.01 && fabs(r.zeta / z - 1.0) < 0.01 && r.fit > 0.999))
                printf("  closed form %.1f Hz at %.2f: read %.4f Hz at %.4f (fit %.6f)\n", hertz[i], z, r.hertz, r.zeta, r.fit);
            ENSURE(fabs(r.hertz / hertz[i] - 1.0) < 0.01);
            ENSURE(fabs(r.zeta / z - 1.0) < 0.01);
            ENSURE(r.fit > 0.999);
        }
    const double asked[] = {0.75, 1.0, 2.0};
    const int substeps[] = {1, 2, 6};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int a = 0; a < 3; ++a) {
            double off[3];
            for (int si = 0; si < 3; ++si) {
                double x[300];
                lone_spring_motion((sb_method)m, substeps[si], 1.0, sb_tuning_hertz(2.0, asked[a]), x);
                sb_release r = sb_measure_release(x, 300, 1.0 / 60.0);
                printf("  %-10s %d sub-steps, 2 Hz at %.2f: reads %.3f Hz at %.3f (fit %.5f)\n",
                       sb_method_name((sb_method)m), substeps[si], asked[a], r.hertz, r.zeta, r.fit);
                ENSURE(r.fit > 0.999);
                off[si] = fmax(fabs(r.hertz / 2.0 - 1.0), fabs(r.zeta / asked[a] - 1.0));
            }
            ENSURE(off[2] < 0.03);
            ENSURE(off[0] > off[1] && off[1] > off[2]); // it converges as the sub-step shrinks
        }
    return 0;
}

// Nissen's coefficients are discrete: every method gives the motion his impulse spring has at
// the step (same frequency and decay), not each its own.
TEST(coefficients_give_nissens_motion_in_every_method)
{
    const sb_tuning t = sb_tuning_coefficients(0.3, 0.05);
    int clamped;
    oscillation nissen = lone_spring(SB_METHOD_IMPULSE, 1, 1.0, t, &clamped);
    ENSURE(nissen.crossings > 20 && clamped == 0);
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        oscillation o = lone_spring((sb_method)m, 1, 1.0, t, &clamped);
        printf("%-10s %.3f Hz at %.4f (impulse: %.3f Hz at %.4f)\n", sb_method_name((sb_method)m), o.hertz, o.zeta,
               nissen.hertz, nissen.zeta);
        ENSURE(fabs(o.hertz / nissen.hertz - 1.0) <= 0.01);
        ENSURE(fabs(o.zeta - nissen.zeta) <= 0.005);
    }
    return 0;
}

// Past four sub-steps per period (Catto's soft-constraint talk's rule of thumb) a frequency cannot be delivered:
// the world names the spring, says what it asks and what it gets, and the motion is what it
// says it gets. With more sub-steps the same spring is no longer clamped.
TEST(undeliverable_frequency_is_named_and_delivered_as_said)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world_def def = sb_default_world_def();
        def.method = (sb_method)m;
        def.substeps = 1;
        def.gravity = v2(0, 0);
        sb_world *w = sb_world_create(&def);
        sb_particle_id anchor = add_particle(w, 0, 0, 1, true), p = add_particle(w, 1.1, 0, 2.0, false);
        sb_spring_def sd = sb_default_spring_def();
        sd.a = anchor;
        sd.b = p;
        sd.rest_length = 1.0;
        sd.tuning = sb_tuning_hertz(30.0, 0.05); // 30 Hz at one 60 Hz sub-step: half a period per step
        sb_spring_id s = sb_world_add_spring(w, &sd, NULL, NULL);
        double x[600];
        for (int f = 0; f < 600; ++f) {
            ENSURE(sb_world_step(w) == SB_OK);
            sb_particle_def d;
            sb_particle_get(w, p, &d);
            x[f] = d.position.x - 1.0;
        }
        const sb_stats *st = sb_world_get_stats(w);
        char line[256];
        sb_world_clamp_message(w, line, sizeof line);
        oscillation o = measure(x, 600, def.dt);
        double said = st->clamped_hertz * sqrt(1.0 - st->clamped_damping_ratio * st->clamped_damping_ratio);
        printf("%-10s measured %.2f Hz at %.3f | %s\n", sb_method_name((sb_method)m), o.hertz, o.zeta, line);
        ENSURE(st->clamped_springs == 1 && st->clamped_spring.index == s.index);
        ENSURE(st->clamped_asked_hertz == 30.0 && st->clamped_hertz < 30.0);
        ENSURE(strstr(line, "spring 1 asks 30 Hz") != NULL);
        ENSURE(fabs(o.hertz / said - 1.0) <= 0.03);
        ENSURE(fabs(x[599]) <= 0.1); // bounded
        sb_world_destroy(w);
        int clamped; // at six sub-steps it is within the limit (frames at 60 Hz cannot show 30 Hz)
        lone_spring((sb_method)m, 6, 2.0, sd.tuning, &clamped);
        ENSURE(clamped == 0);
    }
    return 0;
}

/// A particle of `mass` hanging on a spring from a fixed point; the mean stretch over the last
/// 5 of 20 s.
static double hanging_stretch(sb_method method, int substeps, double mass, sb_tuning t)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    sb_world *w = sb_world_create(&def);
    sb_particle_id anchor = add_particle(w, 0, 0, 1, true), p = add_particle(w, 0, -0.5, mass, false);
    sb_spring_id s = add_spring(w, anchor, p, -1.0, t);
    double mean = 0.0;
    for (int f = 0; f < 1200; ++f) {
        sb_world_step(w);
        if (f >= 900)
            mean += (sb_spring_length(w, s) - 0.5) / 300.0;
    }
    sb_world_destroy(w);
    return mean;
}

// An over-damped spring shows no frequency; what it shows is how far it sags. In the implicit
// methods (soft, xpbd) it sags m g / k, k = m w^2, at any sub-step count.
TEST(overdamped_spring_sags_m_g_over_k)
{
    const sb_method implicit[] = {SB_METHOD_SOFT, SB_METHOD_XPBD};
    const double zetas[] = {1.0, 3.0};
    for (int i = 0; i < 2; ++i) {
        for (int z = 0; z < 2; ++z) {
            for (int s = 1; s <= 6; s += 5) {
                double hz = 3.0, mass = 4.0, k = mass * pow(two_pi * hz, 2.0);
                double sag = hanging_stretch(implicit[i], s, mass, sb_tuning_hertz(hz, zetas[z]));
                double expected = mass * 9.81 / k;
                printf("%-5s zeta %g, %d sub-steps: sag %.5f m, m g / k %.5f m\n", sb_method_name(implicit[i]), zetas[z], s,
                       sag, expected);
                ENSURE(fabs(sag / expected - 1.0) <= 0.02);
            }
        }
        // The reload ramp's settling damping: damping ratio 21 at 60 Hz, four sub-steps. Its fast
        // pole (1e-29) once cancelled to 0 in the arithmetic and the spring went 67 times softer
        // (a cloth retuned from rigid to 60 Hz stretched 181%).
        double k = 2.0 * pow(two_pi * 60.0, 2.0), sag = hanging_stretch(implicit[i], 4, 2.0, sb_tuning_hertz(60.0, 21.0));
        printf("%-5s zeta 21 at 60 Hz, 4 sub-steps: sag %.6f m, m g / k %.6f m\n", sb_method_name(implicit[i]), sag,
               2.0 * 9.81 / k);
        ENSURE(fabs(sag / (2.0 * 9.81 / k) - 1.0) <= 0.02);
    }
    return 0;
}

// ---------------------------------------------------------------- chains, cloths, nets

/// The chain: `links` rigid links of 0.1 m pinned at one end, released horizontal, with
/// `end_mass` at the free end; the worst single-link stretch over 3 s. *clamped: the springs the
/// world reports; -1 stretch if it halted.
static double chain_stretch(sb_method method, int substeps, int iterations, double end_mass, int *clamped)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.iterations = iterations;
    sb_world *w = sb_world_create(&def);
    sb_particle_id prev = add_particle(w, 0, 0, 1, true);
    for (int i = 1; i <= 30; ++i) {
        sb_particle_id p = add_particle(w, 0.1 * i, 0, i == 30 ? end_mass : 1.0, false);
        add_spring(w, prev, p, -1.0, sb_tuning_hertz(0.0, 1.0));
        prev = p;
    }
    double worst = 0.0;
    for (int f = 0; f < 180; ++f) {
        if (sb_world_step(w) != SB_OK) {
            worst = -1.0;
            break;
        }
        worst = fmax(worst, sb_world_get_stats(w)->max_stretch);
    }
    *clamped = sb_world_get_stats(w)->clamped_springs;
    sb_world_destroy(w);
    return worst;
}

// Every method holds the chain at any sub-steps and iterations, with end masses 1, 10 and 100 kg
// (the 100 kg end is 20 or more times its bead and the chain is solved whole: under 15% at one
// sub-step, 10% at two (verlet's shown positions; the others' 1%) and 2% from three, whatever the
// iterations); more iterations never make an iterative method worse (within the noise of a chaotic swing:
// 50% + 1 point; the rigid links keep the chain's energy, and the worst stretch of a whip that
// loses none spreads further from run to run); at one sub-step, with the default 4 iterations or more, the iterative methods
// do no worse than Box2D 2.4.1 at one step per frame (8 velocity and 3 position iterations:
// 27% for equal masses, 43% for a 10:1 end mass, measured by the issue). The explicit methods
// cannot hold a rigid spring: they stay bounded and report every link.
TEST(chains_hold_and_improve_with_iterations)
{
    const int substeps[] = {1, 2, 3, 6}, iterations[] = {1, 2, 4, 8, 16, 32};
    const double end_masses[] = {1.0, 10.0, 100.0};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        bool is_explicit = m == SB_METHOD_FORCE || m == SB_METHOD_IMPULSE;
        for (int e = 0; e < 3; ++e) {
            for (int s = 0; s < 4; ++s) {
                double previous = INFINITY;
                printf("%-10s end %3g kg, %d sub-steps:", sb_method_name((sb_method)m), end_masses[e], substeps[s]);
                for (int i = 0; i < 6; ++i) {
                    int clamped;
                    double stretch = chain_stretch((sb_method)m, substeps[s], iterations[i], end_masses[e], &clamped);
                    printf(" %.1f%%", 100.0 * stretch);
                    ENSURE(stretch >= 0.0); // never halted
                    if (is_explicit) {
                        ENSURE(clamped == 30);
                        ENSURE(stretch < 3.0);
                    } else {
                        ENSURE(clamped == 0);
                        if (end_masses[e] < 20.0)
                            ENSURE(stretch <= 1.5 * previous + 0.01);
                        else // solved whole (articulation.c): the iterations take no part
                            ENSURE(stretch <= (substeps[s] == 1 ? 0.15 : substeps[s] == 2 ? 0.10 : 0.02));
                        if (substeps[s] == 1 && iterations[i] >= 4)
                            ENSURE(stretch <= (end_masses[e] == 1.0 ? 0.27 : 0.43));
                    }
                    previous = stretch;
                }
                printf("\n");
            }
        }
    }
    return 0;
}

/// A 12 x 12 cloth with shear springs, pinned at its top corners; masses 1 kg, or 1 and 100 kg
/// in a checkerboard. Returns the largest ratio, over 5 s, of kinetic energy to the gravity
/// energy released (plus 1 J): a method that adds no energy stays below 1.
static double cloth_energy_ratio(sb_method method, int substeps, int iterations, sb_tuning t, bool heavy)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.iterations = iterations;
    sb_world *w = sb_world_create(&def);
    const int n = 12;
    sb_particle_id id[12 * 12];
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            id[y * n + x] = add_particle(w, 0.1 * x, -0.1 * y, heavy && (x + y) % 2 ? 100.0 : 1.0,
                                         y == 0 && (x == 0 || x == n - 1));
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            if (x + 1 < n)
                add_spring(w, id[y * n + x], id[y * n + x + 1], -1.0, t);
            if (y + 1 < n)
                add_spring(w, id[y * n + x], id[(y + 1) * n + x], -1.0, t);
            if (x + 1 < n && y + 1 < n) {
                add_spring(w, id[y * n + x], id[(y + 1) * n + x + 1], -1.0, t);
                add_spring(w, id[y * n + x + 1], id[(y + 1) * n + x], -1.0, t);
            }
        }
    }
    double y0[12 * 12], worst = 0.0;
    for (int i = 0; i < n * n; ++i)
        y0[i] = w->pos[i].y;
    for (int f = 0; f < 300; ++f) {
        if (sb_world_step(w) != SB_OK) {
            worst = INFINITY;
            break;
        }
        double released = 0.0;
        for (int i = 0; i < n * n; ++i)
            released += w->mass[i] * 9.81 * (y0[i] - w->pos[i].y);
        worst = fmax(worst, sb_world_get_stats(w)->kinetic_energy / (released + 1.0));
    }
    sb_world_destroy(w);
    return worst;
}

// Cloths of rigid springs and nets of tuned ones (light and no damping, stiff and soft, 100:1
// masses) never gain energy in any method, at 1, 2 and 6 sub-steps and 1, 4 and 32 iterations.
// (sequential at one iteration on the 100:1 net gained energy while it iterated its tuned springs
// to each one's own target; they now give Nissen's impulse once, method_sequential.c.)
TEST(cloths_and_nets_never_gain_energy)
{
    const struct { double hertz, zeta; bool heavy; } cases[] = {
        {0.0, 1.0, false}, {0.0, 1.0, true}, {5.0, 0.1, true}, {20.0, 0.1, false}, {20.0, 0.0, false}, {60.0, 0.3, true},
    };
    const int substeps[] = {1, 2, 6}, iterations[] = {1, 4, 32};
    unsigned k = 0;
    for (int c = 0; c < 6; ++c) {
        for (int m = 0; m < SB_METHOD_COUNT; ++m) {
            printf("%5g Hz %4.2f %s %-10s", cases[c].hertz, cases[c].zeta, cases[c].heavy ? "100:1" : "  1:1",
                   sb_method_name((sb_method)m));
            for (int s = 0; s < 3; ++s) {
                for (int i = 0; i < 3; ++i) {
                    if (!sweep_case_runs(k++)) {
                        printf("     -");
                        continue;
                    }
                    double ratio = cloth_energy_ratio((sb_method)m, substeps[s], iterations[i],
                                                      sb_tuning_hertz(cases[c].hertz, cases[c].zeta), cases[c].heavy);
                    printf(" %5.2f", ratio);
                    ENSURE(ratio < 1.0);
                }
            }
            printf("\n");
        }
    }
    return 0;
}

// ---------------------------------------------------------------- collisions

// Box2D's collideConnected = false: two particles joined by a spring never collide, however
// much their circles overlap; `collide` on the spring opts back in. A world that starts with
// unjoined overlapping particles says so once: how many pairs and the deepest overlap.
TEST(joined_particles_do_not_collide)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world_def def = sb_default_world_def();
        def.method = (sb_method)m;
        def.gravity = v2(0, 0);
        sb_world *w = sb_world_create(&def);
        sb_particle_def pd = sb_default_particle_def();
        pd.radius = 0.3;
        pd.position = v2(0, 0);
        sb_particle_id a = sb_world_add_particle(w, &pd, NULL);
        pd.position = v2(0.4, 0);
        sb_particle_id b = sb_world_add_particle(w, &pd, NULL);
        sb_spring_id s = add_spring(w, a, b, -1.0, sb_tuning_hertz(0.0, 1.0)); // rest 0.4 m, circles overlap 0.2 m
        for (int f = 0; f < 30; ++f)
            ENSURE(sb_world_step(w) == SB_OK);
        ENSURE(sb_world_get_stats(w)->contacts == 0);
        ENSURE(sb_world_get_stats(w)->overlapping_pairs == 0);
        ENSURE(fabs(sb_spring_length(w, s) - 0.4) < 1e-6); // nothing pushes them apart
        // Opting in: the contact pushes the ends apart against the rigid spring's rest length.
        ENSURE(sb_spring_set_collide(w, s, true) == SB_OK);
        sb_spring_def got;
        sb_spring_get(w, s, &got);
        ENSURE(got.collide);
        sb_world_step(w);
        ENSURE(sb_world_get_stats(w)->contacts == 1);
        sb_world_destroy(w);
    }
    // Two free circles overlapping by 0.1 m, not joined: reported at the first step, once.
    sb_world_def def = sb_default_world_def();
    def.gravity = v2(0, 0);
    sb_world *w = sb_world_create(&def);
    sb_particle_def pd = sb_default_particle_def();
    pd.radius = 0.2;
    sb_world_add_particle(w, &pd, NULL);
    pd.position = v2(0.3, 0);
    sb_world_add_particle(w, &pd, NULL);
    pd.position = v2(5, 0);
    sb_world_add_particle(w, &pd, NULL);
    pd.position = v2(5.399, 0); // overlapping by 0.5% of the radius: touching, not reported
    sb_world_add_particle(w, &pd, NULL);
    sb_world_step(w);
    const sb_stats *st = sb_world_get_stats(w);
    char line[256];
    sb_world_overlap_message(w, line, sizeof line);
    printf("%s\n", line);
    ENSURE(st->overlapping_pairs == 1);
    ENSURE(fabs(st->worst_overlap - 0.1) < 1e-12);
    ENSURE(st->overlap_a.index == 0 && st->overlap_b.index == 1);
    ENSURE(strstr(line, "1 pair of particles") && strstr(line, "particles 1 and 2"));
    for (int f = 0; f < 60; ++f)
        sb_world_step(w);
    ENSURE(sb_world_get_stats(w)->overlapping_pairs == 1); // measured once: kept, not recounted
    sb_world_destroy(w);
    return 0;
}

// A cloth built the obvious way (0.1 m spacing, default radius, structural and shear springs)
// has no contacts at rest: neighbours are joined, and the default radius of 0.05 m keeps
// particles two links apart clear (at 0.1 m they touched or overlapped: 17870 contacts on a
// 96 x 96 cloth). It reports no overlap either.
TEST(default_cloth_has_no_contacts_at_rest)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    const int n = 20;
    sb_particle_id id[20 * 20];
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            id[y * n + x] = add_particle(w, 0.1 * x, -0.1 * y, 1.0, y == 0);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            if (x + 1 < n)
                add_spring(w, id[y * n + x], id[y * n + x + 1], -1.0, sb_tuning_hertz(0, 1));
            if (y + 1 < n)
                add_spring(w, id[y * n + x], id[(y + 1) * n + x], -1.0, sb_tuning_hertz(0, 1));
            if (x + 1 < n && y + 1 < n) {
                add_spring(w, id[y * n + x], id[(y + 1) * n + x + 1], -1.0, sb_tuning_hertz(0, 1));
                add_spring(w, id[y * n + x + 1], id[(y + 1) * n + x], -1.0, sb_tuning_hertz(0, 1));
            }
        }
    for (int f = 0; f < 120; ++f)
        ENSURE(sb_world_step(w) == SB_OK);
    ENSURE(sb_world_get_stats(w)->contacts == 0);
    ENSURE(sb_world_get_stats(w)->overlapping_pairs == 0);
    ENSURE(sb_world_get_stats(w)->max_stretch < 0.01);
    sb_world_destroy(w);
    return 0;
}

// ---------------------------------------------------------------- walls

/// `n` heavy circles (radius 0.05..0.1 m, 1000 kg/m^2, 8..31 kg) poured into a U of three walls
/// 4 m wide. Returns the most centres ever seen outside the U and the kinetic energy at the end.
static int walled_pile(sb_method method, int n, int frames, double *final_ke)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    sb_world *w = sb_world_create(&def);
    sb_world_add_wall(w, v2(-2, 0), v2(2, 0), NULL);
    sb_world_add_wall(w, v2(-2, 0), v2(-2, 30), NULL);
    sb_world_add_wall(w, v2(2, 30), v2(2, 0), NULL); // either direction: walls have no inside
    uint32_t seed = 12345;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        double r = 0.05 + 0.05 * ((seed >> 8) & 0xffff) / 65535.0;
        sb_particle_def p = sb_default_particle_def();
        p.radius = r;
        p.mass = 1000.0 * 3.14159265358979 * r * r;
        p.position = v2(-1.85 + (i % 16) * 0.23, 0.3 + (i / 16) * 0.22);
        sb_world_add_particle(w, &p, NULL);
    }
    int worst = 0;
    for (int f = 0; f < frames; ++f) {
        if (sb_world_step(w) != SB_OK)
            return 1 << 30;
        int out = 0;
        for (int i = 0; i < w->p_high; ++i)
            out += w->pos[i].y < 0.0 || w->pos[i].x < -2.0 || w->pos[i].x > 2.0;
        worst = out > worst ? out : worst;
    }
    *final_ke = sb_world_get_stats(w)->kinetic_energy;
    sb_world_destroy(w);
    return worst;
}

// A wall holds any pile: no centre is ever on the other side, in any method, and the pile comes
// to rest (kinetic energy under 1 mJ per kilogram after 20 s; the pile is about 8 t).
TEST(walls_hold_a_heavy_pile)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        double ke = INFINITY;
        int out = walled_pile((sb_method)m, 800, 1200, &ke);
        printf("%-10s 800 circles: at most %d outside, kinetic energy %.4g J after 20 s\n", sb_method_name((sb_method)m),
               out, ke);
        ENSURE(out == 0);
        ENSURE(ke < 8.0);
    }
    return 0;
}

// Fast particles are handled continuously: shot at a thin wall at up to 3 km/s, from either
// side and at a slant, a centre never ends up on the other side, in any method.
TEST(fast_particles_do_not_tunnel_through_walls)
{
    const double speeds[] = {10.0, 300.0, 3000.0};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int s = 0; s < 3; ++s) {
            for (int side = -1; side <= 1; side += 2) {
                sb_world_def def = sb_default_world_def();
                def.method = (sb_method)m;
                def.gravity = v2(0, 0);
                sb_world *w = sb_world_create(&def);
                sb_world_add_wall(w, v2(0, -50), v2(0, 50), NULL);
                sb_particle_def p = sb_default_particle_def();
                p.position = v2(-side * 1.0, 0.0);
                p.velocity = v2(side * speeds[s], 0.3 * speeds[s]);
                sb_particle_id id = sb_world_add_particle(w, &p, NULL);
                for (int f = 0; f < 30; ++f) {
                    ENSURE(sb_world_step(w) == SB_OK);
                    sb_particle_def d;
                    sb_particle_get(w, id, &d);
                    if (d.position.y < 50.0) // still in front of the wall's span
                        ENSURE(d.position.x * -side > 0.0);
                }
                sb_world_destroy(w);
            }
        }
    }
    return 0;
}

// scripts/bridge.lua in C: a deck of 10 Hz springs pinned at both ends, rigid cables on towers,
// 20 Hz hangers (damping ratio 1 everywhere), and a 20 kg load resting on the deck.
static sb_world *suspension_bridge(sb_method method)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = 4;
    def.iterations = 8;
    def.has_bounds = true;
    def.bounds = (sb_bounds){-8, -6, 8, 8};
    sb_world *w = sb_world_create(&def);
    const int n = 24;
    const double span = 12.0, dx = span / n;
    sb_particle_id deck[25], prev = sb_null_particle();
    for (int i = 0; i <= n; ++i) {
        sb_particle_def p = sb_default_particle_def();
        p.position = v2(-span / 2 + i * dx, 0);
        p.mass = 2;
        p.radius = 0.12;
        p.fixed = i == 0 || i == n;
        deck[i] = sb_world_add_particle(w, &p, NULL);
        if (i > 0)
            add_spring(w, prev, deck[i], -1.0, sb_tuning_hertz(10, 1));
        prev = deck[i];
    }
    prev = sb_null_particle();
    for (int i = 0; i <= n; i += 2) {
        double x = -span / 2 + i * dx, u = x / (span / 2);
        sb_particle_def p = sb_default_particle_def();
        p.position = v2(x, 4 - 2.5 * (1 - u * u));
        p.mass = 0.5;
        p.radius = 0.06;
        p.fixed = i == 0 || i == n;
        sb_particle_id c = sb_world_add_particle(w, &p, NULL);
        if (i > 0)
            add_spring(w, prev, c, -1.0, sb_tuning_hertz(0, 1));
        if (i > 0 && i < n)
            add_spring(w, c, deck[i], -1.0, sb_tuning_hertz(20, 1));
        prev = c;
    }
    sb_particle_def load = sb_default_particle_def();
    load.position = v2(-3, 1.5);
    load.mass = 20;
    load.radius = 0.35;
    sb_world_add_particle(w, &load, NULL);
    return w;
}

// A structure of rigid and tuned springs comes to rest: after two minutes the kinetic energy is
// under 10 mJ in soft (the default), xpbd, force and impulse. The rigid springs' position sweeps
// without a slop kept it moving at 0.08 J for minutes in soft. Two methods keep a small jiggle of
// the load on the deck, bounded here at 0.2 J: verlet, whose projected contacts never let it rest
// (0.20 J once, 0.14 J now), and sequential (0.005 J before, 0.03 J now that its
// springs are critically damped as asked rather than over-damped).
TEST(suspension_bridge_comes_to_rest)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world *w = suspension_bridge((sb_method)m);
        for (int f = 0; f < 7200; ++f)
            ENSURE(sb_world_step(w) == SB_OK);
        double ke = sb_world_get_stats(w)->kinetic_energy;
        printf("%-10s kinetic energy after 120 s: %.3g J\n", sb_method_name((sb_method)m), ke);
        bool jiggles = m == SB_METHOD_VERLET || m == SB_METHOD_SEQUENTIAL;
        ENSURE(ke < (jiggles ? 0.2 : 0.01));
        sb_world_destroy(w);
    }
    return 0;
}

// ---------------------------------------------------------------- what a game meets

// Nissen's one-step spring (Nissen's "Developing a rigid, stable spring": Cs = Cd = 1 "corrects the error in one step") released at
// 40% stretch reaches its rest length within two frames and stays, without halting the world, in
// every method at 1, 2 and 6 sub-steps and for masses of 0.1 to 10 kg. xpbd halted at its first
// step (a division by the pole at 0) and stayed at 40% with nothing said.
TEST(nissens_one_step_spring_in_every_method)
{
    const int substeps[] = {1, 2, 6};
    const double masses[] = {0.1, 1.0, 10.0};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si)
            for (int k = 0; k < 3; ++k) {
                sb_world_def def = sb_default_world_def();
                def.method = (sb_method)m;
                def.substeps = substeps[si];
                def.gravity = v2(0, 0);
                sb_world *w = sb_world_create(&def);
                sb_particle_def p = sb_default_particle_def();
                p.fixed = true;
                sb_particle_id a = sb_world_add_particle(w, &p, NULL);
                p.fixed = false;
                p.mass = masses[k];
                p.position = v2(1.4, 0);
                sb_particle_id b = sb_world_add_particle(w, &p, NULL);
                sb_spring_def sd = sb_default_spring_def();
                sd.a = a;
                sd.b = b;
                sd.rest_length = 1.0;
                sd.tuning = sb_tuning_coefficients(1.0, 1.0);
                sb_world_add_spring(w, &sd, NULL, NULL);
                for (int f = 0; f < 10; ++f) {
                    ENSURE(sb_world_step(w) == SB_OK);
                    sb_particle_get(w, b, &p);
                    if (f >= 1)
                        ENSURE_NEAR(p.position.x, 1.0, 1e-6);
                }
                ENSURE(!sb_world_get_stats(w)->halted);
                sb_world_destroy(w);
            }
    return 0;
}

// A spring let go at rest swings no farther than where it was let go. verlet
// showed the article's x, one step ahead of the motion, and a 10 Hz spring released 0.1 m out
// reached -0.2 m at one sub-step. A sampled swing can show up to 1/cos(pi f h) of its amplitude
// (the force method's map samples it so), 1.155 for 10 Hz at 60 Hz: every method stays within it.
TEST(released_springs_swing_no_farther_than_let_go)
{
    const double asks[][2] = {{10.0, 0.0}, {10.0, 0.1}, {4.0, 0.0}, {2.0, 0.3}};
    const int substeps[] = {1, 2, 6};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int a = 0; a < 4; ++a)
            for (int si = 0; si < 3; ++si) {
                sb_world *w = world_with((sb_method)m, substeps[si], v2(0, 0));
                const sb_world_def def = sb_world_get_def(w);
                sb_particle_id anchor = add_particle(w, 0, 0, 1, true), p = add_particle(w, 1.1, 0, 1, false);
                sb_spring_def sd = sb_default_spring_def();
                sd.a = anchor;
                sd.b = p;
                sd.rest_length = 1.0;
                sd.tuning = sb_tuning_hertz(asks[a][0], asks[a][1]);
                sb_world_add_spring(w, &sd, NULL, NULL);
                double farthest = 0.0, first_low = 0.0;
                for (int f = 0; f < 120; ++f) {
                    sb_world_step(w);
                    sb_particle_def d;
                    sb_particle_get(w, p, &d);
                    double x = d.position.x - 1.0;
                    farthest = fmax(farthest, fabs(x));
                    first_low = f < 60.0 / asks[a][0] ? fmin(first_low, x) : first_low;
                }
                sb_world_destroy(w);
                double bound = 0.1 / cos(3.14159265358979 * asks[a][0] * def.dt / def.substeps);
                // and it does swing back through the rest length, as far as its damping lets it
                double zeta = asks[a][1], overshoot = -0.1 * exp(-zeta * 3.14159265358979 / sqrt(1.0 - zeta * zeta));
                if (farthest > bound + 1e-12 || first_low > 0.8 * overshoot)
                    printf("%s %d sub-steps, %g Hz at %g: farthest %.4f m (bound %.4f), first swing to %.4f\n",
                           sb_method_name((sb_method)m), substeps[si], asks[a][0], asks[a][1], farthest, bound, first_low);
                ENSURE(farthest <= bound + 1e-12);
                ENSURE(first_low <= 0.8 * overshoot);
            }
    return 0;
}

// No method makes energy. An undamped 4-link chain swinging from horizontal in
// force at one sub-step reached 2751% stretch and 224 kJ against 24.5 J released, and ran on.
// Chains of 4 cm to 1 m links on 8 to 30 Hz undamped springs, every method, 1, 2 and 6 sub-steps,
// 10 s: the kinetic energy never passes what gravity released by more than a tenth of the run's
// energy scale (its weight times |g| times its extent, plus what it released), or the world halts
// first, saying so and naming a spring of the chain. The implicit methods never halt.
TEST(no_method_makes_energy_from_nowhere)
{
    const double links[] = {0.05, 0.1, 0.25, 1.0}, hertz[] = {8.0, 15.0, 30.0};
    const int substeps[] = {1, 2, 6};
    int halts = 0, runs = 0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int li = 0; li < 4; ++li)
            for (int hi = 0; hi < 3; ++hi)
                for (int si = 0; si < 3; ++si) {
                    sb_world *w = world_with((sb_method)m, substeps[si], sb_default_world_def().gravity);
                    sb_particle_id id[5];
                    sb_spring_id spring[4];
                    id[0] = add_particle(w, 0, 0, 1, true);
                    for (int k = 1; k <= 4; ++k) {
                        id[k] = add_particle(w, links[li] * k, 0, 1, false);
                        spring[k - 1] = add_spring(w, id[k - 1], id[k], -1.0, sb_tuning_hertz(hertz[hi], 0.0));
                    }
                    double weight_scale = 4.0 * 9.81 * 4.0 * links[li], most_released = 0.0, worst = 0.0;
                    bool halted = false;
                    for (int f = 0; f < 600 && !halted; ++f) {
                        halted = sb_world_step(w) != SB_OK;
                        if (halted)
                            break;
                        double released = 0.0;
                        for (int k = 1; k <= 4; ++k)
                            released -= 9.81 * w->pos[id[k].index].y;
                        most_released = fmax(most_released, released);
                        double over = sb_world_get_stats(w)->kinetic_energy - released;
                        worst = fmax(worst, over / (weight_scale + most_released));
                    }
                    runs += 1;
                    if (halted) {
                        const sb_stats *st = sb_world_get_stats(w);
                        bool named = false;
                        for (int k = 0; k < 4; ++k)
                            named = named || (st->bad_spring.index == spring[k].index && st->bad_spring.generation == spring[k].generation);
                        printf("%-10s %4.2f m %2.0f Hz %d sub-steps: %s\n", sb_method_name((sb_method)m), links[li], hertz[hi],
                               substeps[si], st->message);
                        ENSURE(strstr(st->message, "energy from nowhere") != NULL && strstr(st->message, "springs") != NULL);
                        ENSURE(named);
                        ENSURE(m != SB_METHOD_SOFT && m != SB_METHOD_XPBD);
                        halts += 1;
                    }
                    if (worst > 0.1)
                        printf("%-10s %4.2f m %2.0f Hz %d sub-steps: kinetic energy over the released by %.3f of the scale\n",
                               sb_method_name((sb_method)m), links[li], hertz[hi], substeps[si], worst);
                    ENSURE(worst <= 0.1);
                    sb_world_destroy(w);
                }
    printf("%d of %d runs halted, naming their springs; the others made no energy\n", halts, runs);
    // Where energy does come (here from contacts: 2 cm links, so each bead of radius 5 cm starts
    // deep in the beads after next, and pushing them apart feeds the explicit springs), the world
    // halts at once and names the springs. The 5 cm chain of the sweep did so at step 468 while
    // its speculative contacts came from the world's fastest bead; with each pair's own margin
    // it swings clear of its neighbours' contacts and makes no energy. 4 and 3 cm chains
    // made energy (by steps 496 and 2) until the contacts took more passes at one sub-step
    // (contact_passes); now they settle.
    sb_world *w = world_with(SB_METHOD_FORCE, 1, sb_default_world_def().gravity);
    sb_particle_id prev = add_particle(w, 0, 0, 1, true);
    sb_spring_id first = sb_null_spring();
    for (int k = 1; k <= 4; ++k) {
        sb_particle_id p = add_particle(w, 0.02 * k, 0, 1, false);
        sb_spring_id sp = add_spring(w, prev, p, -1.0, sb_tuning_hertz(15.0, 0.0));
        first = k == 1 ? sp : first;
        prev = p;
    }
    bool halted = false;
    for (int f = 0; f < 600 && !halted; ++f)
        halted = sb_world_step(w) != SB_OK;
    const sb_stats *st = sb_world_get_stats(w);
    printf("overlapping chain: %s\n", st->message);
    ENSURE(halted && strstr(st->message, "energy from nowhere") != NULL && st->bad_spring.generation != 0);
    ENSURE(sb_spring_is_valid(w, st->bad_spring) && first.generation != 0);
    sb_world_destroy(w);
    return 0;
}


/// A pendulum of `links` rigid links (springs, or ropes with `rope`) 1 m long in all, bobs of 1 kg
/// (the last `end_mass`), let go straight from 60 degrees in a frictionless world, run 60 s. The
/// swing energy (kinetic, and potential above the bobs hanging straight down) is averaged over
/// 5 s windows, so that the O(h) wobble of one step of symplectic Euler averages out; returns the
/// last window's over the first's, and sets *most to the largest window's over the first's.
static double pendulum_swing(sb_method m, int substeps, int iterations, int links, bool rope, double end_mass, double *most)
{
    sb_world_def def = def_with(m, substeps);
    def.iterations = iterations;
    def.friction = 0.0;
    sb_world *w = sb_world_create(&def);
    const double g = -def.gravity.y, length = 1.0 / links, angle = 60.0 / 180.0 * 3.14159265358979323846;
    sb_particle_id prev = add_particle(w, 0, 0, 1.0, true), bobs[4];
    for (int i = 0; i < links; ++i) {
        bobs[i] = add_particle(w, (i + 1) * length * sin(angle), -(i + 1) * length * cos(angle), i == links - 1 ? end_mass : 1.0, false);
        if (rope) {
            sb_constraint_def c = sb_default_constraint_def();
            sb_particle_id two[2] = {prev, bobs[i]};
            c.particles = two;
            c.count = 2;
            sb_world_add_constraint(w, &c, NULL, NULL);
        } else {
            add_spring(w, prev, bobs[i], -1.0, sb_tuning_hertz(0.0, 0.0));
        }
        prev = bobs[i];
    }
    double window = 0.0, first = 0.0, last = 0.0;
    *most = 0.0;
    for (int f = 1; f <= 3600; ++f) {
        sb_world_step(w);
        double e = 0.0;
        for (int i = 0; i < links; ++i) {
            const sb_particle_def b = particle_now(w, bobs[i]);
            e += 0.5 * b.mass * (b.velocity.x * b.velocity.x + b.velocity.y * b.velocity.y) +
                 b.mass * g * (b.position.y + (i + 1) * length);
        }
        window += e / 300.0;
        if (f % 300 == 0) {
            first = f == 300 ? window : first;
            last = window;
            *most = fmax(*most, window / first);
            window = 0.0;
        }
    }
    sb_world_destroy(w);
    return last / first;
}

// Pendulums keep swinging. A rigid pendulum, a rigid 4-link chain and a rope pendulum,
// frictionless, over 60 s: at the defaults sequential, soft and xpbd keep at least 95% of the
// swing energy. Every method, at 1, 2 and 6 sub-steps and 1, 4 and 32 iterations, never gains
// more than 1% (no window of 5 s swings higher than the first), also with a 100 kg bob at the end
// of the chain (a mass ratio of 100, which the default 4 iterations do not converge: it keeps a
// third in a minute at the defaults, all of it at 64 iterations).
TEST(pendulums_keep_their_swing)
{
    const sb_world_def defaults = sb_default_world_def();
    const int substep_counts[] = {1, 2, 6}, iterations[] = {1, 4, 32};
    const struct { int links; bool rope; double end_mass; const char *name; } shapes[] = {
        {1, false, 1.0, "rigid pendulum"}, {4, false, 1.0, "4-link chain"}, {4, false, 100.0, "4-link, 100 kg end"},
        {1, true, 1.0, "rope pendulum"}};
    unsigned run = 0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int k = 0; k < 4; ++k) {
            printf("  %-10s %-19s", sb_method_name((sb_method)m), shapes[k].name);
            for (int si = 0; si < 3; ++si)
                for (int it = 0; it < 3; ++it) {
                    if (!(substep_counts[si] == defaults.substeps && iterations[it] == defaults.iterations) &&
                        !sweep_case_runs(run++))
                        continue; // the defaults always
                    double most, kept = pendulum_swing((sb_method)m, substep_counts[si], iterations[it], shapes[k].links,
                                                       shapes[k].rope, shapes[k].end_mass, &most);
                    const bool defaults_run = substep_counts[si] == defaults.substeps && iterations[it] == defaults.iterations;
                    if (defaults_run)
                        printf(" keeps %.3f at the defaults;", kept);
                    ENSURE(most <= 1.01);
                    if (defaults_run && shapes[k].end_mass == 1.0 &&
                        (m == SB_METHOD_SEQUENTIAL || m == SB_METHOD_SOFT || m == SB_METHOD_XPBD))
                        ENSURE(kept >= 0.95);
                }
            printf("\n");
        }
    return 0;
}

/// Angular momentum about the centre of mass of the particles ids[0..n), kg m^2/s.
static double angular_momentum(sb_world *w, const sb_particle_id *ids, int n)
{
    double mass = 0.0, cx = 0.0, cy = 0.0, vx = 0.0, vy = 0.0, l = 0.0;
    for (int i = 0; i < n; ++i) {
        sb_particle_def p;
        sb_particle_get(w, ids[i], &p);
        mass += p.mass;
        cx += p.mass * p.position.x;
        cy += p.mass * p.position.y;
        vx += p.mass * p.velocity.x;
        vy += p.mass * p.velocity.y;
    }
    for (int i = 0; i < n; ++i) {
        sb_particle_def p;
        sb_particle_get(w, ids[i], &p);
        l += p.mass * ((p.position.x - cx / mass) * (p.velocity.y - vy / mass) - (p.position.y - cy / mass) * (p.velocity.x - vx / mass));
    }
    return l;
}

/// What a spinning body keeps of its angular momentum over 10 s in zero gravity: a dumbbell
/// (two 1 kg balls 1 m apart) or a wheel (a hub of `hub_kg` and 12 1 kg beads on a 1 m rim, with
/// spokes and rim links, each bead's in turn or all the spokes first), joined by rigid springs
/// (hertz 0) or tuned ones, spinning at `omega`.
static double spin_kept(sb_method method, int substeps, int iterations, bool wheel, bool spokes_first, double hertz,
                        double hub_kg, double omega)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.iterations = iterations;
    def.gravity = v2(0, 0);
    sb_world *w = sb_world_create(&def);
    sb_particle_id ids[13];
    const int beads = wheel ? 12 : 2;
    int n = 0;
    if (wheel) {
        sb_particle_def hub = sb_default_particle_def();
        hub.mass = hub_kg;
        ids[n++] = sb_world_add_particle(w, &hub, NULL);
    }
    for (int i = 0; i < beads; ++i) {
        const double a = two_pi * i / beads, r = wheel ? 1.0 : 0.5;
        sb_particle_def p = sb_default_particle_def();
        p.position = v2(r * cos(a), r * sin(a));
        p.velocity = v2(-omega * r * sin(a), omega * r * cos(a));
        ids[n++] = sb_world_add_particle(w, &p, NULL);
    }
    sb_spring_def s = sb_default_spring_def();
    if (hertz > 0.0)
        s.tuning = sb_tuning_hertz(hertz, 0.1);
    if (!wheel) {
        s.a = ids[0];
        s.b = ids[1];
        sb_world_add_spring(w, &s, NULL, NULL);
    }
    for (int pass = 0; wheel && pass < (spokes_first ? 2 : 1); ++pass)
        for (int i = 0; i < beads; ++i) {
            if (!spokes_first || pass == 0) { // a spoke
                s.a = ids[0];
                s.b = ids[1 + i];
                sb_world_add_spring(w, &s, NULL, NULL);
            }
            if (!spokes_first || pass == 1) { // a rim link
                s.a = ids[1 + i];
                s.b = ids[1 + (i + 1) % beads];
                sb_world_add_spring(w, &s, NULL, NULL);
            }
        }
    const double before = angular_momentum(w, ids, n);
    for (int f = 0; f < 600; ++f)
        sb_world_step(w);
    const double after = angular_momentum(w, ids, n);
    sb_world_destroy(w);
    return after / before;
}

// Spinning things keep spinning: a dumbbell and a wheel (its springs made in two orders), of rigid
// or 10 Hz springs, with a hub of 1 kg or 100 kg, spinning at 6 rad/s in zero gravity, keep their
// angular momentum within 4% over 10 s in every method at 1, 2 and 6 sub-steps and 4 and 32
// iterations, and the dumbbells and tuned wheels within 0.5% (pairwise pulls along the line between
// their ends keep it exactly; verlet and xpbd moved the ends along the line a sub-step ahead and
// kept 28-60% of it; the rigid wheel's losses are the position sweeps' of sequential and soft, which
// move a link's ends without their velocities). At one iteration all but the rigid wheel keep it.
TEST(spinning_things_keep_spinning)
{
    const int substep_counts[] = {1, 2, 6}, iteration_counts[] = {1, 4, 32};
    double worst = 0.0, worst_tuned = 0.0;
    unsigned run = 0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        double worst_method = 0.0;
        for (int si = 0; si < 3; ++si)
            for (int it = 0; it < 3; ++it)
                for (int shape = 0; shape < 10; ++shape) {
                    const bool wheel = shape >= 2, rigid = shape % 2 == 0, spokes_first = shape >= 6;
                    const double hub = shape == 4 || shape == 5 || shape == 8 || shape == 9 ? 100.0 : 1.0;
                    if ((iteration_counts[it] == 1 && rigid && wheel) || !sweep_case_runs(run++))
                        continue; // a rigid network at one iteration: the docs' limits
                    const double kept = spin_kept((sb_method)m, substep_counts[si], iteration_counts[it], wheel, spokes_first,
                                                  rigid ? 0.0 : 10.0, hub, 6.0);
                    const double off = fabs(kept - 1.0);
                    if (off > 0.02)
                        printf("  %s, %s %s%s%s at %d sub-steps, %d iterations keeps %.4f\n", sb_method_name((sb_method)m),
                               rigid ? "rigid" : "10 Hz", wheel ? "wheel" : "dumbbell", spokes_first ? " (spokes first)" : "",
                               hub > 1.0 ? " on a 100 kg hub" : "", substep_counts[si], iteration_counts[it], kept);
                    worst_method = fmax(worst_method, off);
                    if (!(rigid && wheel))
                        worst_tuned = fmax(worst_tuned, off);
                }
        printf("  %-10s keeps its spin within %.2f%%\n", sb_method_name((sb_method)m), 100.0 * worst_method);
        worst = fmax(worst, worst_method);
    }
    printf("  the dumbbells and tuned wheels within %.3f%%\n", 100.0 * worst_tuned);
    ENSURE(worst <= 0.04 && worst_tuned <= 0.005);
    return 0;
}

/// A chain of 0.1 kg beads 0.1 m apart from a post on a table (a polyline) across 2 m of it and over its
/// corner, 1 m down to a weight of `weight_kg` and radius `weight_radius` 0.1 m from the table's
/// side; the weight's particle in *weight.
static sb_world *chain_over_a_ledge(sb_method method, int substeps, int iterations, double weight_kg, double weight_radius,
                                    sb_particle_id *weight)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.iterations = iterations;
    sb_world *w = sb_world_create(&def);
    const sb_vec2 table[3] = {{-3, 0}, {0, 0}, {0, -3}};
    sb_world_add_polyline(w, table, 3, false, false, NULL, NULL);
    sb_particle_def p = sb_default_particle_def();
    p.mass = 0.1;
    p.position = v2(-2.0, 0.05);
    p.fixed = true;
    sb_particle_id prev = sb_world_add_particle(w, &p, NULL);
    p.fixed = false;
    for (int i = 1; i <= 31; ++i) {
        if (i <= 20) // along the table
            p.position = v2(-2.0 + 0.1 * i, 0.05);
        else if (i == 21) // on the corner
            p.position = v2(0.05 * sqrt(0.5), 0.05 * sqrt(0.5));
        else // down its side
            p.position = v2(0.1, 0.05 * sqrt(0.5) + 0.03 - 0.1 * (i - 21));
        if (i == 31) {
            p.mass = weight_kg;
            p.radius = weight_radius;
            p.position.y -= 0.05;
        }
        sb_particle_id q = sb_world_add_particle(w, &p, NULL);
        add_spring(w, prev, q, -1.0, sb_tuning_hertz(0.0, 1.0));
        prev = q;
    }
    *weight = prev;
    return w;
}

// A weight on a chain over a table's corner stays put: 10 kg on 0.1 kg beads (100:1) in every
// method at 1, 2 and 6 sub-steps and 1, 4 and 32 iterations, and 2 kg (20:1) at 4, settle within
// 30 mm of where they were built (the chain finding the corner), then move under 2 mm from 1 s to 6 s,
// end slower than 5 cm/s, and no link is ever over 1% long after the first second; one built 2 cm
// into the table's side is moved out under 0.1 m/s. The chain is
// solved whole with the corner's and the table's contacts (articulation.c); solved apart, the
// corner pushed the beads out and the links pulled them in: links 4.5% long at six sub-steps, and
// at one sub-step the weight slid 0.2-0.9 m on links 8 times their length.
TEST(a_weight_on_a_chain_over_a_ledge_stays_put)
{
    const int substep_counts[] = {1, 2, 6}, iteration_counts[] = {1, 4, 32};
    const double weights[] = {2.0, 10.0};
    double worst_settle = 0.0, worst_drift = 0.0, worst_speed = 0.0, worst_stretch = 0.0;
    unsigned run = 0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si)
            for (int it = 0; it < 3; ++it)
                for (int k = 0; k < 2; ++k) {
                    if ((k == 0 && iteration_counts[it] != 4) || !sweep_case_runs(run++))
                        continue; // the 2 kg weight at the default iterations
                    sb_particle_id weight;
                    sb_world *w = chain_over_a_ledge((sb_method)m, substep_counts[si], iteration_counts[it], weights[k], 0.1, &weight);
                    const sb_vec2 built = particle_now(w, weight).position;
                    sb_vec2 at_one = built;
                    double stretch = 0.0;
                    for (int f = 0; f < 360; ++f) {
                        sb_world_step(w);
                        if (f >= 60)
                            stretch = fmax(stretch, sb_world_get_stats(w)->max_stretch);
                        if (f == 59)
                            at_one = particle_now(w, weight).position;
                    }
                    const sb_particle_def end = particle_now(w, weight);
                    const double settle = v2_len(v2_sub(at_one, built)), drift = v2_len(v2_sub(end.position, at_one));
                    const double speed = v2_len(end.velocity);
                    if (settle > 0.03 || drift > 0.002 || speed > 0.05 || stretch > 0.01)
                        printf("  %s, %g kg at %d sub-steps, %d iterations: settles %.1f mm, drifts %.1f mm, ends at %.3f m/s, "
                               "links %.2f%% long\n", sb_method_name((sb_method)m), weights[k], substep_counts[si],
                               iteration_counts[it], 1e3 * settle, 1e3 * drift, speed, 100.0 * stretch);
                    worst_settle = fmax(worst_settle, settle);
                    worst_drift = fmax(worst_drift, drift);
                    worst_speed = fmax(worst_speed, speed);
                    worst_stretch = fmax(worst_stretch, stretch);
                    sb_world_destroy(w);
                }
    printf("  settles within %.1f mm, drifts %.2f mm, ends at %.3f m/s at most, links %.3f%% long at most\n",
           1e3 * worst_settle, 1e3 * worst_drift, worst_speed, 100.0 * worst_stretch);
    ENSURE(worst_settle <= 0.03 && worst_drift <= 0.002 && worst_speed <= 0.05 && worst_stretch <= 0.01);
    // a weight of radius 0.12 built 2 cm into the table's side is moved out, not thrown (it left
    // at 7 m/s when its contact was first solved with the chain)
    double thrown = 0.0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_particle_id weight;
        sb_world *w = chain_over_a_ledge((sb_method)m, 6, 4, 10.0, 0.12, &weight);
        for (int f = 0; f < 60; ++f) {
            sb_world_step(w);
            thrown = fmax(thrown, fabs(particle_now(w, weight).velocity.x));
        }
        sb_world_destroy(w);
    }
    printf("  built into the wall, the weight moves out at %.3f m/s at most\n", thrown);
    ENSURE(thrown <= 0.1);
    return 0;
}

/// A V of rigid links from posts at (-1, 0) and (1, 0) to a load at (0, -0.6), 5 links a side with
/// 0.05 kg beads between, each link rated at `rating` N; *top is the left top link.
static sb_world *v_rope(sb_method method, int substeps, double load_kg, double rating, sb_particle_id *load,
                        sb_spring_id *top)
{
    sb_world_def def = def_with(method, substeps);
    sb_world *w = sb_world_create(&def);
    const sb_particle_id posts[2] = {add_particle(w, -1, 0, 1, true), add_particle(w, 1, 0, 1, true)};
    *load = add_particle(w, 0, -0.6, load_kg, false);
    for (int side = 0; side < 2; ++side) {
        sb_particle_id prev = posts[side];
        for (int i = 1; i <= 5; ++i) {
            const double x = (side ? 1.0 : -1.0) * (1.0 - i / 5.0);
            sb_particle_id p = i == 5 ? *load : add_particle(w, x, -0.6 * i / 5.0, 0.05, false);
            sb_spring_def d = sb_default_spring_def();
            d.a = prev;
            d.b = p;
            d.rest_length = -1;
            d.tuning = sb_tuning_hertz(0.0, 1.0);
            d.break_force = rating;
            sb_spring_id s = sb_world_add_spring(w, &d, NULL, NULL);
            if (side == 0 && i == 1)
                *top = s;
            prev = p;
        }
    }
    return w;
}

// A rope rated at 40 N breaks at 40 N of steady load, and settles under a steady one (a real rope's
// internal damping: a link's damping ratio damps its bending at the beads, not a chain turning as
// one). A V of rigid breakable links holding a load at its point: settled under 3 kg in every
// method at the defaults, its top link's force holds within 0.5% over the last 5 of 20 s (it rang
// +-9% in the velocity methods, never settling). Loaded slowly (0.05 kg a second), it breaks when
// the load is the one whose steady tension is the rating, within 5% (it broke at 48% of it): that
// load is found from the steady tensions of the converged reference (xpbd at 32 sub-steps) at 3
// and 4 kg, which are linear in the load.
TEST(ropes_break_at_their_rating)
{
    sb_particle_id load;
    sb_spring_id top;
    double steady[2];
    for (int k = 0; k < 2; ++k) { // the reference's steady tension at 3 and 4 kg
        sb_world *w = v_rope(SB_METHOD_XPBD, 32, 3.0 + k, 1e6, &load, &top);
        for (int f = 0; f < 1200; ++f)
            sb_world_step(w);
        steady[k] = sb_spring_force(w, top);
        sb_world_destroy(w);
    }
    const double rated_kg = 3.0 + (40.0 - steady[0]) / (steady[1] - steady[0]);
    printf("  steady top tension %.3f N at 3 kg, %.3f N at 4 kg: 40 N at %.3f kg\n", steady[0], steady[1], rated_kg);
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world *w = v_rope((sb_method)m, 6, 3.0, 1e6, &load, &top);
        double lo = INFINITY, hi = -INFINITY;
        for (int f = 0; f < 1200; ++f) {
            sb_world_step(w);
            if (f >= 900) {
                lo = fmin(lo, sb_spring_force(w, top));
                hi = fmax(hi, sb_spring_force(w, top));
            }
        }
        sb_world_destroy(w);
        w = v_rope((sb_method)m, 6, 0.5, 40.0, &load, &top);
        double broke_kg = 0.0;
        for (int f = 0; f < 120 * 60 && broke_kg == 0.0; ++f) {
            sb_particle_def p = particle_now(w, load);
            p.mass = 0.5 + 0.05 * f / 60.0;
            sb_particle_set(w, load, &p, NULL);
            sb_world_step(w);
            if (sb_world_spring_count(w) < 10)
                broke_kg = p.mass;
        }
        printf("  %-10s under 3 kg the top link holds %.3f-%.3f N; loaded slowly it breaks at %.3f kg (%+.1f%%)\n",
               sb_method_name((sb_method)m), lo, hi, broke_kg, 100.0 * (broke_kg / rated_kg - 1.0));
        ENSURE(hi - lo < 0.005 * steady[0]);
        ENSURE(fabs(broke_kg / rated_kg - 1.0) < 0.05);
        sb_world_destroy(w);
    }
    return 0;
}

// A chain retuned stiff while a drag yanks it stays whole: six 3 cm beads hung on 4 Hz springs
// from a fixed bead, retuned to 6 to 15 Hz over half a second (a retune settles heavily damped),
// under a gravity ramp, the fifth bead dragged at 5 Hz to each of six targets, in every method at
// 1, 2 and 6 sub-steps: no bead ever passes 60 m/s (the yank itself stays under 20). In xpbd at
// one sub-step 10 of these 24 cases blew up past 400 m/s, most to 1e9: a warm-started multiplier
// larger than the stretch called for fed itself back. Retuned to 20 or 30 Hz, xpbd at one
// sub-step still blows up in 8 of 12 (docs/methods.md).
TEST(a_chain_retuned_stiff_under_a_drag_stays_whole)
{
    const double hertz[] = {6, 9, 12, 15}, targets[] = {3.5, 4.0, 4.5, 5.0, 1.0, 2.0};
    const int substeps[] = {1, 2, 6};
    double worst = 0.0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si)
            for (int hi = 0; hi < 4; ++hi)
                for (int ti = 0; ti < 6; ++ti) {
                    sb_world_def def = def_with((sb_method)m, substeps[si]);
                    def.has_bounds = true;
                    def.bounds = (sb_bounds){-5, -5, 5, 5};
                    sb_world *w = sb_world_create(&def);
                    sb_particle_def p = sb_default_particle_def();
                    p.radius = 0.03;
                    p.fixed = true;
                    p.position = (sb_vec2){2.5, 4.0};
                    sb_particle_id prev = sb_world_add_particle(w, &p, NULL), beads[6];
                    sb_spring_id links[6];
                    p.fixed = false;
                    for (int i = 0; i < 6; ++i) {
                        p.position = (sb_vec2){2.5 + 0.25 * (i + 1), 4.0};
                        beads[i] = sb_world_add_particle(w, &p, NULL);
                        sb_spring_def sd = sb_default_spring_def();
                        sd.a = prev;
                        sd.b = beads[i];
                        sd.tuning = sb_tuning_hertz(4.0, 0.1);
                        sd.break_stretch = i == 5 ? 0.3 : 0.0;
                        links[i] = sb_world_add_spring(w, &sd, NULL, NULL);
                        prev = beads[i];
                    }
                    for (int f = 0; f < 40; ++f)
                        sb_world_step(w);
                    const sb_tuning stiff = sb_tuning_hertz(hertz[hi], 0.2);
                    for (int i = 0; i < 6; ++i)
                        sb_spring_retune(w, links[i], 0.2, &stiff, 0.5, NULL);
                    sb_world_ramp_gravity(w, (sb_vec2){1.0, -12.0}, 1.0);
                    sb_world_drag_begin(w, beads[4], (sb_vec2){3.0, 2.0}, 5.0, 0.7);
                    double fastest = 0.0;
                    for (int f = 0; f < 300; ++f) {
                        if (f == 50)
                            sb_world_drag_move(w, (sb_vec2){targets[ti], 0.0});
                        sb_world_step(w);
                        for (int i = 0; i < 6; ++i) {
                            sb_particle_def q;
                            if (sb_particle_get(w, beads[i], &q) == SB_OK)
                                fastest = fmax(fastest, hypot(q.velocity.x, q.velocity.y));
                        }
                    }
                    if (fastest > 60.0)
                        printf("  %s at %d sub-steps, %.0f Hz, dragged to x = %.1f: %.3g m/s\n", sb_method_name((sb_method)m),
                               substeps[si], hertz[hi], targets[ti], fastest);
                    worst = fmax(worst, fastest);
                    sb_world_destroy(w);
                }
    printf("  fastest bead %.1f m/s\n", worst);
    ENSURE(worst <= 60.0);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(tuning_delivered_in_every_method),
    ENTRY(a_chain_retuned_stiff_under_a_drag_stays_whole),
    ENTRY(heavily_damped_releases_read_their_tuning),
    ENTRY(coefficients_give_nissens_motion_in_every_method),
    ENTRY(undeliverable_frequency_is_named_and_delivered_as_said),
    ENTRY(overdamped_spring_sags_m_g_over_k),
    ENTRY(chains_hold_and_improve_with_iterations),
    ENTRY(cloths_and_nets_never_gain_energy),
    ENTRY(joined_particles_do_not_collide),
    ENTRY(default_cloth_has_no_contacts_at_rest),
    ENTRY(walls_hold_a_heavy_pile),
    ENTRY(fast_particles_do_not_tunnel_through_walls),
    ENTRY(suspension_bridge_comes_to_rest),
    ENTRY(nissens_one_step_spring_in_every_method),
    ENTRY(released_springs_swing_no_farther_than_let_go),
    ENTRY(no_method_makes_energy_from_nowhere),
    ENTRY(pendulums_keep_their_swing),
    ENTRY(ropes_break_at_their_rating),
    ENTRY(spinning_things_keep_spinning),
    ENTRY(a_weight_on_a_chain_over_a_ledge_stays_put),
};

int main(int argc, char **argv) { return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]); }
