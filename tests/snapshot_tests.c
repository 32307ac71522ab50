// Snapshots: a restored world continues bit-identically to the run it was
// taken from, with its structure, warm starts, ramps, drag, breaks and events, in every method.
#include "ensure.h"
#include "sb_constraint.h"
#include "sb_samples.h"
#include "sb_tuning.h"
#include "sb_world.h"

#include <stdlib.h>

static sb_particle_id ball(sb_world *w, double x, double y, double r, bool fixed)
{
    sb_particle_def p = sb_default_particle_def();
    p.position = (sb_vec2){x, y};
    p.radius = r;
    p.fixed = fixed;
    p.events = true;
    return sb_world_add_particle(w, &p, NULL);
}

/// A world with a bit of everything: walls, falling balls with events, a chain of tuned springs
/// that break, a solid spring, a rope, an angle and an area constraint.
static sb_world *busy_world(sb_method method, int substeps, sb_spring_id *chain)
{
    sb_world_def def = sb_default_world_def();
    def.method = method;
    def.substeps = substeps;
    def.has_bounds = true;
    def.bounds = (sb_bounds){-5, -5, 5, 5};
    sb_world *w = sb_world_create(&def);
    sb_world_add_wall(w, (sb_vec2){-4, -1}, (sb_vec2){0, -3}, NULL);
    sb_world_add_wall(w, (sb_vec2){0, -3}, (sb_vec2){4, -1}, NULL);
    for (int i = 0; i < 30; ++i)
        ball(w, -2.0 + 0.13 * (i % 10), 1.0 + 0.2 * (i / 10), 0.05 + 0.002 * i, false);
    sb_particle_id prev = ball(w, 2.5, 4.0, 0.03, true);
    for (int i = 0; i < 6; ++i) {
        sb_particle_id p = ball(w, 2.5 + 0.25 * (i + 1), 4.0, 0.03, false);
        sb_spring_def s = sb_default_spring_def();
        s.a = prev;
        s.b = p;
        s.tuning = sb_tuning_hertz(4.0, 0.1);
        s.break_stretch = i == 5 ? 0.3 : 0.0;
        s.solid = i == 2;
        chain[i] = sb_world_add_spring(w, &s, NULL, NULL);
        prev = p;
    }
    sb_particle_id a = ball(w, -3, 3, 0.04, false), b = ball(w, -2.5, 3, 0.04, false), c = ball(w, -2.5, 2.5, 0.04, false);
    sb_particle_id anchor = ball(w, -3, 4, 0.02, true);
    sb_constraint_def rope = sb_default_constraint_def();
    rope.kind = SB_CONSTRAINT_ROPE;
    rope.particles = (sb_particle_id[]){anchor, a};
    rope.count = 2;
    sb_world_add_constraint(w, &rope, NULL, NULL);
    sb_constraint_def angle = sb_default_constraint_def();
    angle.kind = SB_CONSTRAINT_ANGLE;
    angle.particles = (sb_particle_id[]){a, b, c};
    angle.count = 3;
    angle.tuning = sb_tuning_hertz(2.0, 0.3);
    sb_world_add_constraint(w, &angle, NULL, NULL);
    sb_constraint_def area = sb_default_constraint_def();
    area.kind = SB_CONSTRAINT_AREA;
    area.particles = (sb_particle_id[]){a, b, c};
    area.count = 3;
    area.tuning = sb_tuning_hertz(3.0, 0.5);
    sb_world_add_constraint(w, &area, NULL, NULL);
    sb_spring_def ab = sb_default_spring_def();
    ab.a = a;
    ab.b = b;
    sb_world_add_spring(w, &ab, NULL, NULL);
    return w;
}

/// What a step shows: the state hash and the events it reported.
static uint64_t step_print(sb_world *w)
{
    sb_world_step(w);
    const sb_contact_event *begins, *ends;
    int nb, ne;
    sb_world_contact_events(w, &begins, &nb, &ends, &ne);
    const sb_break_event *breaks;
    int nk = sb_world_break_events(w, &breaks);
    uint64_t h = sb_world_state_hash(w);
    return h ^ ((uint64_t)nb << 48) ^ ((uint64_t)ne << 40) ^ ((uint64_t)nk << 32) ^ (uint64_t)sb_world_ramp_count(w) << 24;
}

