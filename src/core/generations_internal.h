// The generations a world hands out (generations.c): no handle ever names a slot's later object.
#ifndef SB_GENERATIONS_INTERNAL_H
#define SB_GENERATIONS_INTERNAL_H

#include "sb_types.h"

#include <stdbool.h>
#include <stdint.h>

/// The highest generation each slot of one kind ever handed out (generations.c): `count` slots.
typedef struct sb_generations { uint32_t *max; int count; } sb_generations;
/// Covers slots [0, count); false out of memory.
bool generations_reserve(sb_generations *g, int count);
/// A generation for `slot` (reserved) that no handle to it has had: never 0.
uint32_t generations_next(sb_generations *g, int slot);
/// Each slot of `into` keeps the higher of its own and `from`'s; false out of memory.
bool generations_merge(sb_generations *into, const sb_generations *from);
/// `dst` becomes a copy of `src` (its old arrays are not freed); false out of memory.
bool generations_copy(sb_generations *dst, const sb_generations *src);
void generations_free(sb_generations *g);

#endif
