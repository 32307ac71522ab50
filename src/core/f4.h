// Four doubles at a time, one set of operations over two instruction sets: AVX2 on x86-64
// (one 256-bit register) and WebAssembly's SIMD128 in the browser (two 128-bit halves). The
// spring and contact kernels that use it (springs_simd.c, contact_solver.c) run the same IEEE
// operations in each lane as their scalar paths, so the worlds are bit-identical on either
// machine and to the scalar path. Comparisons give masks of all ones or all zeros; a mask
// from anything else is not a mask. Where the two instruction sets disagree (min and max at
// equal values or NaN), both give what AVX2 gives.
#ifndef SB_F4_H
#define SB_F4_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define F4_AVAILABLE 1
/// On functions that use f4: the instruction set they are compiled for.
#define F4_TARGET __attribute__((target("avx2")))
#define F4_FN F4_TARGET static inline

typedef __m256d f4;

F4_FN f4 f4_add(f4 a, f4 b) { return _mm256_add_pd(a, b); }
F4_FN f4 f4_sub(f4 a, f4 b) { return _mm256_sub_pd(a, b); }
F4_FN f4 f4_mul(f4 a, f4 b) { return _mm256_mul_pd(a, b); }
F4_FN f4 f4_div(f4 a, f4 b) { return _mm256_div_pd(a, b); }
F4_FN f4 f4_sqrt(f4 a) { return _mm256_sqrt_pd(a); }
F4_FN f4 f4_splat(double x) { return _mm256_set1_pd(x); }
F4_FN f4 f4_zero(void) { return _mm256_setzero_pd(); }
/// Lane 0 first.
F4_FN f4 f4_lanes(double l0, double l1, double l2, double l3) { return _mm256_set_pd(l3, l2, l1, l0); }
F4_FN f4 f4_load(const double *p) { return _mm256_loadu_pd(p); }
F4_FN void f4_store(double *p, f4 a) { _mm256_storeu_pd(p, a); }
F4_FN f4 f4_and(f4 a, f4 b) { return _mm256_and_pd(a, b); }
F4_FN f4 f4_or(f4 a, f4 b) { return _mm256_or_pd(a, b); }
/// b where the mask is clear, zero where it is set.
F4_FN f4 f4_and_not(f4 mask, f4 b) { return _mm256_andnot_pd(mask, b); }
/// The sign flipped (-0.0 for 0.0, as the scalar negation).
F4_FN f4 f4_neg(f4 a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
F4_FN f4 f4_gt(f4 a, f4 b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
F4_FN f4 f4_ge(f4 a, f4 b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
F4_FN f4 f4_lt(f4 a, f4 b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
F4_FN f4 f4_eq(f4 a, f4 b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
/// a != b and neither is NaN.
F4_FN f4 f4_ne_ordered(f4 a, f4 b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_OQ); }
/// a != b or either is NaN (the C operator !=).
F4_FN f4 f4_ne(f4 a, f4 b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ); }
/// b where the mask is set, a where it is clear.
F4_FN f4 f4_blend(f4 a, f4 b, f4 mask) { return _mm256_blendv_pd(a, b, mask); }
/// a < b ? a : b, lane by lane.
F4_FN f4 f4_min(f4 a, f4 b) { return _mm256_min_pd(a, b); }
/// a > b ? a : b, lane by lane.
F4_FN f4 f4_max(f4 a, f4 b) { return _mm256_max_pd(a, b); }
/// Whether any lane of the mask is set.
F4_FN bool f4_any(f4 mask) { return _mm256_movemask_pd(mask) != 0; }
/// A mask set in the lanes whose byte is not zero.
F4_FN f4 f4_mask_of_bytes(const uint8_t *b)
{
    int32_t bytes;
    memcpy(&bytes, b, sizeof bytes);
    __m256i wide = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(bytes));
    return _mm256_castsi256_pd(_mm256_cmpgt_epi64(wide, _mm256_setzero_si256()));
}
/// A mask set in the lanes whose flag is true, lane 0 first.
F4_FN f4 f4_mask_of(bool l0, bool l1, bool l2, bool l3)
{
    return _mm256_castsi256_pd(_mm256_set_epi64x(-(int64_t)l3, -(int64_t)l2, -(int64_t)l1, -(int64_t)l0));
}
/// The x and y of four points (p[i][0], p[i][1]) as two lanes each: 128-bit loads and two
/// shuffles, which on the CPUs measured here beat vgatherdpd by a wide margin.
F4_FN void f4_load_xy(const double *p0, const double *p1, const double *p2, const double *p3, f4 *x, f4 *y)
{
    __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p0)), _mm_loadu_pd(p2), 1);
    __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p1)), _mm_loadu_pd(p3), 1);
    *x = _mm256_unpacklo_pd(lo, hi);
    *y = _mm256_unpackhi_pd(lo, hi);
}
/// The inverse of f4_load_xy.
F4_FN void f4_store_xy(double *p0, double *p1, double *p2, double *p3, f4 x, f4 y)
{
    __m256d lo = _mm256_unpacklo_pd(x, y), hi = _mm256_unpackhi_pd(x, y);
    _mm_storeu_pd(p0, _mm256_castpd256_pd128(lo));
    _mm_storeu_pd(p2, _mm256_extractf128_pd(lo, 1));
    _mm_storeu_pd(p1, _mm256_castpd256_pd128(hi));
    _mm_storeu_pd(p3, _mm256_extractf128_pd(hi, 1));
}

