// The soft method's three passes over the packed springs (method_soft.c says what each
// computes and why), and the rigid springs' position sweep that sequential and soft share
// (solver.c). Springs of one graph colour share no particle, so four of them can be solved at
// once: the velocities of their ends are loaded, the same IEEE operations
// run in each lane in the same order as the scalar code, and the results are stored
// back. The vector and scalar paths therefore give bit-identical worlds
// (tests/core_tests.c: simd_matches_scalar), and a machine without AVX2 runs the scalar
// path with the same results. Colour 63 collects every spring past the 63rd colour, so it
// may share particles and always runs one spring at a time.
#include "sb_pool.h"
#include "springs_kernels.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SB_X86 1
#endif

// ------------------------------------------------------------------ one spring at a time

// Geometry, the bias impulse m_soft (beta/h) C, and the warm start (a rigid spring by seed 000's
// listing, a hertz spring with its total, as Box2D).
static inline void prepare_one(sb_world *w, int k, double rigid_fraction, double tuned_fraction)
{
    double fraction = w->krigid[k] ? rigid_fraction : tuned_fraction;
    spring_axis(w, k);
    w->kg[k] = w->kstiff[k] * w->ksep[k];
    double warm = spring_warm_impulse(w, k, w->krigid[k], fraction);
    w->ktension[k] = w->krigid[k] ? warm : 0.0; // what the rigid accumulator leaves out (sb_spring_force)
    spring_apply(w, k, warm);
}

// A rigid spring's bias also asks the rate its turn needs, from the velocities each iteration
// finds (rigid_turn_rate; method_sequential.c says why each iteration).
static inline void solve_one(sb_world *w, int k)
{
    double vn = spring_normal_velocity(w, k), bias = w->kg[k];
    if (w->krigid[k])
        bias -= w->kdamp[k] * spring_turn_rate(w, k);
    double impulse = soft_impulse(w->kdamp[k], bias, w->kscale[k], vn, w->kimp[k]);
    w->kimp[k] += impulse;
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
    if (!w->krigid[k])
        return;
    const sb_vec2 pa = w->pos[w->ka[k]], pb = w->pos[w->kb[k]], va = w->vel[w->ka[k]], vb = w->vel[w->kb[k]];
    double dx = pb.x - pa.x, dy = pb.y - pa.y, dd = dx * dx + dy * dy;
    if (!(dd > 1e-24)) { // ends together: along the sub-step's axis
        dx = w->kux[k];
        dy = w->kuy[k];
        dd = 1.0;
    }
    double scaled = -w->kmass[k] * ((vb.x - va.x) * dx + (vb.y - va.y) * dy) / dd;
    w->kimp[k] += scaled * w->krest[k];
    w->vel[w->ka[k]].x -= w->kwa[k] * (dx * scaled);
    w->vel[w->ka[k]].y -= w->kwa[k] * (dy * scaled);
    w->vel[w->kb[k]].x += w->kwb[k] * (dx * scaled);
    w->vel[w->kb[k]].y += w->kwb[k] * (dy * scaled);
}

// Rigid springs only: the position sweep after integration (solver.c says why), moving the
// ends toward the rest length, weighted by inverse mass, by the part of the error beyond a slop
// of SB_RIGID_SLOP of the rest length. Box2D 2.4 leaves errors under its linear slop alone for
// the same reason: moving positions without velocities at rest, sub-step after sub-step, fed the
// tuned springs around rigid links (the suspension bridge kept 0.08 J of motion for minutes; with
// the slop it settles as before, to 1e-5 J).
static inline void project_one(sb_world *w, int k)
{
    if (!w->krigid[k] || w->kmass[k] == 0.0)
        return;
    sb_vec2 *pa = &w->pos[w->ka[k]], *pb = &w->pos[w->kb[k]];
    double dx = pb->x - pa->x, dy = pb->y - pa->y;
    double len = sqrt(dx * dx + dy * dy);
    if (len < 1e-12)
        return;
    double error = len - w->krest[k], slop = w->krest[k] * SB_RIGID_SLOP;
    double kept = error < -slop ? -slop : (error > slop ? slop : error), excess = error - kept;
    if (excess == 0.0)
        return;
    double push = excess * w->kmass[k] / len;
    pa->x += w->kwa[k] * push * dx;
    pa->y += w->kwa[k] * push * dy;
    pb->x -= w->kwb[k] * push * dx;
    pb->y -= w->kwb[k] * push * dy;
}