// Every method at 1 and 4 sub-steps: a snapshot taken in the middle of a retune, a gravity
// ramp and a drag continues, once restored, exactly as the run it was taken from, frame by
// frame (state hash, contact events, breaks, ramps); restoring twice gives the same run again.
TEST(restored_worlds_continue_bit_identically)
{
    enum { frames = 150 };
    const int substeps[] = {1, 4};
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        for (int si = 0; si < 2; ++si) {
            sb_spring_id chain[6];
            sb_world *w = busy_world((sb_method)m, substeps[si], chain);
            for (int f = 0; f < 40; ++f)
                sb_world_step(w);
            sb_tuning stiff = sb_tuning_hertz(12.0, 0.2);
            for (int i = 0; i < 6; ++i)
                sb_spring_retune(w, chain[i], 0.2, &stiff, 0.5, NULL);
            sb_world_ramp_gravity(w, (sb_vec2){1.0, -12.0}, 1.0);
            sb_world_drag_begin(w, (sb_particle_id){35, 1}, (sb_vec2){3.0, 2.0}, 5.0, 0.7);
            for (int f = 0; f < 10; ++f)
                sb_world_step(w);
            sb_snapshot *snap = sb_world_snapshot(w);
            ENSURE(snap != NULL);
            uint64_t run[frames];
            int broke = 0, began = 0;
            for (int f = 0; f < frames; ++f) {
                if (f == 40)
                    sb_world_drag_move(w, (sb_vec2){4.5, 0.0}); // a hard pull: the last link breaks
                run[f] = step_print(w);
                broke += (int)(run[f] >> 32 & 0xFF);
                began += (int)(run[f] >> 48);
            }
            ENSURE(broke > 0 && began > 0); // the run has breaks and contact events to repeat
            for (int again = 0; again < 2; ++again) {
                ENSURE(sb_world_restore(w, snap) == SB_OK);
                for (int f = 0; f < frames; ++f) {
                    if (f == 40)
                        sb_world_drag_move(w, (sb_vec2){4.5, 0.0});
                    ENSURE(step_print(w) == run[f]);
                }
            }
            sb_snapshot_destroy(snap);
            sb_world_destroy(w);
        }
    }
    return 0;
}

