// The soft method's three passes over the packed springs (method_soft.c says what each
// computes and why), and the rigid springs' position sweep that sequential and soft share
// (solver.c). Springs of one graph colour share no particle, so four of them can be solved at
// once (f4.h: AVX2, or WebAssembly SIMD in the browser): the velocities of their ends are
// loaded, the same IEEE operations run in each lane in the same order as the scalar code, and
// the results are stored back. The vector and scalar paths therefore give bit-identical worlds
// (tests/core_tests.c: simd_matches_scalar), and a machine without AVX2 runs the scalar
// path with the same results. Colour 63 collects every spring past the 63rd colour, so it
// may share particles and always runs one spring at a time.
#include "sb_pool.h"
#include "springs_kernels.h"

#include <string.h>

#include "f4.h"

// ------------------------------------------------------------------ one spring at a time

// Geometry, the bias impulse m_soft (beta/h) C, and the warm start (a rigid spring by Nissen's sequential-impulse article's
// listing, a hertz spring with its total, as Box2D).
static inline void prepare_one(sb_world *w, int k, double rigid_fraction, double tuned_fraction)
{
    double fraction = w->pack.krigid[k] ? rigid_fraction : tuned_fraction;
    spring_axis(w, k);
    w->pack.kg[k] = w->pack.kstiff[k] * w->pack.ksep[k];
    double warm = spring_warm_impulse(w, k, w->pack.krigid[k], fraction);
    w->pack.ktension[k] = w->pack.krigid[k] ? warm : 0.0; // what the rigid accumulator leaves out (sb_spring_force)
    spring_apply(w, k, warm);
}

// A rigid spring's bias also asks the rate its turn needs, from the velocities each iteration
// finds (rigid_turn_rate; method_sequential.c says why each iteration).
static inline void solve_one(sb_world *w, int k)
{
    double vn = spring_normal_velocity(w, k), bias = w->pack.kg[k];
    if (w->pack.krigid[k])
        bias -= w->pack.kdamp[k] * spring_turn_rate(w, k);
    double impulse = soft_impulse(w->pack.kdamp[k], bias, w->pack.kscale[k], vn, w->pack.kimp[k]);
    w->pack.kimp[k] += impulse;
    spring_apply(w, k, impulse);
}

// Rigid springs only: remove the relative normal velocity the bias added (Box2D v3's relax),
// along the axis d where the position update has put the ends (as Box2D relaxes at the moved
// anchors): the velocity is left across the link where it now is, its speed along the turn kept
// (RATTLE's velocity step; along the sub-step's first axis the relax undid the turn). Along d
// unnormalised, -m (v . d) / (d . d) times d is the same change without a square root; the
// accumulator takes it as the rest length's worth (the link holds its length within the slop).
static inline void relax_one(sb_world *w, int k)
{
    if (!w->pack.krigid[k])
        return;
    const sb_vec2 pa = w->pos[w->pack.ka[k]], pb = w->pos[w->pack.kb[k]], va = w->vel[w->pack.ka[k]], vb = w->vel[w->pack.kb[k]];
    double dx = pb.x - pa.x, dy = pb.y - pa.y, dd = dx * dx + dy * dy;
    if (!(dd > 1e-24)) { // ends together: along the sub-step's axis
        dx = w->pack.kux[k];
        dy = w->pack.kuy[k];
        dd = 1.0;
    }
    double scaled = -w->pack.kmass[k] * ((vb.x - va.x) * dx + (vb.y - va.y) * dy) / dd;
    w->pack.kimp[k] += scaled * w->pack.krest[k];
    w->vel[w->pack.ka[k]].x -= w->pack.kwa[k] * (dx * scaled);
    w->vel[w->pack.ka[k]].y -= w->pack.kwa[k] * (dy * scaled);
    w->vel[w->pack.kb[k]].x += w->pack.kwb[k] * (dx * scaled);
    w->vel[w->pack.kb[k]].y += w->pack.kwb[k] * (dy * scaled);
}

