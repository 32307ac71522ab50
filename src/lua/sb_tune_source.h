// Where springbox.tune's numbers are written in a scene's text (sb_tune_source.c).
#ifndef SB_TUNE_SOURCE_H
#define SB_TUNE_SOURCE_H

#include <stddef.h>

/// One tunable's number as written: `name = {<number>, min, max}`.
typedef struct sb_tune_value {
    char name[64];
    size_t offset, length; ///< the numeral (with its minus sign) in the text
} sb_tune_value;

/// Finds the first `tune{...}` or `tune({...})` call in `text` and, for each entry that opens
/// with a numeral, where that numeral is. Returns how many it filled (at most `max`).
int sb_tune_find_values(const char *text, size_t len, sb_tune_value *out, int max);

#endif