// ------------------------------------------------------------------ four at a time

#ifdef SB_X86
typedef struct lanes { __m256d ax, ay, bx, by; } lanes;

// Four (x, y) pairs in, x and y lanes out: 128-bit loads and two shuffles, which on the
// CPUs measured here beat vgatherdpd by a wide margin.
__attribute__((target("avx2"))) static inline void load4(const sb_vec2 *v, const int *i, __m256d *x, __m256d *y)
{
    __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&v[i[0]].x)), _mm_loadu_pd(&v[i[2]].x), 1);
    __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(&v[i[1]].x)), _mm_loadu_pd(&v[i[3]].x), 1);
    *x = _mm256_unpacklo_pd(lo, hi);
    *y = _mm256_unpackhi_pd(lo, hi);
}

// The inverse of load4. The four particles are distinct, so the order of the stores is free.
__attribute__((target("avx2"))) static inline void store4(sb_vec2 *v, const int *i, __m256d x, __m256d y)
{
    __m256d lo = _mm256_unpacklo_pd(x, y), hi = _mm256_unpackhi_pd(x, y);
    _mm_storeu_pd(&v[i[0]].x, _mm256_castpd256_pd128(lo));
    _mm_storeu_pd(&v[i[2]].x, _mm256_extractf128_pd(lo, 1));
    _mm_storeu_pd(&v[i[1]].x, _mm256_castpd256_pd128(hi));
    _mm_storeu_pd(&v[i[3]].x, _mm256_extractf128_pd(hi, 1));
}

__attribute__((target("avx2"))) static inline lanes gather_ends(const sb_vec2 *v, const int *ka, const int *kb)
{
    lanes l;
    load4(v, ka, &l.ax, &l.ay);
    load4(v, kb, &l.bx, &l.by);
    return l;
}

__attribute__((target("avx2"))) static inline void scatter_ends(sb_vec2 *v, const int *ka, const int *kb, lanes l)
{
    store4(v, ka, l.ax, l.ay);
    store4(v, kb, l.bx, l.by);
}

// All ones in the lanes whose krigid byte is set.
__attribute__((target("avx2"))) static inline __m256d rigid_mask(const uint8_t *r)
{
    int32_t bytes;
    memcpy(&bytes, r, sizeof bytes);
    __m256i wide = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bytes));
    return _mm256_castsi256_pd(_mm256_cmpgt_epi64(wide, _mm256_setzero_si256()));
}

// va -= kwa * (u * impulse), vb += kwb * (u * impulse), as apply_one.
__attribute__((target("avx2"))) static inline lanes apply4(lanes l, __m256d ux, __m256d uy, __m256d impulse,
                                                           __m256d wa, __m256d wb)
{
    __m256d px = _mm256_mul_pd(ux, impulse), py = _mm256_mul_pd(uy, impulse);
    l.ax = _mm256_sub_pd(l.ax, _mm256_mul_pd(wa, px));
    l.ay = _mm256_sub_pd(l.ay, _mm256_mul_pd(wa, py));
    l.bx = _mm256_add_pd(l.bx, _mm256_mul_pd(wb, px));
    l.by = _mm256_add_pd(l.by, _mm256_mul_pd(wb, py));
    return l;
}

__attribute__((target("avx2"))) static inline __m256d normal_velocity4(lanes l, __m256d ux, __m256d uy)
{
    return _mm256_add_pd(_mm256_mul_pd(_mm256_sub_pd(l.bx, l.ax), ux),
                         _mm256_mul_pd(_mm256_sub_pd(l.by, l.ay), uy));
}

