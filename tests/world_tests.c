// World tests: determinism and non-finite containment, tethers, the vector passes, dragging and
// collisions, each asserting a property the issues ask for. Run one by name or all.
#include "sb_samples.h"
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

// ---------------------------------------------------------------- determinism, NaN

static uint64_t run_scene_hash(const char *scene, sb_method method, int size, int frames)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    sb_world *w = sb_sample_find(scene)->build(&def, size);
    for (int f = 0; f < frames; ++f) {
        if (f == frames / 2) // removal mid-run is part of the input
            sb_world_remove_particle(w, (sb_particle_id){3, w->p_gen[3]});
        sb_world_step(w);
    }
    uint64_t h = sb_world_state_hash(w);
    sb_world_destroy(w);
    return h;
}

// The scene generator is the documented xorshift64* with the seed mixed as
// seed * 2685821657736338717 + 0x9E3779B97F4A7C15 (mod 2^64), low bit set. GCC 12.2 once
// miscompiled the seeding so that the state depended on whatever the caller left in a
// register; the state is checked against the formula from two different call sites.
static sb_rng seed_with_clutter(uint64_t seed, uint64_t clutter1, uint64_t clutter2)
{
    volatile uint64_t sink = clutter1 * clutter2;
    (void)sink;
    return sb_rng_seed(seed);
}

TEST(rng_is_deterministic)
{
    const uint64_t expected = (4000ull * 2685821657736338717ull + 0x9E3779B97F4A7C15ull) | 1u;
    ENSURE(expected == 0x0344d83284496135ull);
    ENSURE(sb_rng_seed(4000).state == expected);
    ENSURE(seed_with_clutter(4000, 7, 99).state == expected);
    ENSURE(seed_with_clutter(4000, 0xdeadbeef, 3).state == expected);
    sb_rng a = sb_rng_seed(4000), b = seed_with_clutter(4000, 1, 2);
    for (int i = 0; i < 100; ++i)
        ENSURE(sb_rng_uniform(&a, 0.0, 1.0) == sb_rng_uniform(&b, 0.0, 1.0));
    return 0;
}

TEST(determinism)
{
    const char *scenes[] = {"ball_pit", "cloth", "bridge"};
    const int sizes[] = {300, 12, 10};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int s = 0; s < 3; ++s) {
            uint64_t first = run_scene_hash(scenes[s], (sb_method)m, sizes[s], 120);
            uint64_t second = run_scene_hash(scenes[s], (sb_method)m, sizes[s], 120);
            ENSURE(first == second);
            ENSURE(first != run_scene_hash(scenes[s], (sb_method)m, sizes[s], 121));
        }
    }
    return 0;
}

// A world that produces a non-finite value stops, keeps its last finite state, and names
// the particle that went first; it never spreads NaN or crashes. No tuning can make a method
// diverge any more (every spring is clamped to what its method can hold), so the test plants
// the fault the guard exists for: a velocity that overflows inside a sub-step.
TEST(nonfinite_containment)
{
    sb_world_def def = quiet_def(SB_METHOD_FORCE);
    def.gravity = v2(0, -9.81);
    sb_world *w = sb_world_create(&def);
    sb_particle_id anchor = add_particle(w, 0, 0, 1, true);
    sb_particle_id p = add_particle(w, 1.0, 0, 1, false);
    // (q starts at the wild spring's rest length: let go 0.5 m stretched, the clamped spring made
    // 8 times its energy in the first step, and the energy ledger halted the world, rightly)
    sb_particle_id q = add_particle(w, 1.5, 0, 1, false);
    add_spring(w, anchor, p, 1.0, sb_tuning_raw(1e3, 0.0));
    sb_spring_id wild = add_spring(w, p, q, 0.5, sb_tuning_raw(1e9, 0.0));
    for (int f = 0; f < 30; ++f)
        ENSURE(sb_world_step(w) == SB_OK);
    sb_vec2 last_finite_q = particle_now(w, q).position;
    w->vel[q.index] = v2(1e308, 0.0);
    w->vel[q.index].x *= 10.0; // inf, as an overflow would make it
    sb_status st = sb_world_step(w);
    const sb_stats *stats = sb_world_get_stats(w);
    ENSURE(st == SB_ERR_HALTED && stats->halted);
    // q's overflow reaches p through their spring in the same sub-step: either may be named
    ENSURE(stats->bad_particle.index == q.index || stats->bad_particle.index == p.index);
    ENSURE(stats->bad_spring.index == wild.index);
    ENSURE(strstr(stats->message, "non-finite") != NULL);
    printf("%s\n", stats->message);
    char named[64]; // numbered from 1, as the Lua index
    snprintf(named, sizeof named, "particle %u went first", stats->bad_particle.index + 1);
    ENSURE(strstr(stats->message, named) != NULL);
    snprintf(named, sizeof named, "stiffest spring %u", wild.index + 1);
    ENSURE(strstr(stats->message, named) != NULL);
    for (int i = 0; i < w->p_high; ++i)
        ENSURE(v2_finite(w->pos[i]));
    ENSURE(particle_now(w, q).position.x == last_finite_q.x && particle_now(w, q).position.y == last_finite_q.y);
    ENSURE(sb_world_step(w) == SB_ERR_HALTED); // stays stopped until cleared
    sb_world_destroy(w);
    return 0;
}

