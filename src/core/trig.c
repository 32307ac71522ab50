// springbox's own sine, cosine and arc tangent, from +, -, *, / and sqrt alone, which IEEE 754
// rounds the same everywhere (with -ffp-contract=off). The C libraries do not agree in the last
// bit (glibc's sin is not musl's), so a scene placing particles with math.sin, or an angle
// constraint measuring with atan2, drifted apart between the desktop and the browser. Box2D v3
// has its own cosine, sine and atan2 for the same reason (math_functions.c), in float and to
// about 1e-4; these are in double and to an ulp or two.
//
// sin and cos: x = k pi/2 + r with |r| <= pi/4, pi/2 split in three parts (33, 33 and 53 bits:
// k times each of the first two is exact for |k| < 2^20, Cody and Waite's reduction), then the
// Taylor series of sin r and cos r to the terms under half an ulp (r^19/19! and r^20/20!).
// atan: reduced to [0, 1] by atan x = pi/2 - atan(1/x), to |u| <= tan(pi/8) by
// atan t = pi/4 + atan((t - 1)/(t + 1)), then its series u - u^3/3 + u^5/5 - ... to the terms
// under half an ulp (tan(pi/8)^49 / 49).
#include "sb_trig.h"

#include <math.h>

static const double two_over_pi = 0x1.45f306dc9c883p-1;
static const double pio2_1 = 0x1.921fb54400000p+0;  // the first 33 bits of pi/2
static const double pio2_2 = 0x1.0b4611a600000p-34; // the next 33
static const double pio2_3 = 0x1.3198a2e037073p-69; // the next 53
static const double pio2_hi = 0x1.921fb54442d18p+0, pio2_lo = 0x1.1a62633145c07p-54; // pi/2, hi + lo
static const double pio4_hi = 0x1.921fb54442d18p-1, pio4_lo = 0x1.1a62633145c07p-55; // pi/4
static const double pi_hi = 0x1.921fb54442d18p+1, pi_lo = 0x1.1a62633145c07p-53;     // pi
static const double two_pi = 0x1.921fb54442d18p+2;
static const double reduction_most = 1647099.0; // 2^20 pi/2: k pio2_1 and k pio2_2 stay exact

/// (-1)^n / (2n+1)! for n = 9 down to 1, and (-1)^n / (2n)! for n = 10 down to 2: the series'
/// coefficients, smallest first for Horner's rule.
static const double sin_terms[] = {-1.0 / 121645100408832000.0, 1.0 / 355687428096000.0, -1.0 / 1307674368000.0,
                                   1.0 / 6227020800.0,          -1.0 / 39916800.0,      1.0 / 362880.0,
                                   -1.0 / 5040.0,               1.0 / 120.0,            -1.0 / 6.0};
static const double cos_terms[] = {1.0 / 2432902008176640000.0, -1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
                                   -1.0 / 87178291200.0,        1.0 / 479001600.0,         -1.0 / 3628800.0,
                                   1.0 / 40320.0,               -1.0 / 720.0,              1.0 / 24.0};

/// Horner's rule in z over n coefficients, highest power first.
static double horner(const double *c, int n, double z)
{
    double p = c[0];
    for (int i = 1; i < n; ++i)
        p = c[i] + z * p;
    return p;
}

/// sin r and cos r for |r| <= pi/4 (a bit past is fine): Taylor series in r^2.
static void sin_cos_small(double r, double *s, double *c)
{
    const double z = r * r;
    *s = r + r * z * horner(sin_terms, 9, z);
    *c = (1.0 - 0.5 * z) + z * z * horner(cos_terms, 9, z);
}

/// sin x and cos x together.
static void sin_cos(double x, double *s, double *c)
{
    if (!isfinite(x)) {
        *s = *c = x - x; // NaN for an infinity or a NaN
        return;
    }
    if (fabs(x) > reduction_most)
        x = fmod(x, two_pi); // exact, though 2 pi is a double's
    const double k = nearbyint(x * two_over_pi);
    const double r = ((x - k * pio2_1) - k * pio2_2) - k * pio2_3;
    double rs, rc;
    sin_cos_small(r, &rs, &rc);
    switch ((int)fmod(k, 4.0) & 3) { // fmod keeps the sign: -1 & 3 is 3, the quadrant below 0
    case 0: *s = rs; *c = rc; break;
    case 1: *s = rc; *c = -rs; break;
    case 2: *s = -rs; *c = -rc; break;
    default: *s = -rc; *c = rs; break;
    }
}

double sb_sin(double x)
{
    if (x == 0.0)
        return x; // keeps the sign of a zero
    double s, c;
    sin_cos(x, &s, &c);
    return s;
}

double sb_cos(double x)
{
    double s, c;
    sin_cos(x, &s, &c);
    return c;
}

double sb_tan(double x)
{
    if (x == 0.0)
        return x;
    double s, c;
    sin_cos(x, &s, &c);
    return s / c;
}

/// atan u for |u| <= tan(pi/8): its series to the terms under half an ulp.
static double atan_small(double u)
{
    const double z = u * u;
    double p = 0.0;
    for (int n = 24; n >= 1; --n) // u^(2n+1) / (2n+1) with alternating signs, from the smallest
        p = ((n & 1) ? -1.0 : 1.0) / (double)(2 * n + 1) + z * p;
    return u + u * z * p;
}

/// atan t for 0 <= t <= 1.
static double atan_unit(double t)
{
    if (t <= 0.41421356237309503) // tan(pi/8)
        return atan_small(t);
    return pio4_hi + (atan_small((t - 1.0) / (t + 1.0)) + pio4_lo);
}

double sb_atan(double x)
{
    if (isnan(x))
        return x;
    const double t = fabs(x);
    const double a = t <= 1.0 ? atan_unit(t) : pio2_hi - (atan_unit(1.0 / t) - pio2_lo);
    return copysign(a, x);
}

double sb_atan2(double y, double x)
{
    if (isnan(x) || isnan(y))
        return x + y;
    if (isinf(x) && isinf(y))
        return copysign(x > 0.0 ? pio4_hi : 3.0 * pio4_hi, y);
    if (isinf(x))
        return x > 0.0 ? copysign(0.0, y) : copysign(pi_hi, y);
    if (isinf(y) || (x == 0.0 && y != 0.0))
        return copysign(pio2_hi, y);
    if (y == 0.0)
        return signbit(x) ? copysign(pi_hi, y) : y;
    const double ax = fabs(x), ay = fabs(y);
    double a = ay <= ax ? atan_unit(ay / ax) : pio2_hi - (atan_unit(ax / ay) - pio2_lo);
    if (x < 0.0)
        a = pi_hi - (a - pi_lo);
    return copysign(a, y);
}

double sb_asin(double x)
{
    if (!(fabs(x) <= 1.0))
        return (x - x) / (x - x); // NaN
    return sb_atan2(x, sqrt((1.0 - x) * (1.0 + x)));
}

double sb_acos(double x)
{
    if (!(fabs(x) <= 1.0))
        return (x - x) / (x - x);
    return sb_atan2(sqrt((1.0 - x) * (1.0 + x)), x);
}
