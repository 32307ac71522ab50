// Rolling: particles that turn, in every method, checked against textbook
// motion: a disc rolls down a slope at g sin / (1 + k) with I = k m r^2, slips at g (sin - mu cos)
// when friction cannot hold the roll, stops after v^2 (1 + k) / (2 c_rr g) on a rolling resistance,
// and a column of balls falls over, where particles that cannot turn stand on friction.
#include "ensure.h"
#include "world_helpers.h"
#include "sb_constraint.h"
#include "sb_world.h"

#include <math.h>
#include <stdio.h>

static const int substep_counts[] = {1, 2, 6};
static const double pi = 3.14159265358979323846, g = 9.81;

static sb_vec2 v2(double x, double y) { return (sb_vec2){x, y}; }

static sb_world *world_of(sb_method m, int substeps, double mu)
{
    sb_world_def def = def_with(m, substeps);
    def.gravity = v2(0, -g);
    def.friction = mu;
    return sb_world_create(&def);
}

/// A particle of radius 0.1 m released at rest on a wall sloping down at `degrees` (friction
/// `mu`): its acceleration along the slope from 0.5 s to 2 s, and the slip of its surface
/// (|v + omega r|, 0 when it rolls) at the end, m/s.
static double down_the_slope(sb_method m, int substeps, double degrees, double mu, sb_rolling rolling, double inertia,
                             double *slip)
{
    const double th = degrees * pi / 180.0, r = 0.1, L = 60.0;
    sb_world *w = world_of(m, substeps, mu);
    sb_world_add_wall(w, v2(0, 0), v2(L * cos(th), -L * sin(th)), NULL);
    sb_particle_def p = sb_default_particle_def();
    p.position = v2(cos(th) + sin(th) * r, -sin(th) + cos(th) * r);
    p.radius = r;
    p.rolling = rolling;
    p.inertia = inertia;
    sb_particle_id id = sb_world_add_particle(w, &p, NULL);
    for (int f = 0; f < 30; ++f)
        sb_world_step(w);
    sb_particle_def d = particle_now(w, id);
    double v0 = d.velocity.x * cos(th) - d.velocity.y * sin(th);
    for (int f = 0; f < 90; ++f)
        sb_world_step(w);
    d = particle_now(w, id);
    double v1 = d.velocity.x * cos(th) - d.velocity.y * sin(th);
    *slip = fabs(v1 + d.angular_velocity * r); // rolling down to the right turns clockwise
    sb_world_destroy(w);
    return (v1 - v0) / 1.5;
}

// A disc (k = 1/2) rolls at 2/3 g sin, a ball (k = 2/5) at 5/7 g sin, a ring (k = 1) at 1/2 g sin,
// within 3%, its surface not slipping; with friction too low to hold the roll (mu < tan * k /
// (1 + k)) it slips, at g (sin - mu cos) as a sliding block does; a particle that cannot turn
// stays put on the same slope where mu > tan. Every method at 1, 2 and 6 sub-steps.
TEST(balls_roll_down_a_slope_at_the_rate_of_their_inertia)
{
    const double inertias[] = {0.5, 0.4, 1.0};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si) {
            const int n = substep_counts[si];
            for (int k = 0; k < 3; ++k) {
                for (int slope = 0; slope < 2; ++slope) {
                    double degrees = slope ? 30.0 : 15.0, slip;
                    double want = g * sin(degrees * pi / 180.0) / (1.0 + inertias[k]);
                    double got = down_the_slope((sb_method)m, n, degrees, 0.5, SB_ROLLING_AUTO, inertias[k], &slip);
                    if (fabs(got - want) > 0.03 * want || slip > 0.02)
                        printf("  %s, %d sub-steps, k %.1f, %.0f degrees: %.3f m/s^2 (want %.3f), slip %.4f m/s\n",
                               sb_method_name((sb_method)m), n, inertias[k], degrees, got, want, slip);
                    ENSURE_NEAR(got, want, 0.03 * want);
                    ENSURE(slip < 0.02);
                }
            }
            double slip, th = 30.0 * pi / 180.0, want = g * (sin(th) - 0.1 * cos(th));
            double got = down_the_slope((sb_method)m, n, 30.0, 0.1, SB_ROLLING_AUTO, 0.5, &slip);
            if (fabs(got - want) > 0.05 * want || slip < 0.5)
                printf("  %s, %d sub-steps, mu 0.1: %.3f m/s^2 (want %.3f sliding), slip %.3f m/s\n", sb_method_name((sb_method)m), n,
                       got, want, slip);
            ENSURE_NEAR(got, want, 0.05 * want);
            ENSURE(slip > 0.5); // it slides and spins up at once: its surface is not rolling
            got = down_the_slope((sb_method)m, n, 15.0, 0.5, SB_ROLLING_OFF, 0.5, &slip);
            ENSURE(fabs(got) < 0.01); // friction holds a particle that cannot turn
        }
    return 0;
}