// A scene that pumps energy in hits the same guardrail as a diverging
// spring. A particle pushed past the range the API accepts (1e12 m, 1e12 m/s) halts the
// world in every method, names it, and keeps the last state within range; a fast but sane
// projectile (10 km/s for a minute) never trips it.
TEST(runaway_halts_like_nonfinite)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world_def def = quiet_def((sb_method)m);
        sb_world *w = sb_world_create(&def);
        add_particle(w, 0, 0, 1, true);
        sb_particle_id pushed = add_particle(w, 0, 1, 1, false);
        int frames = 0;
        sb_status st = SB_OK;
        while (st == SB_OK && frames < 600) {
            ENSURE(sb_particle_apply_force(w, pushed, v2(1e14, 0.0)) == SB_OK);
            st = sb_world_step(w);
            frames += 1;
        }
        const sb_stats *stats = sb_world_get_stats(w);
        ENSURE(st == SB_ERR_HALTED && stats->halted);
        ENSURE(frames <= 2); // 1e14 N on 1 kg passes 1e12 m/s within 1/60 s
        ENSURE(stats->bad_particle.index == pushed.index);
        ENSURE(strstr(stats->message, "runaway") && strstr(stats->message, "particle 2"));
        sb_particle_def p = particle_now(w, pushed);
        ENSURE(fabs(p.position.x) <= SB_MAX_COORD && fabs(p.velocity.x) <= SB_MAX_SPEED);
        sb_world_destroy(w);

        w = sb_world_create(&def);
        sb_particle_def fast = sb_default_particle_def();
        fast.velocity = v2(1e4, 1e4);
        sb_status added;
        sb_particle_id bullet = sb_world_add_particle(w, &fast, &added);
        ENSURE(added == SB_OK);
        for (int f = 0; f < 3600; ++f)
            ENSURE(sb_world_step(w) == SB_OK);
        ENSURE(particle_now(w, bullet).position.x > 5.9e5);
        sb_world_destroy(w);
    }
    return 0;
}

// ---------------------------------------------------------------- tethers

// A chain of 40 rigid links of 0.25 m from a fixed particle, 100 kg at the end:
// the wrecking ball (horizontal), or hanging at rest. Returns the world; ids of the particles in *chain.
static sb_world *wrecking_ball(sb_method method, bool tethers, sb_particle_id chain[41], sb_spring_id links[40], bool hanging,
                               double ball_kg)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.tethers = tethers;
    def.gravity = v2(0.0, -10.0);
    def.collisions = false;
    sb_world *w = sb_world_create(&def);
    chain[0] = add_particle(w, 0.0, 0.0, 1.0, true);
    for (int i = 1; i <= 40; ++i) {
        double x = hanging ? 0.0 : 0.25 * i, y = hanging ? -0.25 * i : 0.0;
        chain[i] = add_particle(w, x, y, i == 40 ? ball_kg : 1.0, false);
        links[i - 1] = add_spring(w, chain[i - 1], chain[i], 0.25, sb_tuning_hertz(0.0, 1.0));
    }
    return w;
}