// Rigid springs only: the position sweep after integration (solver.c says why), moving the
// ends toward the rest length, weighted by inverse mass, by the part of the error beyond a slop
// of SB_RIGID_SLOP of the rest length. Box2D 2.4 leaves errors under its linear slop alone for
// the same reason: moving positions without velocities at rest, sub-step after sub-step, feeds
// the tuned springs around rigid links, and a suspension bridge would never settle.
static inline void project_one(sb_world *w, int k)
{
    if (!w->pack.krigid[k] || w->pack.kmass[k] == 0.0)
        return;
    sb_vec2 *pa = &w->pos[w->pack.ka[k]], *pb = &w->pos[w->pack.kb[k]];
    double dx = pb->x - pa->x, dy = pb->y - pa->y;
    double len = sqrt(dx * dx + dy * dy);
    if (len < 1e-12)
        return;
    double error = len - w->pack.krest[k], slop = w->pack.krest[k] * SB_RIGID_SLOP;
    double kept = error < -slop ? -slop : (error > slop ? slop : error), excess = error - kept;
    if (excess == 0.0)
        return;
    double push = excess * w->pack.kmass[k] / len;
    pa->x += w->pack.kwa[k] * push * dx;
    pa->y += w->pack.kwa[k] * push * dy;
    pb->x -= w->pack.kwb[k] * push * dx;
    pb->y -= w->pack.kwb[k] * push * dy;
}

// ------------------------------------------------------------------ four at a time

#ifdef F4_AVAILABLE
typedef struct lanes { f4 ax, ay, bx, by; } lanes;

F4_FN void load4(const sb_vec2 *v, const int *i, f4 *x, f4 *y)
{
    f4_load_xy(&v[i[0]].x, &v[i[1]].x, &v[i[2]].x, &v[i[3]].x, x, y);
}

// The four particles are distinct, so the order of the stores is free.
F4_FN void store4(sb_vec2 *v, const int *i, f4 x, f4 y)
{
    f4_store_xy(&v[i[0]].x, &v[i[1]].x, &v[i[2]].x, &v[i[3]].x, x, y);
}

F4_FN lanes gather_ends(const sb_vec2 *v, const int *ka, const int *kb)
{
    lanes l;
    load4(v, ka, &l.ax, &l.ay);
    load4(v, kb, &l.bx, &l.by);
    return l;
}

F4_FN void scatter_ends(sb_vec2 *v, const int *ka, const int *kb, lanes l)
{
    store4(v, ka, l.ax, l.ay);
    store4(v, kb, l.bx, l.by);
}

// va -= kwa * (u * impulse), vb += kwb * (u * impulse), as apply_one.
F4_FN lanes apply4(lanes l, f4 ux, f4 uy, f4 impulse, f4 wa, f4 wb)
{
    f4 px = f4_mul(ux, impulse), py = f4_mul(uy, impulse);
    l.ax = f4_sub(l.ax, f4_mul(wa, px));
    l.ay = f4_sub(l.ay, f4_mul(wa, py));
    l.bx = f4_add(l.bx, f4_mul(wb, px));
    l.by = f4_add(l.by, f4_mul(wb, py));
    return l;
}

F4_FN f4 normal_velocity4(lanes l, f4 ux, f4 uy)
{
    return f4_add(f4_mul(f4_sub(l.bx, l.ax), ux), f4_mul(f4_sub(l.by, l.ay), uy));
}

