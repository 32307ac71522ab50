// Reading a frequency and a damping ratio off sampled motion: the one way the tests, the
// benchmark's guarantee table and the window's asked-versus-delivered view measure what a
// spring delivers (sb_tuning.h).
#include "sb_tuning.h"

#include <math.h>

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
