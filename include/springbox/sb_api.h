// springbox core: SB_API, the mark every function of the public headers carries. It exports the
// function from a shared build (the Lua module, a program's plugin) where everything else is hidden.
#ifndef SB_API_H
#define SB_API_H

#if defined(_WIN32) && defined(SB_SHARED_BUILD)
#define SB_API __declspec(dllexport)
#elif defined(_WIN32) && defined(SB_SHARED)
#define SB_API __declspec(dllimport)
#elif defined(__GNUC__) || defined(__clang__)
#define SB_API __attribute__((visibility("default")))
#else
#define SB_API
#endif

#endif