__attribute__((target("avx2"))) static inline __m256d negate(__m256d x)
{
    return _mm256_xor_pd(x, _mm256_set1_pd(-0.0));
}

__attribute__((target("avx2"))) static void prepare4(sb_world *w, int k, __m256d rigid_fraction, __m256d tuned_fraction)
{
    const __m256d zero = _mm256_setzero_pd();
    lanes p = gather_ends(w->pos, w->ka + k, w->kb + k);
    __m256d dx = _mm256_sub_pd(p.bx, p.ax), dy = _mm256_sub_pd(p.by, p.ay);
    __m256d len = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)));
    __m256d pux = _mm256_loadu_pd(w->kpux + k), puy = _mm256_loadu_pd(w->kpuy + k);
    __m256d has_len = _mm256_cmp_pd(len, _mm256_set1_pd(1e-12), _CMP_GT_OQ);
    __m256d has_prev = _mm256_or_pd(_mm256_cmp_pd(pux, zero, _CMP_NEQ_UQ), _mm256_cmp_pd(puy, zero, _CMP_NEQ_UQ));
    __m256d ux = _mm256_blendv_pd(_mm256_blendv_pd(_mm256_set1_pd(1.0), pux, has_prev), _mm256_div_pd(dx, len), has_len);
    __m256d uy = _mm256_blendv_pd(_mm256_blendv_pd(zero, puy, has_prev), _mm256_div_pd(dy, len), has_len);
    _mm256_storeu_pd(w->kux + k, ux);
    _mm256_storeu_pd(w->kuy + k, uy);
    __m256d sep = _mm256_sub_pd(len, _mm256_loadu_pd(w->krest + k));
    _mm256_storeu_pd(w->ksep + k, sep);
    _mm256_storeu_pd(w->kg + k, _mm256_mul_pd(_mm256_loadu_pd(w->kstiff + k), sep));
    __m256d turn = _mm256_add_pd(_mm256_mul_pd(pux, ux), _mm256_mul_pd(puy, uy));
    __m256d rigid = rigid_mask(w->krigid + k);
    __m256d fraction = _mm256_blendv_pd(tuned_fraction, rigid_fraction, rigid);
    __m256d warm = _mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(w->kimp + k), turn), fraction);
    __m256d impulse = _mm256_and_pd(_mm256_cmp_pd(turn, zero, _CMP_GT_OQ), warm);
    __m256d tension = _mm256_andnot_pd(_mm256_cmp_pd(impulse, zero, _CMP_GT_OQ), impulse);
    impulse = _mm256_blendv_pd(impulse, tension, rigid);
    _mm256_storeu_pd(w->kimp + k, _mm256_blendv_pd(impulse, zero, rigid));
    _mm256_storeu_pd(w->ktension + k, _mm256_blendv_pd(zero, impulse, rigid));
    lanes v = gather_ends(w->vel, w->ka + k, w->kb + k);
    v = apply4(v, ux, uy, impulse, _mm256_loadu_pd(w->kwa + k), _mm256_loadu_pd(w->kwb + k));
    scatter_ends(w->vel, w->ka + k, w->kb + k, v);
}

/// rigid_turn_rate, four at a time, in its order of operations.
__attribute__((target("avx2"))) static inline __m256d turn_rate4(lanes v, __m256d vn, __m256d turn)
{
    __m256d rx = _mm256_sub_pd(v.bx, v.ax), ry = _mm256_sub_pd(v.by, v.ay);
    __m256d across = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(rx, rx), _mm256_mul_pd(ry, ry)), _mm256_mul_pd(vn, vn));
    __m256d rate = negate(_mm256_mul_pd(across, turn)), quarter = _mm256_mul_pd(negate(rate), turn);
    __m256d share = _mm256_mul_pd(_mm256_sub_pd(_mm256_set1_pd(0.01), quarter), _mm256_set1_pd(1.0 / 0.0075));
    return _mm256_mul_pd(rate, _mm256_max_pd(_mm256_setzero_pd(), _mm256_min_pd(_mm256_set1_pd(1.0), share)));
}

