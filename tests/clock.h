// The tests' wall clock: seconds on CLOCK_MONOTONIC, for the time limits they check. A file that
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

#endif