static double path_stretch(const sb_world *w, const sb_spring_id links[40])
{
    double len = 0.0;
    for (int k = 0; k < 40; ++k)
        len += sb_spring_length(w, links[k]);
    return len / 10.0 - 1.0;
}

// Long range attachments (Kim, Chentanez, Mueller 2012): no particle ends a step farther
// from the fixed particle than its rigid path (and the springs' slop), in every method, and the heavy chain that
// the iterations alone stretch by whole percents (a 19 kg ball on 1 kg beads: from 20 times its
// bead a chain is solved whole, articulation.c) stays under the 2% in every
// iterative method. Tethers
// follow the topology: a cut chain falls, and a hertz spring in the path still stretches.
TEST(tethers_bound_rigid_paths)
{
    sb_particle_id chain[41];
    sb_spring_id links[40];
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        double peak[2] = {0.0, 0.0};
        for (int tethers = 0; tethers <= 1; ++tethers) {
            sb_world *w = wrecking_ball((sb_method)m, tethers, chain, links, false, 19.0);
            for (int f = 0; f < 300; ++f) {
                sb_world_step(w);
                double st = path_stretch(w, links);
                peak[tethers] = !(st <= peak[tethers]) ? st : peak[tethers];
                // (a method that holds rigid springs itself is left their slop)
                const double slop = m == SB_METHOD_FORCE || m == SB_METHOD_IMPULSE ? 0.0 : SB_RIGID_SLOP;
                if (tethers)
                    for (int i = 1; i <= 40; ++i)
                        ENSURE(v2_len(particle_now(w, chain[i]).position) <= 0.25 * i * (1.0 + slop + 1e-9));
            }
            sb_world_destroy(w);
        }
        printf("%-10s wrecking ball peak path stretch: %.2f%% without tethers, %.2f%% with\n",
               sb_method_name((sb_method)m), 100 * peak[0], 100 * peak[1]);
        // force and impulse are the one-pass baselines: tethers bound them, but their links
        // still stretch locally (10%).
        if (m != SB_METHOD_FORCE && m != SB_METHOD_IMPULSE)
            ENSURE(peak[1] < 0.02);
        ENSURE(peak[1] < 0.5 * peak[0]);
    }

    // Cut the chain in the middle: the lower half must fall away from its old bound.
    sb_world *w = wrecking_ball(SB_METHOD_SOFT, true, chain, links, false, 100.0);
    for (int f = 0; f < 120; ++f)
        sb_world_step(w);
    ENSURE(sb_world_remove_spring(w, links[19]) == SB_OK);
    for (int f = 0; f < 60; ++f)
        sb_world_step(w);
    double fell = v2_len(particle_now(w, chain[20]).position);
    printf("after the cut, particle 20 is %.2f m from the anchor (its rigid path was 5 m)\n", fell);
    ENSURE(fell > 5.5);
    sb_world_destroy(w);

    // A hertz spring at the top of a hanging chain is meant to stretch: tuned at 10 Hz on
    // its reduced mass of 1 kg, k = 3948 N/m, and the 139 kg below stretch it by 0.35 m.
    w = wrecking_ball(SB_METHOD_SOFT, true, chain, links, true, 100.0);
    ENSURE(sb_spring_set(w, links[0], 0.25, &(sb_tuning){.mode = SB_TUNE_HERTZ, .hertz = 10.0, .damping_ratio = 1.0}, NULL) == SB_OK);
    const double pi = 3.14159265358979323846;
    double k = 1.0 * (2.0 * pi * 10.0) * (2.0 * pi * 10.0);
    double expected = 139.0 * 10.0 / k;
    double mean = 0.0;
    for (int f = 0; f < 240; ++f) {
        sb_world_step(w);
        if (f >= 120)
            mean += (sb_spring_length(w, links[0]) - 0.25) / 120.0;
    }
    printf("hertz spring at the top: stretch %.3f m, m g / k = %.3f m\n", mean, expected);
    // The spring is free to stretch: the tethers follow rigid paths only. Its static stiffness
    // is implicit Euler's k_eff = (1 + det - trace) m / (det h^2) for its exact poles
    // (method_soft.c): 1.19 k for 10 Hz at damping ratio 1 at six sub-steps, so the stretch is
    // 16% short of m g / k; it reaches m g / k as the sub-step shrinks.
    ENSURE(fabs(mean - expected) < 0.25 * expected);
    sb_world_destroy(w);
    return 0;
}

