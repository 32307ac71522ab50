// springbox core: built-in scenes registered by name, for the headless runner,
// the tests and the benchmark. Each builds a fresh world from a base definition
// (method, sub-steps, iterations...) and a size where the scene has one.
#ifndef SB_SAMPLES_H
#define SB_SAMPLES_H

#include "sb_api.h"

#include "sb_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A built-in scene.
typedef struct sb_sample {
    const char *name;
    const char *description;
    int default_size;
    int max_size;          ///< the largest size it builds (from 1); a larger one is refused
    /// Builds the scene into a new world made from `base` (its gravity, bounds and
    /// collision flags may be overridden by the scene). NULL if memory is short.
    sb_world *(*build)(const sb_world_def *base, int size);
} sb_sample;

/// All built-in scenes; *count receives their number.
SB_API const sb_sample *sb_samples(int *count);
/// The scene of that name, or NULL.
SB_API const sb_sample *sb_sample_find(const char *name);

/// Deterministic pseudo-random numbers (xorshift64*), so scenes are the same on every run.
typedef struct sb_rng { uint64_t state; } sb_rng;
/// Seeds a generator; any seed, 0 included, is valid.
SB_API sb_rng sb_rng_seed(uint64_t seed);
/// Uniform in [lo, hi).
SB_API double sb_rng_uniform(sb_rng *rng, double lo, double hi);

#ifdef __cplusplus
}
#endif

#endif
