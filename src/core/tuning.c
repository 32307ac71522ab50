// The one place where tunings become solver constants. See sb_tuning.h.
#include "sb_trig.h"
#include "sb_tuning.h"

#include <math.h>

static const double two_pi = 6.28318530717958647692;

sb_tuning sb_tuning_hertz(double hertz, double damping_ratio)
{
    sb_tuning t = {0};
    t.mode = SB_TUNE_HERTZ;
    t.hertz = hertz;
    t.damping_ratio = damping_ratio;
    return t;
}

sb_tuning sb_tuning_coefficients(double stiffness, double damping)
{
    sb_tuning t = {0};
    t.mode = SB_TUNE_COEFFICIENTS;
    t.stiffness = stiffness;
    t.damping = damping;
    return t;
}

sb_tuning sb_tuning_raw(double k, double c)
{
    sb_tuning t = {0};
    t.mode = SB_TUNE_RAW;
    t.k = k;
    t.c = c;
    return t;
}

bool sb_tuning_is_rigid(const sb_tuning *t)
{
    return t->mode == SB_TUNE_HERTZ && t->hertz == 0.0;
}

static bool bad(double v, double lo, double hi, const char *name, const char **bad_field)
{
    if (isfinite(v) && v >= lo && v <= hi)
        return false;
    if (bad_field)
        *bad_field = name;
    return true;
}

sb_status sb_tuning_check(const sb_tuning *t, const char **bad_field)
{
    switch (t->mode) {
    case SB_TUNE_HERTZ:
        if (bad(t->hertz, 0.0, 1e9, "hertz", bad_field) ||
            bad(t->damping_ratio, 0.0, 1e9, "damping_ratio", bad_field))
            return SB_ERR_INVALID;
        return SB_OK;
    case SB_TUNE_COEFFICIENTS:
        // Nissen: above 1 the spring overshoots and gets less stable, so [0,1] (Nissen's "Developing a rigid, stable spring").
        if (bad(t->stiffness, 0.0, 1.0, "stiffness", bad_field) ||
            bad(t->damping, 0.0, 1.0, "damping", bad_field))
            return SB_ERR_INVALID;
        return SB_OK;
    case SB_TUNE_RAW:
        if (bad(t->k, 0.0, 1e300, "k", bad_field) || bad(t->c, 0.0, 1e300, "c", bad_field))
            return SB_ERR_INVALID;
        return SB_OK;
    }
    if (bad_field)
        *bad_field = "mode";
    return SB_ERR_INVALID;
}

double sb_reduced_mass(double inv_mass_a, double inv_mass_b)
{
    double w = inv_mass_a + inv_mass_b;
    return w > 0.0 ? 1.0 / w : 0.0;
}

void sb_tuning_to_kc(const sb_tuning *t, double m, double h, double *k, double *c)
{
    switch (t->mode) {
    case SB_TUNE_HERTZ: {
        double omega = two_pi * t->hertz;
        *k = m * omega * omega;
        *c = 2.0 * m * t->damping_ratio * omega;
        return;
    }
    case SB_TUNE_COEFFICIENTS:
        *k = t->stiffness * m / (h * h);
        *c = t->damping * m / h;
        return;
    case SB_TUNE_RAW:
        *k = t->k;
        *c = t->c;
        return;
    }
    *k = *c = 0.0;
}

void sb_tuning_to_coefficients(const sb_tuning *t, double m, double h, double *cs, double *cd)
{
    if (t->mode == SB_TUNE_COEFFICIENTS) {
        *cs = t->stiffness;
        *cd = t->damping;
        return;
    }
    if (m <= 0.0) {
        *cs = *cd = 0.0;
        return;
    }
    double k, c;
    sb_tuning_to_kc(t, m, h, &k, &c);
    double s = k * h * h / m, d = c * h / m;
    *cs = s < 1.0 ? s : 1.0;
    *cd = d < 1.0 ? d : 1.0;
}

void sb_softness_from_kc(double k, double c, double h, double *beta, double *gamma)
{
    double denom = c + h * k;
    if (denom <= 0.0) {
        // No spring and no damper: the constraint applies nothing.
        *beta = 0.0;
        *gamma = INFINITY;
        return;
    }
    *gamma = 1.0 / denom;
    *beta = h * k / denom;
}

double sb_symplectic_omega_h_limit(double damping_ratio)
{
    double z = damping_ratio;
    return 2.0 * (sqrt(z * z + 1.0) - z);
}

void sb_kc_to_omega_zeta(double k, double c, double m, double *omega, double *zeta)
{
    if (m <= 0.0 || k <= 0.0) {
        *omega = 0.0;
        *zeta = 0.0;
        return;
    }
    *omega = sqrt(k / m);
    *zeta = c / (2.0 * m * *omega);
}

void sb_kc_to_hertz_zeta(double k, double c, double m, double *hertz, double *zeta)
{
    double omega;
    sb_kc_to_omega_zeta(k, c, m, &omega, zeta);
    *hertz = omega / two_pi;
}