// ---------------------------------------------------------------- vector passes

// A hub joined to 70 particles by hertz springs: the greedy colouring gives the first 63
// springs a colour each and puts the rest in colour 63, where they share the hub. Solving
// those four at a time would lose three of the hub's four updates.
static sb_world *hub(const sb_world_def *def)
{
    sb_world *w = sb_world_create(def);
    sb_particle_id centre = add_particle(w, 0.0, 0.0, 5.0, false);
    for (int i = 0; i < 70; ++i) {
        double angle = 2.0 * 3.14159265358979 * i / 70.0;
        sb_particle_id p = add_particle(w, cos(angle), sin(angle), 1.0 + 0.01 * i, i % 9 == 0);
        add_spring(w, centre, p, 0.8, sb_tuning_hertz(3.0 + 0.1 * i, 0.3));
    }
    return w;
}

// The soft method's passes run four springs of a colour at a time where the CPU has AVX2, and
// the velocity methods' contact solve four contacts (contact_solver.c).
// Each lane does the scalar arithmetic in the scalar order, so the worlds must be
// bit-identical: rigid and hertz springs, warm starts, contacts, tethers, and the
// overflow colour that must stay scalar.
TEST(simd_matches_scalar)
{
    printf("vector passes %s on this CPU\n", vector_passes_active() ? "active" : "not available (scalar only)");
    // the ball pit: contacts four at a time too (contact_solver.c), its balls rolling; then without
    // friction (every group of four takes the frictionless path), and with half its balls
    // frictionless (groups that mix the two paths)
    const char *names[] = {"cloth", "bridge", "wrecking_ball", "hub", "ball_pit", "ball_pit", "ball_pit"};
    for (int n = 0; n < 7; ++n) {
        uint64_t hash[2];
        for (int allow = 0; allow <= 1; ++allow) {
            vector_passes_allow(allow);
            sb_world_def def = sb_default_world_def();
            def.friction = n == 5 ? 0.0 : def.friction;
            sb_world *w = n == 3 ? hub(&def) : sb_sample_find(names[n])->build(&def, n == 0 ? 21 : sb_sample_find(names[n])->default_size);
            for (int i = 0; n == 6 && i < w->p_high; i += 2) {
                sb_particle_def p;
                sb_particle_id id = {(uint32_t)i, w->p_gen[i]};
                if (sb_particle_get(w, id, &p) == SB_OK) {
                    p.friction = 0.0;
                    sb_particle_set(w, id, &p, NULL);
                }
            }
            for (int f = 0; f < 90; ++f)
                sb_world_step(w);
            hash[allow] = sb_world_state_hash(w);
            sb_world_destroy(w);
        }
        vector_passes_allow(true);
        printf("%-14s %-13s scalar %016llx vector %016llx\n", names[n], n == 5 ? "frictionless" : n == 6 ? "half of it" : "",
               (unsigned long long)hash[0], (unsigned long long)hash[1]);
        ENSURE(hash[0] == hash[1]);
    }
    return 0;
}

// ---------------------------------------------------------------- dragging, collisions

TEST(drag_follows_target_in_every_method)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        const sb_sample *rope = sb_sample_find("rope");
        sb_world_def def = sb_default_world_def();
        def.method = (sb_method)m;
        sb_world *w = rope->build(&def, 10);
        sb_particle_id tip = {10, w->p_gen[10]};
        sb_vec2 target = v2(1.0, -1.0);
        ENSURE(sb_world_drag_begin(w, tip, target, 5.0, 1.0) == SB_OK);
        // The rope hangs from the tip and keeps swinging a little, so the miss is averaged
        // over the third second; it is the sag of a 5 Hz drag under the rope's weight.
        double miss = 0.0;
        for (int f = 0; f < 180; ++f) {
            sb_world_step(w);
            if (f >= 120)
                miss += v2_len(v2_sub(particle_now(w, tip).position, target)) / 60.0;
        }
        if (miss > 0.05)
            printf("%s: dragged tip is %.3f m from the target\n", sb_method_name((sb_method)m), miss);
        ENSURE(miss < 0.05);
        sb_world_drag_end(w);
        ENSURE(sb_world_drag_particle(w).generation == 0);
        sb_world_destroy(w);
    }
    return 0;
}