// A snapshot brings back the structure it was taken with: particles, springs, constraints and
// walls added or removed after it are undone, handles made since go stale, handles removed
// since are valid again, and the world then runs exactly as a twin that was never changed.
TEST(restore_brings_back_the_structure)
{
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_spring_id chain[6], twin_chain[6];
        sb_world *w = busy_world((sb_method)m, 2, chain), *twin = busy_world((sb_method)m, 2, twin_chain);
        for (int f = 0; f < 30; ++f) {
            sb_world_step(w);
            sb_world_step(twin);
        }
        sb_snapshot *snap = sb_world_snapshot(w);
        int particles = sb_world_particle_count(w), springs = sb_world_spring_count(w), walls = sb_world_wall_count(w);
        sb_particle_id gone = (sb_particle_id){3, 1};
        ENSURE(sb_particle_is_valid(w, gone));
        ENSURE(sb_world_remove_particle(w, gone) == SB_OK);
        ENSURE(sb_world_remove_spring(w, chain[1]) == SB_OK);
        sb_particle_id added[40];
        for (int i = 0; i < 40; ++i) // more than the slots had room for: the arrays grow
            added[i] = ball(w, -4.0 + 0.2 * i, 4.5, 0.05, false);
        sb_world_add_wall(w, (sb_vec2){-5, 0}, (sb_vec2){5, 0.5}, NULL);
        for (int f = 0; f < 20; ++f)
            sb_world_step(w);
        ENSURE(sb_world_restore(w, snap) == SB_OK);
        ENSURE(sb_world_particle_count(w) == particles);
        ENSURE(sb_world_spring_count(w) == springs);
        ENSURE(sb_world_wall_count(w) == walls);
        ENSURE(sb_particle_is_valid(w, gone));
        ENSURE(sb_spring_is_valid(w, chain[1]));
        for (int i = 0; i < 40; ++i)
            ENSURE(!sb_particle_is_valid(w, added[i]));
        for (int f = 0; f < 60; ++f)
            ENSURE(step_print(w) == step_print(twin));
        // A restored world holds only what was in use: it grows again like any other.
        sb_world *both[2] = {w, twin};
        for (int k = 0; k < 2; ++k) {
            sb_particle_id prev = ball(both[k], -4.0, 4.5, 0.04, true);
            for (int i = 0; i < 150; ++i) {
                sb_particle_id p = ball(both[k], -4.0 + 0.05 * (i + 1), 4.5, 0.02, false);
                sb_spring_def sd = sb_default_spring_def();
                sd.a = prev;
                sd.b = p;
                sb_world_add_spring(both[k], &sd, NULL, NULL);
                prev = p;
            }
            sb_constraint_def rope = sb_default_constraint_def();
            rope.kind = SB_CONSTRAINT_ROPE;
            rope.particles = (sb_particle_id[]){prev, (sb_particle_id){0, 1}};
            rope.count = 2;
            rope.rest = 3.0;
            ENSURE(sb_constraint_is_valid(both[k], sb_world_add_constraint(both[k], &rope, NULL, NULL)));
            sb_world_add_wall(both[k], (sb_vec2){-5, 3}, (sb_vec2){5, 2.5}, NULL);
        }
        for (int f = 0; f < 60; ++f)
            ENSURE(step_print(w) == step_print(twin));
        sb_snapshot_destroy(snap);
        sb_world_destroy(w);
        sb_world_destroy(twin);
    }
    return 0;
}

// A snapshot shares nothing with its world: it outlives it, restores into another world (of
// any size), and each restored world is independent of the snapshot and of the others.
TEST(snapshots_own_their_state)
{
    sb_world_def def = sb_default_world_def();
    sb_world *cloth = sb_sample_find("cloth")->build(&def, 20);
    for (int f = 0; f < 20; ++f)
        sb_world_step(cloth);
    sb_snapshot *snap = sb_world_snapshot(cloth);
    uint64_t expected[30];
    for (int f = 0; f < 30; ++f)
        expected[f] = step_print(cloth);
    sb_world_destroy(cloth); // under AddressSanitizer: no use after free below
    sb_world *other = sb_sample_find("ball_pit")->build(&def, 50), *third = sb_world_create(&def);
    ENSURE(sb_world_restore(other, snap) == SB_OK);
    ENSURE(sb_world_restore(third, snap) == SB_OK);
    for (int f = 0; f < 30; ++f) {
        ENSURE(step_print(other) == expected[f]);
        if (f % 2 == 0) // a different pace: third does not follow other
            ENSURE(step_print(third) == expected[f / 2]);
    }
    ENSURE(sb_snapshot_bytes(snap) > (size_t)sb_world_particle_count(other) * 2 * sizeof(sb_vec2));
    ENSURE(sb_snapshot_time(snap) > 0.3 && sb_snapshot_time(snap) < 0.34); // 20 steps of 1/60 s
    ENSURE(sb_world_restore(other, NULL) == SB_ERR_INVALID);
    sb_snapshot_destroy(snap);
    sb_snapshot_destroy(NULL);
    sb_world_destroy(other);
    sb_world_destroy(third);
    return 0;
}

/// Sets every spring of the chain to 12 Hz at 0.3 m, and the angle and area to 5 Hz at 0.4.
static void retune_all(sb_world *w, const sb_spring_id *chain)
{
    sb_tuning t = sb_tuning_hertz(12.0, 0.3);
    for (int i = 0; i < 6; ++i)
        sb_spring_set(w, chain[i], 0.3, &t, NULL);
    sb_tuning joint = sb_tuning_hertz(5.0, 0.4);
    for (uint32_t c = 1; c < 3; ++c) { // the angle and the area, at their rest (the rope stays rigid)
        sb_constraint_def d;
        sb_particle_id parts[3];
        if (sb_constraint_get(w, (sb_constraint_id){c, 1}, &d, parts, 3) >= 0)
            sb_constraint_set(w, (sb_constraint_id){c, 1}, d.rest, &joint, NULL);
    }
}