F4_TARGET static void prepare4(sb_world *w, int k, f4 rigid_fraction, f4 tuned_fraction)
{
    const f4 zero = f4_zero();
    lanes p = gather_ends(w->pos, w->pack.ka + k, w->pack.kb + k);
    f4 dx = f4_sub(p.bx, p.ax), dy = f4_sub(p.by, p.ay);
    f4 len = f4_sqrt(f4_add(f4_mul(dx, dx), f4_mul(dy, dy)));
    f4 pux = f4_load(w->pack.kpux + k), puy = f4_load(w->pack.kpuy + k);
    f4 has_len = f4_gt(len, f4_splat(1e-12));
    f4 has_prev = f4_or(f4_ne(pux, zero), f4_ne(puy, zero));
    f4 ux = f4_blend(f4_blend(f4_splat(1.0), pux, has_prev), f4_div(dx, len), has_len);
    f4 uy = f4_blend(f4_blend(zero, puy, has_prev), f4_div(dy, len), has_len);
    f4_store(w->pack.kux + k, ux);
    f4_store(w->pack.kuy + k, uy);
    f4 sep = f4_sub(len, f4_load(w->pack.krest + k));
    f4_store(w->pack.ksep + k, sep);
    f4_store(w->pack.kg + k, f4_mul(f4_load(w->pack.kstiff + k), sep));
    f4 turn = f4_add(f4_mul(pux, ux), f4_mul(puy, uy));
    f4 rigid = f4_mask_of_bytes(w->pack.krigid + k);
    f4 fraction = f4_blend(tuned_fraction, rigid_fraction, rigid);
    f4 warm = f4_mul(f4_mul(f4_load(w->pack.kimp + k), turn), fraction);
    f4 impulse = f4_and(f4_gt(turn, zero), warm);
    f4 tension = f4_and_not(f4_gt(impulse, zero), impulse);
    impulse = f4_blend(impulse, tension, rigid);
    f4_store(w->pack.kimp + k, f4_blend(impulse, zero, rigid));
    f4_store(w->pack.ktension + k, f4_blend(zero, impulse, rigid));
    lanes v = gather_ends(w->vel, w->pack.ka + k, w->pack.kb + k);
    v = apply4(v, ux, uy, impulse, f4_load(w->pack.kwa + k), f4_load(w->pack.kwb + k));
    scatter_ends(w->vel, w->pack.ka + k, w->pack.kb + k, v);
}

/// rigid_turn_rate, four at a time, in its order of operations.
F4_FN f4 turn_rate4(lanes v, f4 vn, f4 turn)
{
    f4 rx = f4_sub(v.bx, v.ax), ry = f4_sub(v.by, v.ay);
    f4 across = f4_sub(f4_add(f4_mul(rx, rx), f4_mul(ry, ry)), f4_mul(vn, vn));
    f4 rate = f4_neg(f4_mul(across, turn)), quarter = f4_mul(f4_neg(rate), turn);
    f4 share = f4_mul(f4_sub(f4_splat(0.01), quarter), f4_splat(1.0 / 0.0075));
    return f4_mul(rate, f4_max(f4_zero(), f4_min(f4_splat(1.0), share)));
}

F4_TARGET static void solve4(sb_world *w, int k)
{
    lanes v = gather_ends(w->vel, w->pack.ka + k, w->pack.kb + k);
    f4 ux = f4_load(w->pack.kux + k), uy = f4_load(w->pack.kuy + k);
    f4 vn = normal_velocity4(v, ux, uy);
    f4 acc = f4_load(w->pack.kimp + k), bias = f4_load(w->pack.kg + k), damp = f4_load(w->pack.kdamp + k);
    f4 rigid = f4_mask_of_bytes(w->pack.krigid + k);
    if (f4_any(rigid))
        bias = f4_blend(bias, f4_sub(bias, f4_mul(damp, turn_rate4(v, vn, f4_load(w->pack.kturn + k)))), rigid);
    f4 impulse = f4_sub(f4_neg(f4_add(f4_mul(damp, vn), bias)), f4_mul(f4_load(w->pack.kscale + k), acc));
    f4_store(w->pack.kimp + k, f4_add(acc, impulse));
    v = apply4(v, ux, uy, impulse, f4_load(w->pack.kwa + k), f4_load(w->pack.kwb + k));
    scatter_ends(w->vel, w->pack.ka + k, w->pack.kb + k, v);
}