/// A ball of radius 0.1 m rolling along a floor at 2 m/s (spinning as it rolls), with rolling
/// resistance `crr`: how far it goes before it stops (the run lasts 12 s).
static double roll_to_a_stop(sb_method m, int substeps, double crr, double *speed_left)
{
    sb_world *w = world_of(m, substeps, 0.5);
    sb_world_add_wall(w, v2(-1, 0), v2(100, 0), NULL);
    sb_particle_def p = sb_default_particle_def();
    p.radius = 0.1;
    p.position = v2(0, 0.1);
    p.velocity = v2(2.0, 0);
    p.angular_velocity = -2.0 / 0.1;
    p.rolling_resistance = crr;
    sb_particle_id id = sb_world_add_particle(w, &p, NULL);
    for (int f = 0; f < 720; ++f)
        sb_world_step(w);
    sb_particle_def d = particle_now(w, id);
    *speed_left = hypot(d.velocity.x, d.velocity.y);
    sb_world_destroy(w);
    return d.position.x;
}

// Rolling resistance is the textbook torque c_rr N r: it takes the rolling disc's energy,
// 1/2 m v^2 (1 + k), over c_rr m g d, so a disc at 2 m/s stops after v^2 (1 + k) / (2 c_rr g)
// (within 5%); without it the disc rolls on at its speed (friction takes nothing from a roll).
// On a slope whose tan is below c_rr a ball stays; above it, it rolls.
TEST(rolling_resistance_stops_a_ball_where_the_textbook_says)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si) {
            const int n = substep_counts[si];
            double left, want = 4.0 * 1.5 / (2.0 * 0.1 * g);
            double d = roll_to_a_stop((sb_method)m, n, 0.1, &left);
            if (fabs(d - want) > 0.05 * want || left > 1e-3)
                printf("  %s, %d sub-steps: stopped after %.3f m (want %.3f), speed left %.4f\n", sb_method_name((sb_method)m), n, d,
                       want, left);
            ENSURE_NEAR(d, want, 0.05 * want);
            ENSURE(left < 1e-3);
            d = roll_to_a_stop((sb_method)m, n, 0.0, &left);
            ENSURE_NEAR(left, 2.0, 0.02); // rolls on: 24 m in 12 s
            ENSURE(d > 23.5);
            double slip;
            ENSURE(fabs(down_the_slope((sb_method)m, n, 0, 0.5, SB_ROLLING_AUTO, 0.5, &slip)) < 1e-3);
        }
    return 0;
}

/// Ten balls of radius 0.1 m stacked on a floor, each off the one below by `offset`, friction 0.5:
/// the top ball's height after 6 s.
static double column_top(sb_method m, int substeps, sb_rolling rolling, double offset)
{
    sb_world *w = world_of(m, substeps, 0.5);
    sb_world_add_wall(w, v2(-10, 0), v2(10, 0), NULL);
    sb_particle_id top = sb_null_particle();
    for (int i = 0; i < 10; ++i) {
        sb_particle_def p = sb_default_particle_def();
        p.radius = 0.1;
        p.position = v2(offset * (i % 2), 0.1 + 0.2 * i);
        p.rolling = rolling;
        top = sb_world_add_particle(w, &p, NULL);
    }
    for (int f = 0; f < 360; ++f)
        sb_world_step(w);
    double y = particle_now(w, top).position.y;
    sb_world_destroy(w);
    return y;
}