// The grid broad phase finds every overlapping pair that an n^2 search finds.
TEST(broad_phase_matches_brute_force)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_rng rng = sb_rng_seed(11);
    for (int i = 0; i < 500; ++i) {
        sb_particle_def p = sb_default_particle_def();
        p.position = v2(sb_rng_uniform(&rng, -3, 3), sb_rng_uniform(&rng, -3, 3));
        p.radius = sb_rng_uniform(&rng, 0.02, 0.15);
        sb_world_add_particle(w, &p, NULL);
    }
    contacts_reserve(w);
    contacts_build(w);
    // in colour order now: within a colour (but the last, run in order on one thread) no two
    // contacts share a particle that moves, so a colour's contacts may run on any thread
    int colored = 0;
    for (int color = 0; color < 64; ++color) {
        int from = w->contact.color_start[color], to = w->contact.color_start[color + 1];
        colored += to - from;
        for (int k = from; k < to && color < 63; ++k)
            for (int m = k + 1; m < to; ++m) {
                const sb_contact *c = &w->contact.next[k], *d = &w->contact.next[m];
                ENSURE(c->color == color && d->color == color);
                bool moves[4] = {w->inv_mass[c->a] > 0.0, c->b >= 0 && w->inv_mass[c->b] > 0.0,
                                 w->inv_mass[d->a] > 0.0, d->b >= 0 && w->inv_mass[d->b] > 0.0};
                ENSURE(!(moves[0] && moves[2] && c->a == d->a) && !(moves[0] && moves[3] && c->a == d->b) &&
                       !(moves[1] && moves[2] && c->b == d->a) && !(moves[1] && moves[3] && c->b == d->b));
            }
    }
    ENSURE(colored == w->contact.next_count && w->contact.color_start[1] > 0);
    contacts_commit(w); // as the step commits them
    int overlapping = 0, found = 0;
    for (int i = 0; i < w->p_high; ++i) {
        for (int j = i + 1; j < w->p_high; ++j) {
            if (v2_len(v2_sub(w->pos[j], w->pos[i])) >= w->radius[i] + w->radius[j])
                continue;
            overlapping += 1;
            uint64_t key = ((uint64_t)i << 32) | SHAPE_PARTICLE | (uint32_t)j;
            for (int k = 0; k < w->contact.count; ++k)
                if (w->contact.list[k].key == key) {
                    found += 1;
                    break;
                }
        }
    }
    ENSURE(overlapping > 100);
    ENSURE(found == overlapping);
    for (int k = 0; k < w->contact.count; ++k) { // the warm starts sorted and unique, each naming its contact
        ENSURE(k == 0 || w->contact.warm[k - 1].key < w->contact.warm[k].key);
        ENSURE(w->contact.warm[k].slot >= 0 && w->contact.warm[k].slot < w->contact.count);
        ENSURE(w->contact.list[w->contact.warm[k].slot].key == w->contact.warm[k].key);
    }
    sb_world_destroy(w);
    return 0;
}

// A ball pit settles in every method: nothing escapes the box and overlaps stay small.
TEST(ball_pit_settles)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_world_def def = sb_default_world_def();
        def.method = (sb_method)m;
        sb_world *w = sb_sample_find("ball_pit")->build(&def, 300);
        for (int f = 0; f < 360; ++f)
            sb_world_step(w);
        double worst = 0.0;
        int escaped = 0;
        for (int i = 0; i < w->p_high; ++i) {
            sb_vec2 p = w->pos[i];
            if (p.x < 0 || p.x > 10 || p.y < 0)
                escaped += 1;
            for (int j = i + 1; j < w->p_high; ++j) {
                double overlap = w->radius[i] + w->radius[j] - v2_len(v2_sub(w->pos[j], p));
                double rel = overlap / fmin(w->radius[i], w->radius[j]);
                worst = rel > worst ? rel : worst;
            }
        }
        double ke = sb_world_get_stats(w)->kinetic_energy;
        printf("%-10s ball pit 300: largest overlap %.1f%% of the smaller radius, KE %.3g J, escaped %d\n",
               sb_method_name((sb_method)m), 100 * worst, ke, escaped);
        ENSURE(escaped == 0);
        ENSURE(worst < 0.25);
        ENSURE(ke < 0.5);
        sb_world_destroy(w);
    }
    return 0;
}

