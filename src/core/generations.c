// Generations: what tells a handle to a slot from a handle to what filled the slot later. Each
// kind of slot (particles, springs, constraints) keeps the highest generation it ever handed out,
// and a restore brings back a moment's slots with their generations but keeps these, so that what
// is made after a restore never takes a generation a handle already had (Box2D v3's id pool keeps
// revisions for the same reason).
#include "world_internal.h"

#include <stdlib.h>

bool generations_reserve(sb_generations *g, int count)
{
    if (count <= g->count)
        return true;
    int cap = g->count ? g->count : 16;
    while (cap < count)
        cap *= 2;
    uint32_t *max = realloc(g->max, sizeof *max * (size_t)cap);
    if (!max)
        return false;
    for (int i = g->count; i < cap; ++i)
        max[i] = 0;
    g->max = max;
    g->count = cap;
    return true;
}

uint32_t generations_next(sb_generations *g, int slot)
{
    g->max[slot] += 1;
    if (g->max[slot] == 0) // generation 0 is reserved for null handles
        g->max[slot] = 1;
    return g->max[slot];
}

bool generations_merge(sb_generations *into, const sb_generations *from)
{
    if (!generations_reserve(into, from->count))
        return false;
    for (int i = 0; i < from->count; ++i)
        into->max[i] = from->max[i] > into->max[i] ? from->max[i] : into->max[i];
    return true;
}

bool generations_copy(sb_generations *dst, const sb_generations *src)
{
    dst->max = NULL;
    dst->count = 0;
    return generations_merge(dst, src);
}

void generations_free(sb_generations *g)
{
    free(g->max);
    g->max = NULL;
    g->count = 0;
}