// A column of balls falls over when they roll (its top ends below a third of its height), and
// stands on friction when they cannot turn (SB_ROLLING_OFF), in the velocity methods, each ball
// off the one below by 1 mm.
TEST(a_column_of_balls_falls_over_when_they_roll)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si) {
            const int n = substep_counts[si];
            double rolls = column_top((sb_method)m, n, SB_ROLLING_AUTO, 0.001);
            double stands = column_top((sb_method)m, n, SB_ROLLING_OFF, 0.001);
            if (rolls > 0.6 || stands < 1.7)
                printf("  %s, %d sub-steps: top at %.2f m rolling, %.2f m not turning\n", sb_method_name((sb_method)m), n, rolls,
                       stands);
            ENSURE(rolls < 0.6);
            // the position methods' friction by position lets a column slide apart at coarse
            // sub-steps (verlet at 1 and 2, xpbd at 1) even when nothing turns
            if (m != SB_METHOD_VERLET && m != SB_METHOD_XPBD)
                ENSURE(stands > 1.7);
        }
    return 0;
}

// Beads joined by springs or constraints do not turn unless asked: a chain of beads and a ring
// held by an area constraint slide down a slope as before (no spin), and the same chain's beads
// roll with `rolling = on`.
TEST(joined_beads_turn_only_when_asked)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int on = 0; on < 2; ++on) {
            sb_world *w = world_of((sb_method)m, 4, 0.3);
            sb_world_add_wall(w, v2(-10, 5), v2(10, -5), NULL);
            sb_particle_id beads[6];
            for (int i = 0; i < 6; ++i) {
                sb_particle_def p = sb_default_particle_def();
                p.radius = 0.05;
                p.position = v2(-2 + 0.1 * i, 1.0 - 0.05 * i + 0.06);
                p.rolling = on ? SB_ROLLING_ON : SB_ROLLING_AUTO;
                beads[i] = sb_world_add_particle(w, &p, NULL);
                if (i > 0) {
                    sb_spring_def s = sb_default_spring_def();
                    s.a = beads[i - 1];
                    s.b = beads[i];
                    sb_world_add_spring(w, &s, NULL, NULL);
                }
            }
            // a ring of 8 beads held by an area constraint (no springs)
            sb_particle_id ring[8];
            for (int i = 0; i < 8; ++i) {
                sb_particle_def p = sb_default_particle_def();
                p.radius = 0.05;
                p.position = v2(2 + 0.3 * cos(2 * pi * i / 8), -0.6 + 0.3 * sin(2 * pi * i / 8));
                ring[i] = sb_world_add_particle(w, &p, NULL);
            }
            sb_constraint_def c = sb_default_constraint_def();
            c.kind = SB_CONSTRAINT_AREA;
            c.particles = ring;
            c.count = 8;
            ENSURE(sb_world_add_constraint(w, &c, NULL, NULL).generation != 0);
            double chain_spin = 0.0, ring_spin = 0.0;
            for (int f = 0; f < 120; ++f) {
                sb_world_step(w);
                for (int i = 0; i < 6; ++i)
                    chain_spin = fmax(chain_spin, fabs(particle_now(w, beads[i]).angular_velocity));
                for (int i = 0; i < 8; ++i)
                    ring_spin = fmax(ring_spin, fabs(particle_now(w, ring[i]).angular_velocity));
            }
            ENSURE(ring_spin == 0.0);
            if (on)
                ENSURE(chain_spin > 1.0);
            else
                ENSURE(chain_spin == 0.0);
            sb_world_destroy(w);
        }
    }
    return 0;
}