F4_TARGET static void relax4(sb_world *w, int k)
{
    f4 rigid = f4_mask_of_bytes(w->pack.krigid + k);
    if (!f4_any(rigid))
        return;
    lanes v = gather_ends(w->vel, w->pack.ka + k, w->pack.kb + k), p = gather_ends(w->pos, w->pack.ka + k, w->pack.kb + k);
    f4 dx = f4_sub(p.bx, p.ax), dy = f4_sub(p.by, p.ay); // as relax_one
    f4 dd = f4_add(f4_mul(dx, dx), f4_mul(dy, dy));
    f4 apart = f4_gt(dd, f4_splat(1e-24));
    f4 ux = f4_blend(f4_load(w->pack.kux + k), dx, apart);
    f4 uy = f4_blend(f4_load(w->pack.kuy + k), dy, apart);
    dd = f4_blend(f4_splat(1.0), dd, apart);
    f4 impulse = f4_div(f4_mul(f4_neg(f4_load(w->pack.kmass + k)), normal_velocity4(v, ux, uy)), dd);
    f4 acc = f4_load(w->pack.kimp + k);
    f4 added = f4_add(acc, f4_mul(impulse, f4_load(w->pack.krest + k)));
    f4_store(w->pack.kimp + k, f4_blend(acc, added, rigid));
    lanes moved = apply4(v, ux, uy, impulse, f4_load(w->pack.kwa + k), f4_load(w->pack.kwb + k));
    // Springs that are not rigid keep their velocities bit for bit (not v - 0, which can
    // turn -0.0 into +0.0).
    moved.ax = f4_blend(v.ax, moved.ax, rigid);
    moved.ay = f4_blend(v.ay, moved.ay, rigid);
    moved.bx = f4_blend(v.bx, moved.bx, rigid);
    moved.by = f4_blend(v.by, moved.by, rigid);
    scatter_ends(w->vel, w->pack.ka + k, w->pack.kb + k, moved);
}

F4_TARGET static void project4(sb_world *w, int k)
{
    f4 rigid = f4_mask_of_bytes(w->pack.krigid + k);
    if (!f4_any(rigid))
        return;
    lanes p = gather_ends(w->pos, w->pack.ka + k, w->pack.kb + k);
    f4 dx = f4_sub(p.bx, p.ax), dy = f4_sub(p.by, p.ay);
    f4 len = f4_sqrt(f4_add(f4_mul(dx, dx), f4_mul(dy, dy)));
    f4 mass = f4_load(w->pack.kmass + k), rest = f4_load(w->pack.krest + k);
    f4 error = f4_sub(len, rest), slop = f4_mul(rest, f4_splat(SB_RIGID_SLOP));
    f4 kept = f4_max(f4_min(error, slop), f4_neg(slop)); // as project_one's clamp
    f4 excess = f4_sub(error, kept);
    f4 moving = f4_and(rigid, f4_and(f4_ne_ordered(mass, f4_zero()), f4_ge(len, f4_splat(1e-12))));
    moving = f4_and(moving, f4_ne_ordered(excess, f4_zero()));
    f4 push = f4_div(f4_mul(excess, mass), len);
    f4 wa = f4_mul(f4_load(w->pack.kwa + k), push), wb = f4_mul(f4_load(w->pack.kwb + k), push);
    lanes moved;
    moved.ax = f4_add(p.ax, f4_mul(wa, dx));
    moved.ay = f4_add(p.ay, f4_mul(wa, dy));
    moved.bx = f4_sub(p.bx, f4_mul(wb, dx));
    moved.by = f4_sub(p.by, f4_mul(wb, dy));
    // Lanes that do not move keep their positions bit for bit, as project_one's early return.
    moved.ax = f4_blend(p.ax, moved.ax, moving);
    moved.ay = f4_blend(p.ay, moved.ay, moving);
    moved.bx = f4_blend(p.bx, moved.bx, moving);
    moved.by = f4_blend(p.by, moved.by, moving);
    scatter_ends(w->pos, w->pack.ka + k, w->pack.kb + k, moved);
}
#endif