// Switching method between frames keeps the state: no jump in position or velocity.
TEST(method_switch_keeps_state)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_sample_find("rope")->build(&def, 20);
    for (int f = 0; f < 30; ++f)
        sb_world_step(w);
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        double ke_before = sb_world_get_stats(w)->kinetic_energy;
        sb_world_def d = sb_world_get_def(w);
        d.method = (sb_method)((m + 4) % SB_METHOD_COUNT);
        ENSURE(sb_world_set_def(w, &d, NULL) == SB_OK);
        sb_world_step(w);
        double ke_after = sb_world_get_stats(w)->kinetic_energy;
        // one frame of falling can add at most m g v dt-ish; a blow-up would add far more
        ENSURE(ke_after < ke_before * 1.5 + 5.0);
    }
    sb_world_destroy(w);
    return 0;
}

// ---------------------------------------------------------------- mass ramps

// A world with no springs can ramp a mass (a scene's reload does) and be stepped and measured:
// the stretch measure copied a NULL rest array (UBSan, found by the host fuzz).
TEST(mass_ramp_in_a_world_without_springs)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_particle_def pd = sb_default_particle_def();
    sb_status st;
    sb_particle_id p = sb_world_add_particle(w, &pd, &st);
    ENSURE(st == SB_OK);
    ENSURE(sb_particle_ramp_mass(w, p, 3.0, 0.5) == SB_OK);
    for (int i = 0; i < 60; ++i)
        sb_world_step(w);
    sb_particle_def got;
    sb_particle_get(w, p, &got);
    ENSURE_NEAR(got.mass, 3.0, 1e-12);
    ENSURE(sb_world_get_stats(w)->max_stretch == 0.0);
    sb_world_destroy(w);
    return 0;
}


