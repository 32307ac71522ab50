// The tiny test harness shared by the C tests: ENSURE macros, TEST functions, and a
// runner that runs one test by name (as CTest does) or all of them.
#ifndef SB_ENSURE_H
#define SB_ENSURE_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define ENSURE(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: ENSURE failed: %s\n", __FILE__, __LINE__, #cond);    \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define ENSURE_NEAR(a, b, tol)                                                           \
    do {                                                                                 \
        double ensure_a = (a), ensure_b = (b), ensure_t = (tol);                         \
        if (!(fabs(ensure_a - ensure_b) <= ensure_t)) {                                  \
            fprintf(stderr, "%s:%d: ENSURE_NEAR failed: %s = %.17g, %s = %.17g, tol %g\n", \
                    __FILE__, __LINE__, #a, ensure_a, #b, ensure_b, ensure_t);           \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

/// 1 in the sanitizer build (CI's second build: -O1 with AddressSanitizer), where the heaviest
/// sweeps of simulated runs take a part of their cases; the release build takes them all, and
/// what the sanitizers look for (memory errors, undefined behaviour) is in every case alike.
#if defined(__SANITIZE_ADDRESS__)
#define SB_UNDER_SANITIZERS 1
#else
#define SB_UNDER_SANITIZERS 0
#endif

/// Whether case k of a sweep runs: every case in the release build; under the sanitizers, which
/// look for memory errors rather than for the physics' figures, about a third to a half of them,
/// picked by a multiplicative hash of k so that every method and setting still runs.
static inline bool sweep_case_runs(unsigned k) { return !SB_UNDER_SANITIZERS || ((k * 2654435761u) >> 20) % 3 == 0; }

/// A test function; CMake registers every `TEST(name)` line with CTest.
#define TEST(name) static int test_##name(void)

typedef struct test_entry { const char *name; int (*run)(void); } test_entry;
#define ENTRY(name) {#name, test_##name}

/// Runs the test named by argv[1], or all; exit status 0 only if every one ran and passed.
static inline int run_tests(int argc, char **argv, const test_entry *tests, size_t count)
{
    int failed = 0, ran = 0;
    for (size_t i = 0; i < count; ++i) {
        if (argc > 1 && strcmp(argv[1], tests[i].name) != 0)
            continue;
        ran += 1;
        int r = tests[i].run();
        printf("%s %s\n", r ? "FAIL" : "ok  ", tests[i].name);
        failed += r != 0;
    }
    if (ran == 0) {
        fprintf(stderr, "no test named '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    return failed ? 1 : 0;
}

#endif