#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define F4_AVAILABLE 1
#define F4_TARGET
#define F4_FN static inline

typedef struct f4 { v128_t lo, hi; } f4;

#define F4_BOTH(op, a, b) ((f4){op((a).lo, (b).lo), op((a).hi, (b).hi)})

F4_FN f4 f4_add(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_add, a, b); }
F4_FN f4 f4_sub(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_sub, a, b); }
F4_FN f4 f4_mul(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_mul, a, b); }
F4_FN f4 f4_div(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_div, a, b); }
F4_FN f4 f4_sqrt(f4 a) { return (f4){wasm_f64x2_sqrt(a.lo), wasm_f64x2_sqrt(a.hi)}; }
F4_FN f4 f4_splat(double x) { return (f4){wasm_f64x2_splat(x), wasm_f64x2_splat(x)}; }
F4_FN f4 f4_zero(void) { return f4_splat(0.0); }
F4_FN f4 f4_lanes(double l0, double l1, double l2, double l3)
{
    return (f4){wasm_f64x2_make(l0, l1), wasm_f64x2_make(l2, l3)};
}
F4_FN f4 f4_load(const double *p) { return (f4){wasm_v128_load(p), wasm_v128_load(p + 2)}; }
F4_FN void f4_store(double *p, f4 a)
{
    wasm_v128_store(p, a.lo);
    wasm_v128_store(p + 2, a.hi);
}
F4_FN f4 f4_and(f4 a, f4 b) { return F4_BOTH(wasm_v128_and, a, b); }
F4_FN f4 f4_or(f4 a, f4 b) { return F4_BOTH(wasm_v128_or, a, b); }
F4_FN f4 f4_and_not(f4 mask, f4 b) { return (f4){wasm_v128_andnot(b.lo, mask.lo), wasm_v128_andnot(b.hi, mask.hi)}; }
F4_FN f4 f4_neg(f4 a) { return (f4){wasm_f64x2_neg(a.lo), wasm_f64x2_neg(a.hi)}; }
F4_FN f4 f4_gt(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_gt, a, b); }
F4_FN f4 f4_ge(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_ge, a, b); }
F4_FN f4 f4_lt(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_lt, a, b); }
F4_FN f4 f4_eq(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_eq, a, b); }
F4_FN f4 f4_ne(f4 a, f4 b) { return F4_BOTH(wasm_f64x2_ne, a, b); }
F4_FN f4 f4_ne_ordered(f4 a, f4 b) { return f4_or(f4_lt(a, b), f4_gt(a, b)); }
F4_FN f4 f4_blend(f4 a, f4 b, f4 mask)
{
    return (f4){wasm_v128_bitselect(b.lo, a.lo, mask.lo), wasm_v128_bitselect(b.hi, a.hi, mask.hi)};
}
F4_FN f4 f4_min(f4 a, f4 b) { return f4_blend(b, a, f4_lt(a, b)); }
F4_FN f4 f4_max(f4 a, f4 b) { return f4_blend(b, a, f4_gt(a, b)); }
F4_FN bool f4_any(f4 mask) { return wasm_v128_any_true(wasm_v128_or(mask.lo, mask.hi)); }
F4_FN f4 f4_mask_of(bool l0, bool l1, bool l2, bool l3)
{
    return (f4){wasm_i64x2_make(-(int64_t)l0, -(int64_t)l1), wasm_i64x2_make(-(int64_t)l2, -(int64_t)l3)};
}
F4_FN f4 f4_mask_of_bytes(const uint8_t *b)
{
    uint32_t bytes;
    memcpy(&bytes, b, sizeof bytes);
    v128_t set = wasm_i8x16_ne(wasm_u32x4_make(bytes, 0, 0, 0), wasm_i8x16_splat(0)); // 0xff per set byte
    v128_t wide = wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(set));
    return (f4){wasm_i64x2_extend_low_i32x4(wide), wasm_i64x2_extend_high_i32x4(wide)};
}
F4_FN void f4_load_xy(const double *p0, const double *p1, const double *p2, const double *p3, f4 *x, f4 *y)
{
    v128_t a = wasm_v128_load(p0), b = wasm_v128_load(p1), c = wasm_v128_load(p2), d = wasm_v128_load(p3);
    *x = (f4){wasm_i64x2_shuffle(a, b, 0, 2), wasm_i64x2_shuffle(c, d, 0, 2)};
    *y = (f4){wasm_i64x2_shuffle(a, b, 1, 3), wasm_i64x2_shuffle(c, d, 1, 3)};
}
F4_FN void f4_store_xy(double *p0, double *p1, double *p2, double *p3, f4 x, f4 y)
{
    wasm_v128_store(p0, wasm_i64x2_shuffle(x.lo, y.lo, 0, 2));
    wasm_v128_store(p1, wasm_i64x2_shuffle(x.lo, y.lo, 1, 3));
    wasm_v128_store(p2, wasm_i64x2_shuffle(x.hi, y.hi, 0, 2));
    wasm_v128_store(p3, wasm_i64x2_shuffle(x.hi, y.hi, 1, 3));
}
#undef F4_BOTH
#endif

#endif