// Chains snap at one link. A chain of 10 rigid links of 0.1 m (beads of 0.1 kg, a 2 kg weight at
// the end) rated at 3 times each link's static load hangs still for 2 s, then the weight is
// jerked down at 8 m/s: one link breaks a step, and one to three in all (the jerk has set the
// beads moving before the link goes, and stopping them loads the next), in every method at 1, 2
// and 6 sub-steps. A break_force is a pull: a link pushed at twice it holds unless it says
// break_push, and a pull breaks it either way.
TEST(chains_snap_at_one_link)
{
    const int substeps[] = {1, 2, 6};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si) {
            sb_world_def def = sb_default_world_def();
            def.method = (sb_method)m;
            def.substeps = substeps[si];
            sb_world *w = sb_world_create(&def);
            const double g = -def.gravity.y;
            sb_particle_id prev = add_particle(w, 0, 0, 1.0, true), weight = prev;
            sb_spring_id links[10];
            for (int i = 1; i <= 10; ++i) {
                weight = add_particle(w, 0, -0.1 * i, i == 10 ? 2.0 : 0.1, false);
                sb_spring_def d = sb_default_spring_def();
                d.a = prev;
                d.b = weight;
                d.break_force = 3.0 * g * (2.0 + 0.1 * (10 - i));
                links[i - 1] = sb_world_add_spring(w, &d, NULL, NULL);
                prev = weight;
            }
            int broken = 0, most_in_a_step = 0;
            for (int f = 0; f < 240; ++f) {
                if (f == 120) {
                    sb_particle_def p = particle_now(w, weight);
                    p.velocity = v2(0.0, -8.0);
                    ENSURE(sb_particle_set(w, weight, &p, NULL) == SB_OK);
                }
                sb_world_step(w);
                int now = 0;
                for (int k = 0; k < 10; ++k)
                    now += !sb_spring_is_valid(w, links[k]);
                most_in_a_step = now - broken > most_in_a_step ? now - broken : most_in_a_step;
                if (f < 120)
                    ENSURE(now == 0); // hanging still, it holds
                broken = now;
            }
            printf("  %-10s %d sub-steps: %d links broke, at most %d in a step\n", sb_method_name((sb_method)m),
                   substeps[si], broken, most_in_a_step);
            ENSURE(broken >= 1 && broken <= 3 && most_in_a_step == 1);
            sb_world_destroy(w);

            for (int push = 0; push <= 1; ++push)
                for (int pull = 0; pull <= 1; ++pull) {
                    def.gravity = v2(0, 0);
                    w = sb_world_create(&def);
                    sb_spring_def d = sb_default_spring_def();
                    d.a = add_particle(w, 0, 0, 1.0, true);
                    d.b = add_particle(w, 0.1, 0, 1.0, false);
                    d.break_force = 10.0;
                    d.break_push = push;
                    sb_spring_id link = sb_world_add_spring(w, &d, NULL, NULL);
                    for (int f = 0; f < 30; ++f) {
                        sb_particle_apply_force(w, d.b, v2(pull ? 20.0 : -20.0, 0.0));
                        sb_world_step(w);
                    }
                    ENSURE(sb_spring_is_valid(w, link) == (!pull && !push));
                    sb_world_destroy(w);
                }
        }
    return 0;
}
// A chain built at rest under gravity carries its static load: 10 rigid links of 0.1 m, beads of
// 0.1 kg and an end weight of 0.1, 2 or 10 kg (1:1, 20:1 and 100:1), breakable (so no tether
// holds them), hung straight down and stepped 4 s. Each link's force never exceeds 1.05 times
// the weight below it and ends within 1% of it, in every method at 1, 2 and 6 sub-steps and 1, 4
// and 32 iterations; links rated at 1.6 times their static load all hold. Solved by the
// springs' iterations alone a link rang to 1.6-1.8 times its static load in the first frames.
TEST(chains_built_at_rest_carry_their_static_load)
{
    const int substeps[] = {1, 2, 6}, iterations[] = {1, 4, 32};
    const double weights[] = {0.1, 2.0, 10.0};
    for (int m = 0; m < SB_METHOD_COUNT; ++m)
        for (int si = 0; si < 3; ++si)
            for (int it = 0; it < 3; ++it) {
                double worst_peak = 0.0, worst_end = 0.0;
                for (int wi = 0; wi < 3; ++wi)
                    for (int rated = 0; rated <= 1; ++rated) {
                        sb_world_def def = sb_default_world_def();
                        def.method = (sb_method)m;
                        def.substeps = substeps[si];
                        def.iterations = iterations[it];
                        sb_world *w = sb_world_create(&def);
                        const double g = -def.gravity.y;
                        sb_particle_id prev = add_particle(w, 0, 0, 1.0, true);
                        sb_spring_id links[10];
                        double load[10];
                        for (int i = 1; i <= 10; ++i) {
                            sb_particle_id p = add_particle(w, 0, -0.1 * i, i == 10 ? weights[wi] : 0.1, false);
                            load[i - 1] = g * (weights[wi] + 0.1 * (10 - i));
                            sb_spring_def d = sb_default_spring_def();
                            d.a = prev;
                            d.b = p;
                            d.break_force = rated ? 1.6 * load[i - 1] : 1e12;
                            links[i - 1] = sb_world_add_spring(w, &d, NULL, NULL);
                            prev = p;
                        }
                        for (int f = 0; f < 240; ++f) {
                            sb_world_step(w);
                            for (int k = 0; k < 10; ++k) {
                                ENSURE(sb_spring_is_valid(w, links[k]));
                                const double r = sb_spring_force(w, links[k]) / load[k];
                                worst_peak = r > worst_peak ? r : worst_peak;
                                if (f == 239)
                                    worst_end = fabs(r - 1.0) > worst_end ? fabs(r - 1.0) : worst_end;
                            }
                        }
                        sb_world_destroy(w);
                    }
                printf("  %-10s %d sub-steps %2d iterations: peak %.4f of static, off by %.4f at 4 s\n",
                       sb_method_name((sb_method)m), substeps[si], iterations[it], worst_peak, worst_end);
                ENSURE(worst_peak <= 1.05 && worst_end <= 0.01);
            }
    return 0;
}