// The tuning loop's restore: back to a moment, under the tuning the designer has now. The run
// after it equals the snapshot's run with the new tuning set at that moment (and differs from
// the old tuning's run); a retune still ramping when the designer goes back lands on its target.
TEST(restore_keeping_tuning_replays_the_moment_under_the_new_tuning)
{
    enum { frames = 90 };
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        sb_spring_id chain[6];
        sb_world *w = busy_world((sb_method)m, 2, chain);
        sb_spring_set_break(w, chain[5], 0.0, 0.0, NULL); // a spring that broke has no tuning to keep
        for (int f = 0; f < 40; ++f)
            sb_world_step(w);
        sb_snapshot *snap = sb_world_snapshot(w);
        uint64_t old_run[frames], expected[frames];
        for (int f = 0; f < frames; ++f)
            old_run[f] = step_print(w);
        // what the new tuning does from the moment: the full restore, then the tuning set
        ENSURE(sb_world_restore(w, snap) == SB_OK);
        retune_all(w, chain);
        for (int f = 0; f < frames; ++f)
            expected[f] = step_print(w);
        // the designer's way: the old run, a retune (at once, or a ramp), then back to the moment
        for (int ramped = 0; ramped < 2; ++ramped) {
            ENSURE(sb_world_restore(w, snap) == SB_OK);
            for (int f = 0; f < 30; ++f)
                sb_world_step(w);
            if (ramped) {
                retune_all(w, chain); // the constraints at once; the springs ramp towards the same
                sb_tuning t = sb_tuning_hertz(12.0, 0.3);
                for (int i = 0; i < 6; ++i)
                    sb_spring_retune(w, chain[i], 0.3, &t, 1.0, NULL);
                sb_world_step(w);
            } else {
                retune_all(w, chain);
            }
            ENSURE(sb_world_restore_keep_tuning(w, snap) == SB_OK);
            ENSURE(sb_world_ramp_count(w) == 0);
            sb_spring_def d;
            ENSURE(sb_spring_get(w, chain[2], &d) == SB_OK);
            ENSURE(d.rest_length == 0.3 && d.tuning.hertz == 12.0);
            bool differs = false;
            for (int f = 0; f < frames; ++f) {
                uint64_t h = step_print(w);
                if (h != expected[f])
                    printf("method %s, ramped %d: frame %d differs\n", sb_method_name((sb_method)m), ramped, f);
                ENSURE(h == expected[f]);
                differs = differs || h != old_run[f];
            }
            ENSURE(differs);
        }
        ENSURE(sb_world_restore_keep_tuning(w, NULL) == SB_ERR_INVALID);
        sb_snapshot_destroy(snap);
        sb_world_destroy(w);
    }
    return 0;
}

/// A spring between a and b with default tuning.
static sb_spring_id spring_between(sb_world *w, sb_particle_id a, sb_particle_id b)
{
    sb_spring_def d = sb_default_spring_def();
    d.a = a;
    d.b = b;
    return sb_world_add_spring(w, &d, NULL, NULL);
}

static sb_constraint_id rope_between(sb_world *w, sb_particle_id a, sb_particle_id b)
{
    sb_constraint_def d = sb_default_constraint_def();
    sb_particle_id ends[2] = {a, b};
    d.particles = ends;
    d.count = 2;
    return sb_world_add_constraint(w, &d, NULL, NULL);
}

