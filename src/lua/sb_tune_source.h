// Where springbox.tune's entries are written in a scene's text (sb_tune_source.c): the order of
// the sliders, and the numbers W writes.
#ifndef SB_TUNE_SOURCE_H
#define SB_TUNE_SOURCE_H

#include <stddef.h>

/// One entry of a tune{} constructor: `name = ...` or `["name"] = ...`, and, when its value is
/// `{<number>, min, max}` with the number alone (followed by `,`, `;` or `}`), where that number
/// is written (value_length 0 otherwise).
typedef struct sb_tune_entry {
    size_t name_offset, name_length;
    size_t value_offset, value_length; ///< the numeral, with its minus sign
} sb_tune_entry;

/// Finds the first `tune{...}` or `tune({...})` call in `text` and fills `out` with its entries in
/// the order they are written; returns how many (at most `max`).
int sb_tune_find_entries(const char *text, size_t len, sb_tune_entry *out, int max);

/// The offset in `text` where its line `line` (1 for the first) starts, or `len` past the end.
size_t sb_text_line_start(const char *text, size_t len, long line);

#endif
