// The tests' clocks: wall seconds on CLOCK_MONOTONIC, for the time limits they check, and the
// thread's CPU seconds, for what those limits cost. A file that
// includes it asks for POSIX first (_DEFAULT_SOURCE or _POSIX_C_SOURCE): clock_gettime is POSIX.
#ifndef SB_TEST_CLOCK_H
#define SB_TEST_CLOCK_H

#include <time.h>

/// Seconds since an arbitrary moment, never going back.
static inline double test_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/// Seconds of CPU the calling thread has used: what a limit's overshoot costs, whatever else the
/// machine is doing (a wall-clock bound on the same work fails on a machine kept busy).
static inline double test_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
