// springbox core: the one tuning model. Every conversion between a designer's
// tuning (hertz + damping ratio, Nissen's Cs/Cd, or raw k/c) and what a solver
// needs lives here and nowhere else. Each formula cites its article in shared/seeds.
#ifndef SB_TUNING_H
#define SB_TUNING_H

#include "sb_types.h"

/// Hertz tuning: frequency in Hz (0 = rigid) and damping ratio (1 = critical).
sb_tuning sb_tuning_hertz(double hertz, double damping_ratio);
/// Nissen's coefficients (seed 002): Cs and Cd, fractions of one-step rigidity in [0,1].
sb_tuning sb_tuning_coefficients(double stiffness, double damping);
/// Raw Hooke constants: k in N/m, c in N s/m.
sb_tuning sb_tuning_raw(double k, double c);

/// True when the tuning asks for a rigid constraint (hertz mode with hertz 0).
bool sb_tuning_is_rigid(const sb_tuning *t);
/// Checks ranges and finiteness; on failure sets *bad_field to the offending field name.
sb_status sb_tuning_check(const sb_tuning *t, const char **bad_field);

/// Reduced mass of a pair, 1/(1/ma + 1/mb), from inverse masses; 0 when both are fixed (seed 002).
double sb_reduced_mass(double inv_mass_a, double inv_mass_b);

/// Spring constant and damper of a non-rigid tuning for a pair of reduced mass m at sub-step h.
/// Hertz: k = m w^2, c = 2 m zeta w (seed 003, "use the effective mass to compute the
/// spring-damper coefficients"). Coefficients: k = Cs m / h^2, c = Cd m / h (seed 002).
void sb_tuning_to_kc(const sb_tuning *t, double m, double h, double *k, double *c);

/// Nissen's coefficients for a non-rigid tuning: Cs = k h^2 / m = (w h)^2 and
/// Cd = c h / m = 2 zeta w h, each capped at 1, the one-step limit (seed 002).
void sb_tuning_to_coefficients(const sb_tuning *t, double m, double h, double *cs, double *cd);

/// Catto's softness (seed 003): gamma = 1/(c + h k) and beta = h k/(c + h k),
/// which are ODE's CFM and ERP. gamma is force-level; divide by h for impulses.
void sb_softness_from_kc(double k, double c, double h, double *beta, double *gamma);

/// Largest stable w*h of a damped spring under symplectic Euler: the step matrix of
/// x'' = -w^2 x - 2 zeta w x' has trace 2 - (wh)^2 - 2 zeta wh and determinant
/// 1 - 2 zeta wh, and the Jury test gives (wh)^2 + 4 zeta wh < 4, so
/// wh < 2 (sqrt(zeta^2 + 1) - zeta). Zero damping gives the familiar wh < 2 (seed 001 is
/// "only conditionally stable"; seed 003 gives the undamped rule of thumb).
double sb_symplectic_omega_h_limit(double damping_ratio);

/// Angular frequency and damping ratio seen by a pair of reduced mass m for given k and c.
void sb_kc_to_omega_zeta(double k, double c, double m, double *omega, double *zeta);
/// The same as a frequency in Hz: the hertz/damping_ratio tuning equivalent to k and c.
void sb_kc_to_hertz_zeta(double k, double c, double m, double *hertz, double *zeta);

/// Nissen's safe coefficient for a naive (non-iterative) spring network: 1/(n+1),
/// n = most springs on either end (seed 002, "Limitations and pitfalls").
double sb_nissen_safe_coefficient(int springs_on_busiest_end);

#endif
