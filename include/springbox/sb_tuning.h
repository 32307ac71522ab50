// springbox core: the one tuning model. Every conversion between a designer's
// tuning (hertz + damping ratio, Nissen's Cs/Cd, or raw k/c) and what a solver
// needs lives here and nowhere else. Each formula cites its article in docs/references.md.
#ifndef SB_TUNING_H
#define SB_TUNING_H

#include "sb_api.h"

#include "sb_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Hertz tuning: frequency in Hz (0 = rigid) and damping ratio (1 = critical).
SB_API sb_tuning sb_tuning_hertz(double hertz, double damping_ratio);
/// Nissen's coefficients (Nissen's "Developing a rigid, stable spring"): Cs and Cd, fractions of one-step rigidity in [0,1].
SB_API sb_tuning sb_tuning_coefficients(double stiffness, double damping);
/// Raw Hooke constants: k in N/m, c in N s/m.
SB_API sb_tuning sb_tuning_raw(double k, double c);

/// True when the tuning asks for a rigid constraint (hertz mode with hertz 0).
SB_API bool sb_tuning_is_rigid(const sb_tuning *t);
/// Checks ranges and finiteness; on failure sets *bad_field to the offending field name.
SB_API sb_status sb_tuning_check(const sb_tuning *t, const char **bad_field);

/// Reduced mass of a pair, 1/(1/ma + 1/mb), from inverse masses; 0 when both are fixed (Nissen's "Developing a rigid, stable spring").
SB_API double sb_reduced_mass(double inv_mass_a, double inv_mass_b);

/// Spring constant and damper of a non-rigid tuning for a pair of reduced mass m at sub-step h.
/// Hertz: k = m w^2, c = 2 m zeta w (Catto, "use the effective mass to compute the
/// spring-damper coefficients"). Coefficients: k = Cs m / h^2, c = Cd m / h (Nissen's "Developing a rigid, stable spring").
SB_API void sb_tuning_to_kc(const sb_tuning *t, double m, double h, double *k, double *c);

/// Nissen's coefficients for a non-rigid tuning: Cs = k h^2 / m = (w h)^2 and
/// Cd = c h / m = 2 zeta w h, each capped at 1, the one-step limit (Nissen's "Developing a rigid, stable spring").
SB_API void sb_tuning_to_coefficients(const sb_tuning *t, double m, double h, double *cs, double *cd);

/// Catto's softness (Catto's "Soft Constraints"): gamma = 1/(c + h k) and beta = h k/(c + h k),
/// which are ODE's CFM and ERP. gamma is force-level; divide by h for impulses.
SB_API void sb_softness_from_kc(double k, double c, double h, double *beta, double *gamma);

/// Largest stable w*h of a damped spring under symplectic Euler: the step matrix of
/// x'' = -w^2 x - 2 zeta w x' has trace 2 - (wh)^2 - 2 zeta wh and determinant
/// 1 - 2 zeta wh, and the Jury test gives (wh)^2 + 4 zeta wh < 4, so
/// wh < 2 (sqrt(zeta^2 + 1) - zeta). Zero damping gives the familiar wh < 2 (the "Mass spring algorithm" note is
/// "only conditionally stable"; Catto's "Soft Constraints" gives the undamped rule of thumb).
SB_API double sb_symplectic_omega_h_limit(double damping_ratio);

/// Angular frequency and damping ratio seen by a pair of reduced mass m for given k and c.
SB_API void sb_kc_to_omega_zeta(double k, double c, double m, double *omega, double *zeta);
/// The same as a frequency in Hz: the hertz/damping_ratio tuning equivalent to k and c.
SB_API void sb_kc_to_hertz_zeta(double k, double c, double m, double *hertz, double *zeta);

/// A spring's discrete motion over one sub-step: the update of (length error, velocity) of
/// an isolated pair is a 2x2 map with characteristic polynomial z^2 - trace z + det, and its
/// roots (the discrete poles) say everything about the motion: frequency and decay.
typedef struct sb_poles { double trace, det; } sb_poles;

