// Reading a frequency and a damping ratio off sampled motion: the one way the tests, the
// benchmark's guarantee table and the window's asked-versus-delivered view measure what a
// spring delivers (sb_tuning.h).
#include "sb_tuning.h"

#include <math.h>
#include <stddef.h>

static const double two_pi = 6.28318530717958647692;

// Frequency from linearly interpolated zero crossings; damping from a least-squares line
// through log(peak) against time, each peak refined by a parabola through three samples.
sb_oscillation sb_measure_oscillation(const double *x, int n, double dt)
{
    sb_oscillation o = {0};
    double first = -1.0, last = -1.0;
    for (int i = 1; i < n; ++i) {
        if ((x[i - 1] < 0.0) != (x[i] < 0.0) && x[i - 1] != x[i]) {
            double t = (i - 1 + x[i - 1] / (x[i - 1] - x[i])) * dt;
            first = first < 0.0 ? t : first;
            last = t;
            o.crossings += 1;
        }
    }
    if (o.crossings >= 3)
        o.hertz = (o.crossings - 1) / (2.0 * (last - first));
    double st = 0, sl = 0, stt = 0, stl = 0;
    for (int i = 1; i + 1 < n; ++i) {
        double a = fabs(x[i - 1]), b = fabs(x[i]), c = fabs(x[i + 1]);
        bool same_sign = (x[i - 1] < 0.0) == (x[i] < 0.0) && (x[i + 1] < 0.0) == (x[i] < 0.0);
        if (b >= a && b > c && same_sign && b > 1e-9) {
            double den = a - 2.0 * b + c, off = den != 0.0 ? 0.5 * (a - c) / den : 0.0;
            double peak = b - 0.25 * (a - c) * off, t = (i + off) * dt;
            st += t;
            sl += log(peak);
            stt += t * t;
            stl += t * log(peak);
            o.peaks += 1;
        }
    }
    if (o.peaks >= 2 && o.hertz > 0.0) {
        double sigma = -(o.peaks * stl - st * sl) / (o.peaks * stt - st * st);
        double wd = two_pi * o.hertz;
        o.zeta = sigma / sqrt(sigma * sigma + wd * wd);
    }
    return o;
}

/// The motion of a spring of natural angular frequency w and damping ratio zeta released from
/// rest at 1, t seconds after: the underdamped, critical and overdamped closed forms.
static double release_response(double w, double zeta, double t)
{
    if (zeta < 1.0 - 1e-6) {
        double wd = w * sqrt(1.0 - zeta * zeta);
        return exp(-zeta * w * t) * (cos(wd * t) + zeta * w / wd * sin(wd * t));
    }
    if (zeta <= 1.0 + 1e-6)
        return exp(-w * t) * (1.0 + w * t);
    double root = w * sqrt(zeta * zeta - 1.0), s1 = -zeta * w + root, s2 = -zeta * w - root;
    return (s2 * exp(s1 * t) - s1 * exp(s2 * t)) / (s2 - s1);
}

/// The squared error of the best A r(t) + C against every `stride`th sample, r the response at
/// (ln w, zeta): A and C are linear, so they come from the 2 x 2 normal equations.
static double release_error(const double *x, int n, double dt, double ln_w, double zeta, int stride, double *amplitude,
                            double *offset)
{
    if (!(zeta > 0.0) || zeta > 50.0)
        return INFINITY;
    double w = exp(ln_w), xr = 0.0, rr = 0.0, xx = 0.0, sr = 0.0, sx = 0.0, m = 0.0;
    for (int i = 0; i < n; i += stride) {
        double r = release_response(w, zeta, i * dt);
        xr += x[i] * r;
        rr += r * r;
        xx += x[i] * x[i];
        sr += r;
        sx += x[i];
        m += 1.0;
    }
    double det = rr * m - sr * sr;
    if (!(det > 0.0))
        return INFINITY;
    double a = (xr * m - sr * sx) / det, c = (rr * sx - sr * xr) / det;
    if (amplitude)
        *amplitude = a;
    if (offset)
        *offset = c;
    return xx - a * xr - c * sx;
}

