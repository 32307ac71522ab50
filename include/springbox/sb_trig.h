// springbox's own trigonometry: the same bits on every machine and in the browser, where the C
// libraries' sin, cos and atan2 differ in their last bits (glibc against musl in emscripten).
#pragma once

#include "sb_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/// sin(x), within an ulp or two of the true value for |x| up to 1.6e6; past it the argument is
/// reduced by a double's 2 pi, the same bits everywhere but no longer as close.
SB_API double sb_sin(double x);
/// cos(x), as sb_sin.
SB_API double sb_cos(double x);
/// tan(x) = sin(x) / cos(x), one reduction for both.
SB_API double sb_tan(double x);
/// atan(x) in [-pi/2, pi/2].
SB_API double sb_atan(double x);
/// atan2(y, x) in [-pi, pi], with C's answers for zeros, infinities and NaNs.
SB_API double sb_atan2(double y, double x);
/// asin(x) for x in [-1, 1], NaN outside.
SB_API double sb_asin(double x);
/// acos(x) for x in [-1, 1], NaN outside.
SB_API double sb_acos(double x);

#ifdef __cplusplus
}
#endif
