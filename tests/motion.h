// Measuring motion from samples, shared by tests/physics_tests.c and bench/bench.c (the README's
// table of what each method guarantees): one way to read a frequency and a damping ratio.
#ifndef SB_MOTION_H
#define SB_MOTION_H

#include "sb_tuning.h"

#include <math.h>
#include <stdbool.h>

static const double two_pi = 6.28318530717958647692;

/// The core's measurement (src/core/oscillation.c), under the names the tests use.
typedef sb_oscillation oscillation;
static inline oscillation measure(const double *x, int n, double dt) { return sb_measure_oscillation(x, n, dt); }

#endif