// ------------------------------------------------------------------ dispatch

static int simd_allowed = 1;

void vector_passes_allow(bool allow) { simd_allowed = allow; }

bool vector_passes_active(void)
{
#if defined(F4_AVAILABLE) && defined(__x86_64__)
    static int supported = -1;
    if (supported < 0) {
        __builtin_cpu_init();
        supported = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return simd_allowed && supported;
#elif defined(F4_AVAILABLE)
    return simd_allowed; // a browser without WebAssembly SIMD does not load the module
#else
    return false;
#endif
}

typedef enum pass { PASS_PREPARE, PASS_SOLVE, PASS_RELAX, PASS_PROJECT } pass;

static void run_scalar(sb_world *w, pass which, int from, int to)
{
    const double fraction = w->def.warmstart, tuned = tuned_warm_fraction(w);
    for (int k = from; k < to; ++k) {
        switch (which) {
        case PASS_PREPARE: prepare_one(w, k, fraction, tuned); break;
        case PASS_SOLVE: solve_one(w, k); break;
        case PASS_RELAX: relax_one(w, k); break;
        default: project_one(w, k); break;
        }
    }
}

#ifdef F4_AVAILABLE
/// Springs [from, to) of one colour (c < 63), four at a time, the rest one at a time.
F4_TARGET static void run_vector(sb_world *w, pass which, int from, int to)
{
    const f4 fraction = f4_splat(w->def.warmstart), tuned = f4_splat(tuned_warm_fraction(w));
    int k = from;
    for (; k + 4 <= to; k += 4) {
        switch (which) {
        case PASS_PREPARE: prepare4(w, k, fraction, tuned); break;
        case PASS_SOLVE: solve4(w, k); break;
        case PASS_RELAX: relax4(w, k); break;
        default: project4(w, k); break;
        }
    }
    run_scalar(w, which, k, to);
}
#endif

typedef struct pass_job { sb_world *w; pass which; int base; bool simd; } pass_job;

/// A chunk of one colour, on whichever thread the pool gives it: springs of a
/// colour share no particle, so chunks never touch the same memory, and each spring's arithmetic
/// is the same on any thread and in either path (simd_matches_scalar).
static void run_chunk(void *ctx, int from, int to)
{
    const pass_job *job = ctx;
#ifdef F4_AVAILABLE
    if (job->simd) {
        run_vector(job->w, job->which, job->base + from, job->base + to);
        return;
    }
#endif
    run_scalar(job->w, job->which, job->base + from, job->base + to);
}

static void run_pass(sb_world *w, pass which)
{
    if (w->pack.colors == 0) {
        run_scalar(w, which, 0, w->pack.order_count);
        return;
    }
    pass_job job = {w, which, 0, vector_passes_active()};
    for (int c = 0; c < w->pack.colors; ++c) {
        int k = w->pack.color_start[c], end = w->pack.color_start[c + 1];
        if (c == 63) { // the overflow colour may share particles: one at a time, in order
            run_scalar(w, which, k, end);
            continue;
        }
        job.base = k; // chunks aligned to 4 from the colour's start, as the 1-thread path runs them
        sb_pool_for(w->pool, end - k, 4, SPRINGS_PER_THREAD, run_chunk, &job);
    }
}

void soft_prepare_pass(sb_world *w, double h) { (void)h; run_pass(w, PASS_PREPARE); }
void soft_solve_pass(sb_world *w, double h) { (void)h; run_pass(w, PASS_SOLVE); }
void soft_relax_pass(sb_world *w, double h) { (void)h; run_pass(w, PASS_RELAX); }
void rigid_project_pass(sb_world *w) { run_pass(w, PASS_PROJECT); }