__attribute__((target("avx2"))) static void solve4(sb_world *w, int k)
{
    lanes v = gather_ends(w->vel, w->ka + k, w->kb + k);
    __m256d ux = _mm256_loadu_pd(w->kux + k), uy = _mm256_loadu_pd(w->kuy + k);
    __m256d vn = normal_velocity4(v, ux, uy);
    __m256d acc = _mm256_loadu_pd(w->kimp + k), bias = _mm256_loadu_pd(w->kg + k), damp = _mm256_loadu_pd(w->kdamp + k);
    __m256d rigid = rigid_mask(w->krigid + k);
    if (_mm256_movemask_pd(rigid) != 0)
        bias = _mm256_blendv_pd(bias, _mm256_sub_pd(bias, _mm256_mul_pd(damp, turn_rate4(v, vn, _mm256_loadu_pd(w->kturn + k)))), rigid);
    __m256d impulse = _mm256_sub_pd(negate(_mm256_add_pd(_mm256_mul_pd(damp, vn), bias)),
                                    _mm256_mul_pd(_mm256_loadu_pd(w->kscale + k), acc));
    _mm256_storeu_pd(w->kimp + k, _mm256_add_pd(acc, impulse));
    v = apply4(v, ux, uy, impulse, _mm256_loadu_pd(w->kwa + k), _mm256_loadu_pd(w->kwb + k));
    scatter_ends(w->vel, w->ka + k, w->kb + k, v);
}

__attribute__((target("avx2"))) static void relax4(sb_world *w, int k)
{
    __m256d rigid = rigid_mask(w->krigid + k);
    if (_mm256_movemask_pd(rigid) == 0)
        return;
    lanes v = gather_ends(w->vel, w->ka + k, w->kb + k), p = gather_ends(w->pos, w->ka + k, w->kb + k);
    __m256d dx = _mm256_sub_pd(p.bx, p.ax), dy = _mm256_sub_pd(p.by, p.ay); // as relax_one
    __m256d dd = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
    __m256d apart = _mm256_cmp_pd(dd, _mm256_set1_pd(1e-24), _CMP_GT_OQ);
    __m256d ux = _mm256_blendv_pd(_mm256_loadu_pd(w->kux + k), dx, apart);
    __m256d uy = _mm256_blendv_pd(_mm256_loadu_pd(w->kuy + k), dy, apart);
    dd = _mm256_blendv_pd(_mm256_set1_pd(1.0), dd, apart);
    __m256d impulse = _mm256_div_pd(_mm256_mul_pd(negate(_mm256_loadu_pd(w->kmass + k)), normal_velocity4(v, ux, uy)), dd);
    __m256d acc = _mm256_loadu_pd(w->kimp + k);
    __m256d added = _mm256_add_pd(acc, _mm256_mul_pd(impulse, _mm256_loadu_pd(w->krest + k)));
    _mm256_storeu_pd(w->kimp + k, _mm256_blendv_pd(acc, added, rigid));
    lanes moved = apply4(v, ux, uy, impulse, _mm256_loadu_pd(w->kwa + k), _mm256_loadu_pd(w->kwb + k));
    // Springs that are not rigid keep their velocities bit for bit (not v - 0, which can
    // turn -0.0 into +0.0).
    moved.ax = _mm256_blendv_pd(v.ax, moved.ax, rigid);
    moved.ay = _mm256_blendv_pd(v.ay, moved.ay, rigid);
    moved.bx = _mm256_blendv_pd(v.bx, moved.bx, rigid);
    moved.by = _mm256_blendv_pd(v.by, moved.by, rigid);
    scatter_ends(w->vel, w->ka + k, w->kb + k, moved);
}