double sb_nissen_safe_coefficient(int springs_on_busiest_end)
{
    int n = springs_on_busiest_end < 1 ? 1 : springs_on_busiest_end;
    return 1.0 / (n + 1);
}

sb_poles sb_poles_from_omega_zeta(double omega, double zeta, double h)
{
    sb_poles p;
    double x = omega * h;
    if (zeta < 1.0) { // s = -zeta w +- i w sqrt(1 - zeta^2)
        double r = exp(-zeta * x);
        p.trace = 2.0 * r * sb_cos(x * sqrt(1.0 - zeta * zeta));
        p.det = r * r;
    } else { // two real roots s = -w (zeta -+ sqrt(zeta^2 - 1)); their product is exp(-2 zeta w h)
        double q = sqrt(zeta * zeta - 1.0);
        p.trace = exp(-(zeta - q) * x) + exp(-(zeta + q) * x);
        p.det = exp(-2.0 * zeta * x);
    }
    return p;
}

sb_poles sb_nissen_poles(double cs, double cd)
{
    sb_poles p = {2.0 - cs - cd, 1.0 - cd};
    return p;
}

sb_poles sb_tuning_poles(const sb_tuning *t, double m, double h, bool *limited)
{
    *limited = false;
    if (t->mode == SB_TUNE_COEFFICIENTS)
        return sb_nissen_poles(t->stiffness, t->damping);
    double omega, zeta;
    if (t->mode == SB_TUNE_HERTZ) {
        omega = two_pi * t->hertz;
        zeta = t->damping_ratio;
    } else {
        sb_kc_to_omega_zeta(t->k, t->c, m, &omega, &zeta);
        if (omega == 0.0) { // a damper alone, or nothing: x' = v, v' = exp(-c h / m) v
            sb_poles p = {1.0 + (m > 0.0 ? exp(-t->c * h / m) : 1.0), m > 0.0 ? exp(-t->c * h / m) : 1.0};
            return p;
        }
    }
    if (zeta < 1.0 && omega * h * sqrt(1.0 - zeta * zeta) > SB_MAX_OMEGA_H) {
        omega = SB_MAX_OMEGA_H / (h * sqrt(1.0 - zeta * zeta));
        *limited = true;
    }
    return sb_poles_from_omega_zeta(omega, zeta, h);
}

void sb_poles_to_hertz_zeta(sb_poles p, double h, double *hertz, double *zeta)
{
    double disc = p.trace * p.trace - 4.0 * p.det;
    if (p.det <= 0.0) { // a root at or past zero: deadbeat or flipping each step
        *hertz = p.trace < 0.0 ? 0.5 / h : 0.0;
        *zeta = 1.0;
        return;
    }
    if (disc < 0.0) { // complex pair r e^(+-i theta)
        double r = sqrt(p.det), theta = sb_acos(p.trace / (2.0 * r));
        double sigma = -log(r) / h, wd = theta / h, w = sqrt(sigma * sigma + wd * wd);
        *hertz = w / two_pi;
        *zeta = sigma / w;
        return;
    }
    double sq = sqrt(disc), z1 = 0.5 * (p.trace + sq), z2 = 0.5 * (p.trace - sq);
    if (z2 <= 0.0) { // a negative real root has no continuous counterpart: it flips every sub-step
        *hertz = 0.5 / h;
        *zeta = z2 < 0.0 ? -log(-z2) / two_pi : 1.0;
        return;
    }
    // over- or critically damped: s1 s2 = w^2 and s1 + s2 = -2 zeta w
    double s1 = log(z1) / h, s2 = log(z2) / h;
    double w = sqrt(s1 * s2);
    *hertz = w / two_pi;
    *zeta = w > 0.0 ? -(s1 + s2) / (2.0 * w) : 1.0;
}

void sb_tuning_hertz_zeta(const sb_tuning *t, double m, double h, double *hertz, double *zeta)
{
    if (t->mode == SB_TUNE_HERTZ) {
        *hertz = t->hertz;
        *zeta = t->damping_ratio;
    } else if (t->mode == SB_TUNE_RAW) {
        sb_kc_to_hertz_zeta(t->k, t->c, m, hertz, zeta);
    } else { // Nissen's coefficients are discrete: the motion they give at this step
        sb_poles_to_hertz_zeta(sb_nissen_poles(t->stiffness, t->damping), h, hertz, zeta);
    }
}

bool sb_poles_static_stiffness(sb_poles p, double *x2)
{
    double det = p.det, disc = p.trace * p.trace - 4.0 * det;
    if (det <= 0.0 || det >= 1.0)
        return false; // a pole at 0 (Nissen's Cd = 1) or no decay: no continuous spring samples to this
    if (disc < 0.0) { // under-damped: ln z = ln r +- i theta
        double r = sqrt(det), theta = sb_acos(p.trace / (2.0 * r));
        *x2 = log(r) * log(r) + theta * theta;
        return true;
    }
    double z1 = 0.5 * (p.trace + sqrt(disc)), z2 = det / z1;
    if (z1 <= 0.0 || z1 >= 1.0 || z2 <= 0.0)
        return false; // not a spring's decay
    *x2 = log(z1) * log(z2);
    return true;
}
