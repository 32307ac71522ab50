// What the core and world tests share: a quiet world (no gravity, no collisions, one sub-step).
#ifndef SB_CORE_HELPERS_H
#define SB_CORE_HELPERS_H

#include "sb_samples.h"
#include "sb_tuning.h"
#include "sb_world.h"
#include "world_internal.h"
#include "ensure.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline sb_world_def quiet_def(sb_method method)
{
    sb_world_def d = sb_default_world_def();
    d.method = method;
    d.gravity = v2(0, 0);
    d.substeps = 1;
    d.collisions = false;
    return d;
}

#endif
