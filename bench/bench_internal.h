// What bench.c and bench_guarantees.c share: the scenes, springbox as an engine, and a run.
#ifndef BENCH_INTERNAL_H
#define BENCH_INTERNAL_H

#include "bench_scene.h"
#include "sb_world.h"

#include <stdbool.h>

// ---------------------------------------------------------------- shared

void scene_free(bench_scene *s);
/// cloth N: N x N particles of 1 kg spaced 0.1 m, top row fixed, rigid links between
/// horizontal and vertical neighbours, built with a 30% horizontal shear so it swings. The
/// links' lengths are the built distances (vertical ones 0.1044 m), so every engine starts
/// unstretched and any stretch is the solver's.
/// Links between two fixed particles of the top row do nothing and are left out
/// (Chipmunk aborts on a joint between two static bodies).
void make_cloth(bench_scene *s, int n);
/// ball pit N: circles of radius 0.05 to 0.1 m from a fixed seed, in a 10 m wide box,
/// dropped from a grid and settled for 10 s.
void make_ball_pit(bench_scene *s, int n);
/// column 20: the stack, 20 balls of radius 0.05 m and 1 kg resting on the floor of a box
/// 1 m wide, each on the one below. Quality: how far the top one sinks in 10 s (mm).
void make_column(bench_scene *s);
void make_heavy_net(bench_scene *s);
/// chain 30: the chain, 30 rigid links of 0.1 m pinned at one end, released horizontal.
void make_chain(bench_scene *s);
/// springbox as a bench engine, with the settings its runs take (method, tethers, rolling,
/// threads, sub-steps; 0 sub-steps: the default).
extern sb_method bench_method;
extern bool bench_tethers, bench_no_rolling;
extern int bench_threads, bench_substeps;
void *sb_create(const bench_scene *s);
void sb_step(void *world);
void sb_state(void *world, double *xy, double *vxy);
void sb_destroy(void *world);
double now_ms(void);
/// How many quality figures a run reports (what each holds depends on the scene).
enum { BENCH_QUALITY = 6 };

double run(const bench_engine *e, const bench_scene *s, int steps, double q[BENCH_QUALITY]);
/// springbox_bench --guarantees: the README's table "what each method guarantees", measured.
/// Per method and sub-step count (default iterations): the tuning errors of a lone spring,
/// the worst link stretch of the 30-link chain over 3 s, and ms per step of cloth 32; then
/// the peers on the same chain and cloth.
int guarantees(void);
/// What a snapshot costs: for built-in scenes at the default settings, the time to
/// take one (and free it) and to restore one, against the time of a step in the same run, and
/// its size. A window that keeps a minute of history takes one every frame.
int snapshots(void);

#endif