// A spring breaks once: its break is told by the step that broke it and by no later one, a world
// that halts in the next step included (the halting step and every frame after took no step of
// events, and told the last one's break again: a bridge in verlet that blew up fired
// on_spring_break 22 times for one spring). Contact events alike.
static sb_world *break_and_halt(int break_before, int *halted_at)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_particle_id top = add_particle(w, 0, 0, 1, true), bob = add_particle(w, 0, -1, 5, false);
    sb_particle_id runaway = add_particle(w, 3, 0, 1, false);
    sb_spring_def d = sb_default_spring_def();
    d.a = top;
    d.b = bob;
    d.rest_length = 1;
    d.break_force = 1e6;
    sb_spring_id s = sb_world_add_spring(w, &d, NULL, NULL);
    *halted_at = -1;
    for (int f = 0; f < 200; ++f) {
        if (f == break_before)
            sb_spring_set_break(w, s, 0.0, 1.0, NULL); // its 5 kg pull it past now
        sb_particle_apply_force(w, runaway, (sb_vec2){1e12, 0}); // until it runs out of the world's range
        if (sb_world_step(w) == SB_ERR_HALTED && *halted_at < 0)
            *halted_at = f;
        if (*halted_at >= 0 && f > *halted_at + 20)
            break;
    }
    return w;
}

TEST(a_spring_breaks_once)
{
    int halts;
    sb_world_destroy(break_and_halt(-1, &halts)); // where it halts
    ENSURE(halts > 0);
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_world_destroy(w);
    int told = 0, halted_at = -1;
    // the same run, the spring made to break in the step that halts, counted step by step
    sb_world_def d2 = sb_default_world_def();
    w = sb_world_create(&d2);
    sb_particle_id top = add_particle(w, 0, 0, 1, true), bob = add_particle(w, 0, -1, 5, false);
    sb_particle_id runaway = add_particle(w, 3, 0, 1, false);
    sb_spring_def d = sb_default_spring_def();
    d.a = top;
    d.b = bob;
    d.rest_length = 1;
    d.break_force = 1e6;
    sb_spring_id s = sb_world_add_spring(w, &d, NULL, NULL);
    for (int f = 0; f <= halts + 20; ++f) {
        if (f == halts - 1) // it breaks in the step before the one that halts
            sb_spring_set_break(w, s, 0.0, 1.0, NULL);
        sb_particle_apply_force(w, runaway, (sb_vec2){1e12, 0});
        sb_status st = sb_world_step(w);
        halted_at = st == SB_ERR_HALTED && halted_at < 0 ? f : halted_at;
        const sb_break_event *events;
        int n = sb_world_break_events(w, &events);
        told += n;
        const sb_contact_event *b, *e;
        int nb, ne;
        sb_world_contact_events(w, &b, &nb, &e, &ne);
        if (halted_at >= 0 && f > halted_at)
            ENSURE(n == 0 && nb == 0 && ne == 0);
    }
    printf("  halted at step %d; the break told %d time(s)\n", halted_at, told);
    ENSURE(halted_at == halts && told == 1);
    sb_world_destroy(w);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(a_spring_breaks_once),
    ENTRY(rng_is_deterministic),
    ENTRY(determinism),
    ENTRY(nonfinite_containment),
    ENTRY(runaway_halts_like_nonfinite),
    ENTRY(tethers_bound_rigid_paths),
    ENTRY(chains_snap_at_one_link),
    ENTRY(chains_built_at_rest_carry_their_static_load),
    ENTRY(simd_matches_scalar),
    ENTRY(drag_follows_target_in_every_method),
    ENTRY(broad_phase_matches_brute_force),
    ENTRY(ball_pit_settles),
    ENTRY(method_switch_keeps_state),
    ENTRY(mass_ramp_in_a_world_without_springs),
};

int main(int argc, char **argv) { return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]); }