// A least-squares fit of the release closed form about a rest value: a coarse grid over frequency and damping ratio
// on every third sample, then Nelder and Mead's simplex (the textbook reflect, expand, contract
// and shrink) in (ln w, zeta) on every sample.
sb_release sb_measure_release(const double *x, int n, double dt)
{
    sb_release out = {0};
    double xx = 0.0;
    for (int i = 0; i < n; ++i)
        xx += x[i] * x[i];
    if (n < 12 || !(dt > 0.0) || !(xx > 0.0) || !isfinite(xx))
        return out;
    double best = INFINITY, p[3][2], f[3];
    static const double zetas[] = {0.3, 0.5, 0.7, 0.85, 1.0, 1.3, 1.8, 2.5, 4.0, 7.0};
    for (int i = 0; i < 32; ++i) {
        double ln_w = log(two_pi * 0.05) + i * (log(two_pi * 60.0) - log(two_pi * 0.05)) / 31.0;
        for (int j = 0; j < (int)(sizeof zetas / sizeof zetas[0]); ++j) {
            double e = release_error(x, n, dt, ln_w, zetas[j], 3, NULL, NULL);
            if (e < best) {
                best = e;
                p[0][0] = ln_w;
                p[0][1] = zetas[j];
            }
        }
    }
    p[1][0] = p[0][0] + 0.15;
    p[1][1] = p[0][1];
    p[2][0] = p[0][0];
    p[2][1] = p[0][1] * 1.15;
    for (int k = 0; k < 3; ++k)
        f[k] = release_error(x, n, dt, p[k][0], p[k][1], 1, NULL, NULL);
    for (int iter = 0; iter < 200; ++iter) {
        int hi = 0, lo = 0;
        for (int k = 1; k < 3; ++k) {
            hi = f[k] > f[hi] ? k : hi;
            lo = f[k] < f[lo] ? k : lo;
        }
        if (hi == lo) // all three alike: nothing to move toward
            break;
        int mid = 3 - hi - lo;
        if (fabs(p[hi][0] - p[lo][0]) + fabs(p[hi][1] - p[lo][1]) < 1e-7)
            break;
        double c[2] = {0.5 * (p[lo][0] + p[mid][0]), 0.5 * (p[lo][1] + p[mid][1])};
        double r[2] = {2.0 * c[0] - p[hi][0], 2.0 * c[1] - p[hi][1]};
        double fr = release_error(x, n, dt, r[0], r[1], 1, NULL, NULL);
        if (fr < f[lo]) {
            double e[2] = {3.0 * c[0] - 2.0 * p[hi][0], 3.0 * c[1] - 2.0 * p[hi][1]};
            double fe = release_error(x, n, dt, e[0], e[1], 1, NULL, NULL);
            bool expand = fe < fr;
            p[hi][0] = expand ? e[0] : r[0];
            p[hi][1] = expand ? e[1] : r[1];
            f[hi] = expand ? fe : fr;
        } else if (fr < f[mid]) {
            p[hi][0] = r[0];
            p[hi][1] = r[1];
            f[hi] = fr;
        } else {
            double q[2] = {0.5 * (c[0] + p[hi][0]), 0.5 * (c[1] + p[hi][1])};
            double fq = release_error(x, n, dt, q[0], q[1], 1, NULL, NULL);
            if (fq < f[hi]) {
                p[hi][0] = q[0];
                p[hi][1] = q[1];
                f[hi] = fq;
            } else { // shrink toward the best
                for (int k = 0; k < 3; ++k) {
                    if (k == lo)
                        continue;
                    p[k][0] = 0.5 * (p[k][0] + p[lo][0]);
                    p[k][1] = 0.5 * (p[k][1] + p[lo][1]);
                    f[k] = release_error(x, n, dt, p[k][0], p[k][1], 1, NULL, NULL);
                }
            }
        }
    }
    int lo = f[1] < f[0] ? 1 : 0;
    lo = f[2] < f[lo] ? 2 : lo;
    double amplitude, offset, mean = 0.0, spread = 0.0;
    double error = release_error(x, n, dt, p[lo][0], p[lo][1], 1, &amplitude, &offset);
    for (int i = 0; i < n; ++i)
        mean += x[i] / n;
    for (int i = 0; i < n; ++i)
        spread += (x[i] - mean) * (x[i] - mean);
    out.hertz = exp(p[lo][0]) / two_pi;
    out.zeta = p[lo][1];
    out.fit = spread > 0.0 ? 1.0 - error / spread : 0.0;
    out.amplitude = amplitude;
    out.offset = offset;
    return out;
}