/// Largest damped angle per sub-step a tuning may ask for: omega_d h <= pi/2, four sub-steps
/// per period (Catto's "Soft Constraints": "take at least 4 time steps per period of oscillation").
#define SB_MAX_OMEGA_H 1.5707963267948966

/// The poles a non-rigid tuning asks for at sub-step h, for a pair of reduced mass m: hertz and
/// raw tunings give exp(s h) for the roots s of m x'' + c x' + k x = 0, so that every method
/// can deliver the continuous motion exactly; Nissen's coefficients are discrete already and
/// give the poles of his impulse spring at this step (trace 2 - Cs - Cd, det 1 - Cd; Nissen's "Developing a rigid, stable spring").
/// A frequency past SB_MAX_OMEGA_H is lowered to it (same damping ratio) and *limited is set.
SB_API sb_poles sb_tuning_poles(const sb_tuning *t, double m, double h, bool *limited);
/// The poles of Nissen's impulse spring (Nissen's "Developing a rigid, stable spring") with coefficients Cs and Cd: its map moves
/// (x, h v) by [[1 - Cs, 1 - Cd], [-Cs, 1 - Cd]], trace 2 - Cs - Cd and determinant 1 - Cd. The
/// force method's symplectic Euler step is the same map with Cs = k h^2/m, Cd = c h/m.
SB_API sb_poles sb_nissen_poles(double cs, double cd);
/// Poles of a continuous angular frequency and damping ratio at sub-step h: exp(s h).
SB_API sb_poles sb_poles_from_omega_zeta(double omega, double zeta, double h);
/// The natural frequency (Hz, as hertz tunings give it) and damping ratio that poles give at
/// sub-step h; a root on the negative real axis (no continuous equivalent) reads as Nyquist.
SB_API void sb_poles_to_hertz_zeta(sb_poles p, double h, double *hertz, double *zeta);

/// Nissen's safe coefficient for a naive (non-iterative) spring network: 1/(n+1),
/// n = most springs on either end (Nissen, "Limitations and pitfalls").
SB_API double sb_nissen_safe_coefficient(int springs_on_busiest_end);

/// The static stiffness h^2 k / m of the continuous spring whose motion poles p sample:
/// ln z1 ln z2 (omega^2 h^2 for z = exp((-zeta +- i sqrt(1 - zeta^2)) omega h)). False for a pole
/// at 0 or none inside the unit circle.
SB_API bool sb_poles_static_stiffness(sb_poles p, double *x2);

/// What a tuning asks for as a frequency and damping ratio, at reduced mass m and sub-step h
/// (Nissen's coefficients: the motion they give at that step).
SB_API void sb_tuning_hertz_zeta(const sb_tuning *t, double m, double h, double *hertz, double *zeta);

/// What sampled motion shows: its damped frequency (from the zero crossings) and damping ratio
/// (from the decay of its peaks), and how many of each it had to go on.
typedef struct sb_oscillation {
    double hertz, zeta;
    int crossings, peaks;
} sb_oscillation;
/// Measures n samples x taken every dt seconds about zero (subtract the rest value first);
/// hertz is 0 below three crossings, zeta 0 below two peaks.
SB_API sb_oscillation sb_measure_oscillation(const double *x, int n, double dt);

/// What a release shows where it swings too little to count (a damping ratio near or past 1, a
/// door closer): the natural frequency and damping ratio whose closed-form response from rest
/// fits the samples best, its amplitude and the rest value it settles to, and how much of the
/// motion that fit explains (1 - the squared error over the squared spread about the mean). All
/// 0 below 12 samples or without motion.
typedef struct sb_release {
    double hertz, zeta, amplitude, offset, fit;
} sb_release;
/// Fits n samples x taken every dt seconds, x[0] at the release (at rest there).
SB_API sb_release sb_measure_release(const double *x, int n, double dt);

#ifdef __cplusplus
}
#endif

#endif