// A fixed particle given a spin is a driven wheel. On a row of wheels of radius 0.1 m spinning at
// -10 rad/s (their tops move at +1 m/s), a particle that cannot turn (a crate) is carried along at
// 1 m/s, and a ball that rolls, cradled between two wheels that turn the same way, spins in place
// at 10 x 0.1 / 0.15 rad/s the other way, as a ball on two rollers does; the wheels keep their spin.
TEST(a_driven_wheel_carries_a_crate_and_spins_a_ball)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si)
            for (int rolls = 0; rolls < 2; ++rolls) {
                sb_world *w = world_of((sb_method)m, substep_counts[si], 0.8);
                sb_particle_id wheel = sb_null_particle();
                for (int i = 0; i < 60; ++i) {
                    sb_particle_def p = sb_default_particle_def();
                    p.radius = 0.1;
                    p.fixed = true;
                    p.position = v2(0.2 * i, 0);
                    p.angular_velocity = -10.0;
                    wheel = sb_world_add_particle(w, &p, NULL);
                }
                sb_particle_def b = sb_default_particle_def();
                b.radius = 0.15;
                b.position = v2(0.3, 0.25);
                b.rolling = rolls ? SB_ROLLING_AUTO : SB_ROLLING_OFF;
                sb_particle_id ball = sb_world_add_particle(w, &b, NULL);
                for (int f = 0; f < 180; ++f)
                    sb_world_step(w);
                double x0 = particle_now(w, ball).position.x; // over the last second: the crate bumps over the gaps
                for (int f = 0; f < 60; ++f)
                    sb_world_step(w);
                sb_particle_def d = particle_now(w, ball);
                d.velocity.x = d.position.x - x0;
                double want_v = rolls ? 0.0 : 1.0, want_spin = rolls ? 10.0 * 0.1 / 0.15 : 0.0;
                if (fabs(d.velocity.x - want_v) > 0.05 || fabs(d.angular_velocity - want_spin) > 0.05 * want_spin)
                    printf("  %s, %d sub-steps, %s: moves at %.3f m/s, spins at %.3f rad/s\n", sb_method_name((sb_method)m),
                           substep_counts[si], rolls ? "ball" : "crate", d.velocity.x, d.angular_velocity);
                ENSURE_NEAR(d.velocity.x, want_v, 0.05);
                ENSURE_NEAR(d.angular_velocity, want_spin, 0.05 * want_spin);
                ENSURE_NEAR(particle_now(w, wheel).angular_velocity, -10.0, 0.0);
                sb_world_destroy(w);
            }
    return 0;
}

// Rolling makes no energy: 300 balls dropped spinning into a box, every method at 1, 2 and 6
// sub-steps; their energy (translation, spin and height) never rises above where it began by
// more than 1% of the fall's energy, and ends nearly at rest.
TEST(rolling_makes_no_energy)
{
    unsigned run = 0;
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si) {
            if (!sweep_case_runs(run++))
                continue;
            sb_world *w = world_of((sb_method)m, substep_counts[si], 0.5);
            sb_world_add_wall(w, v2(0, 0), v2(4, 0), NULL);
            sb_world_add_wall(w, v2(4, 0), v2(4, 8), NULL);
            sb_world_add_wall(w, v2(0, 8), v2(0, 0), NULL);
            unsigned seed = 7;
            for (int i = 0; i < 300; ++i) {
                sb_particle_def p = sb_default_particle_def();
                seed = seed * 1103515245u + 12345u;
                p.radius = 0.05 + 0.05 * (double)(seed >> 16 & 0xFF) / 255.0;
                p.position = v2(0.15 + 0.22 * (i % 17), 0.2 + 0.22 * (i / 17));
                p.angular_velocity = ((int)(seed >> 8 & 0xFF) - 128) * 0.2;
                p.mass = 10.0 * p.radius;
                sb_world_add_particle(w, &p, NULL);
            }
            double e0 = -1, fall = 0.0, worst = -INFINITY, end = 0.0;
            for (int f = 0; f < 600; ++f) {
                double e = 0.0, h = 0.0;
                for (sb_particle_id it = sb_null_particle(); sb_world_next_particle(w, &it);) {
                    sb_particle_def d = particle_now(w, it);
                    double spin = 0.5 * d.inertia * d.mass * d.radius * d.radius * d.angular_velocity * d.angular_velocity;
                    e += 0.5 * d.mass * (d.velocity.x * d.velocity.x + d.velocity.y * d.velocity.y) + spin +
                         d.mass * g * d.position.y;
                    h += d.mass * g * (d.position.y - d.radius);
                }
                if (e0 < 0) {
                    e0 = e;
                    fall = h;
                }
                worst = fmax(worst, e - e0);
                end = e;
                sb_world_step(w);
            }
            if (worst > 0.01 * fall)
                printf("  %s, %d sub-steps: energy rose %.3g J above the start (the fall is %.3g J)\n", sb_method_name((sb_method)m),
                       substep_counts[si], worst, fall);
            ENSURE(worst <= 0.01 * fall);
            ENSURE(end < e0);
            sb_world_destroy(w);
        }
    return 0;
}

static const test_entry tests[] = {
    ENTRY(balls_roll_down_a_slope_at_the_rate_of_their_inertia),
    ENTRY(rolling_resistance_stops_a_ball_where_the_textbook_says),
    ENTRY(a_column_of_balls_falls_over_when_they_roll),
    ENTRY(joined_beads_turn_only_when_asked),
    ENTRY(a_driven_wheel_carries_a_crate_and_spins_a_ball),
    ENTRY(rolling_makes_no_energy),
};

int main(int argc, char **argv) { return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]); }