// A handle that went stale in a restore stays stale: what is made after a restore (in a slot the
// restore emptied, or one it refilled, or past the moment's last slot) never takes the slot and
// generation of a handle made before it, whether it was made after the moment, removed before
// it, or made on a branch a later restore left. Walls take numbers never given before. A handle
// to something the restored moment holds names it again.
TEST(restores_never_give_a_handle_twice)
{
    sb_world_def def = sb_default_world_def();
    sb_world *w = sb_world_create(&def);
    sb_particle_id keep = ball(w, 0, 0, 0.1, false), gone = ball(w, 1, 0, 0.1, false);
    sb_world_remove_particle(w, gone); // a free slot in the moment
    sb_snapshot *moment = sb_world_snapshot(w);
    ENSURE(moment);
    // after the moment: everything made here goes stale in the restore
    sb_particle_id later[4];
    sb_spring_id later_spring[3];
    sb_constraint_id later_rope[3];
    sb_wall_id later_wall[3];
    for (int i = 0; i < 4; ++i)
        later[i] = ball(w, 2.0 + i, 0, 0.1, false);
    for (int i = 0; i < 3; ++i) {
        later_spring[i] = spring_between(w, later[i], later[i + 1]);
        later_rope[i] = rope_between(w, later[i], later[i + 1]);
        later_wall[i] = sb_world_add_wall(w, (sb_vec2){-1, -1.0 - i}, (sb_vec2){1, -1.0 - i}, NULL);
    }
    sb_snapshot *branch = sb_world_snapshot(w); // a moment on the branch the restore leaves
    ENSURE(sb_world_restore(w, moment) == SB_OK);
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 4; ++i)
            ENSURE(!sb_particle_is_valid(w, later[i]));
        ENSURE(!sb_particle_is_valid(w, gone));
        ENSURE(sb_particle_is_valid(w, keep));
        sb_particle_id made[6];
        for (int i = 0; i < 6; ++i) {
            made[i] = ball(w, 5.0 + i, 1, 0.1, false);
            ENSURE(made[i].generation != 0);
            for (int k = 0; k < 4; ++k)
                ENSURE(!(made[i].index == later[k].index && made[i].generation == later[k].generation));
            ENSURE(!(made[i].index == gone.index && made[i].generation == gone.generation));
            ENSURE(!(made[i].index == keep.index && made[i].generation == keep.generation));
        }
        for (int i = 0; i < 4; ++i)
            ENSURE(!sb_particle_is_valid(w, later[i]));
        for (int i = 0; i < 3; ++i) {
            sb_spring_id s = spring_between(w, made[i], made[i + 1]);
            sb_constraint_id c = rope_between(w, made[i], made[i + 1]);
            sb_wall_id wl = sb_world_add_wall(w, (sb_vec2){-2, 3.0 + i}, (sb_vec2){2, 3.0 + i}, NULL);
            for (int k = 0; k < 3; ++k) {
                ENSURE(!sb_spring_is_valid(w, later_spring[k]));
                ENSURE(!(s.index == later_spring[k].index && s.generation == later_spring[k].generation));
                ENSURE(!sb_constraint_is_valid(w, later_rope[k]));
                ENSURE(!(c.index == later_rope[k].index && c.generation == later_rope[k].generation));
                ENSURE(wl.index != later_wall[k].index);
                sb_vec2 a, b;
                ENSURE(sb_wall_get(w, later_wall[k], &a, &b) != SB_OK);
            }
        }
        // back to the branch: its own handles name its things again; then to the moment again
        if (round == 0) {
            ENSURE(sb_world_restore(w, branch) == SB_OK);
            for (int i = 0; i < 4; ++i)
                ENSURE(sb_particle_is_valid(w, later[i]));
            for (int i = 0; i < 6; ++i)
                ENSURE(!sb_particle_is_valid(w, made[i]));
        }
        ENSURE(sb_world_restore_keep_tuning(w, moment) == SB_OK);
    }
    sb_snapshot_destroy(branch);
    sb_snapshot_destroy(moment);
    sb_world_destroy(w);
    return 0;
}

static const test_entry tests[] = {
    ENTRY(restored_worlds_continue_bit_identically),
    ENTRY(restore_brings_back_the_structure),
    ENTRY(snapshots_own_their_state),
    ENTRY(restore_keeping_tuning_replays_the_moment_under_the_new_tuning),
    ENTRY(restores_never_give_a_handle_twice),
};

int main(int argc, char **argv)
{
    return run_tests(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