__attribute__((target("avx2"))) static void project4(sb_world *w, int k)
{
    __m256d rigid = rigid_mask(w->krigid + k);
    if (_mm256_movemask_pd(rigid) == 0)
        return;
    lanes p = gather_ends(w->pos, w->ka + k, w->kb + k);
    __m256d dx = _mm256_sub_pd(p.bx, p.ax), dy = _mm256_sub_pd(p.by, p.ay);
    __m256d len = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)));
    __m256d mass = _mm256_loadu_pd(w->kmass + k), rest = _mm256_loadu_pd(w->krest + k);
    __m256d error = _mm256_sub_pd(len, rest), slop = _mm256_mul_pd(rest, _mm256_set1_pd(SB_RIGID_SLOP));
    __m256d kept = _mm256_max_pd(_mm256_min_pd(error, slop), negate(slop)); // as project_one's clamp
    __m256d excess = _mm256_sub_pd(error, kept);
    __m256d moving = _mm256_and_pd(rigid, _mm256_and_pd(_mm256_cmp_pd(mass, _mm256_setzero_pd(), _CMP_NEQ_OQ),
                                                        _mm256_cmp_pd(len, _mm256_set1_pd(1e-12), _CMP_GE_OQ)));
    moving = _mm256_and_pd(moving, _mm256_cmp_pd(excess, _mm256_setzero_pd(), _CMP_NEQ_OQ));
    __m256d push = _mm256_div_pd(_mm256_mul_pd(excess, mass), len);
    __m256d wa = _mm256_mul_pd(_mm256_loadu_pd(w->kwa + k), push), wb = _mm256_mul_pd(_mm256_loadu_pd(w->kwb + k), push);
    lanes moved;
    moved.ax = _mm256_add_pd(p.ax, _mm256_mul_pd(wa, dx));
    moved.ay = _mm256_add_pd(p.ay, _mm256_mul_pd(wa, dy));
    moved.bx = _mm256_sub_pd(p.bx, _mm256_mul_pd(wb, dx));
    moved.by = _mm256_sub_pd(p.by, _mm256_mul_pd(wb, dy));
    // Lanes that do not move keep their positions bit for bit, as project_one's early return.
    moved.ax = _mm256_blendv_pd(p.ax, moved.ax, moving);
    moved.ay = _mm256_blendv_pd(p.ay, moved.ay, moving);
    moved.bx = _mm256_blendv_pd(p.bx, moved.bx, moving);
    moved.by = _mm256_blendv_pd(p.by, moved.by, moving);
    scatter_ends(w->pos, w->ka + k, w->kb + k, moved);
}
#endif

// ------------------------------------------------------------------ dispatch

static int simd_allowed = 1;

void vector_passes_allow(bool allow) { simd_allowed = allow; }

bool vector_passes_active(void)
{
#ifdef SB_X86
    static int supported = -1;
    if (supported < 0) {
        __builtin_cpu_init();
        supported = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return simd_allowed && supported;
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

#ifdef SB_X86
/// Springs [from, to) of one colour (c < 63), four at a time, the rest one at a time.
__attribute__((target("avx2"))) static void run_avx2(sb_world *w, pass which, int from, int to)
{
    const __m256d fraction = _mm256_set1_pd(w->def.warmstart), tuned = _mm256_set1_pd(tuned_warm_fraction(w));
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

/// A chunk of one colour, on whichever thread the pool gives it (threads, issue 23): springs of a
/// colour share no particle, so chunks never touch the same memory, and each spring's arithmetic
/// is the same on any thread and in either path (simd_matches_scalar).
static void run_chunk(void *ctx, int from, int to)
{
    const pass_job *job = ctx;
#ifdef SB_X86
    if (job->simd) {
        run_avx2(job->w, job->which, job->base + from, job->base + to);
        return;
    }
#endif
    run_scalar(job->w, job->which, job->base + from, job->base + to);
}

static void run_pass(sb_world *w, pass which)
{
    if (w->colors == 0) {
        run_scalar(w, which, 0, w->order_count);
        return;
    }
    pass_job job = {w, which, 0, vector_passes_active()};
    for (int c = 0; c < w->colors; ++c) {
        int k = w->color_start[c], end = w->color_start[c + 1];
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
