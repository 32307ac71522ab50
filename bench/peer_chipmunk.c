// Chipmunk 7 (Debian's libchipmunk-dev) building the benchmark scenes: pin joints for rigid
// links, circle and segment shapes for the ball pit, 10 iterations, sleeping off (its
// default). Particles do not rotate (infinite moment), like springbox's.
#include "bench_scene.h"

#include <chipmunk/chipmunk.h>
#include <math.h>
#include <stdlib.h>

typedef struct cm_world { cpSpace *space; cpBody **bodies; int n; double dt; } cm_world;

static void *cm_create(const bench_scene *s)
{
    cm_world *w = calloc(1, sizeof *w);
    w->space = cpSpaceNew();
    w->dt = s->dt;
    w->n = s->np;
    cpSpaceSetIterations(w->space, 10);
    cpSpaceSetGravity(w->space, cpv(0, s->gravity));
    w->bodies = calloc((size_t)s->np, sizeof *w->bodies);
    for (int i = 0; i < s->np; ++i) {
        const bench_particle *p = &s->particles[i];
        cpBody *b = p->fixed ? cpBodyNewStatic() : cpBodyNew(p->mass, INFINITY);
        cpBodySetPosition(b, cpv(p->x, p->y));
        cpSpaceAddBody(w->space, b);
        w->bodies[i] = b;
        if (s->collisions) {
            cpShape *c = cpSpaceAddShape(w->space, cpCircleShapeNew(b, p->radius, cpvzero));
            cpShapeSetFriction(c, s->friction);
            if (s->group < 0) // one group: Chipmunk's shapes of a group never collide with each other
                cpShapeSetFilter(c, cpShapeFilterNew(1, CP_ALL_CATEGORIES, CP_ALL_CATEGORIES));
        }
    }
    for (int k = 0; k < s->nl; ++k) {
        const bench_link *l = &s->links[k];
        cpConstraint *pin = cpSpaceAddConstraint(w->space, cpPinJointNew(w->bodies[l->a], w->bodies[l->b], cpvzero, cpvzero));
        cpConstraintSetCollideBodies(pin, cpFalse); // joined beads do not collide, as in every engine here
    }
    if (s->collisions && !s->no_box) {
        cpBody *ground = cpSpaceGetStaticBody(w->space);
        cpVect c[4] = {cpv(0, 0), cpv(s->box_width, 0), cpv(s->box_width, s->box_height), cpv(0, s->box_height)};
        for (int k = 0; k < 4; ++k) {
            if (s->open_top && k == 2)
                continue; // the lid
            cpShape *seg = cpSpaceAddShape(w->space, cpSegmentShapeNew(ground, c[k], c[(k + 1) % 4], 0.0));
            cpShapeSetFriction(seg, s->friction);
        }
    }
    return w;
}

static void cm_step(void *world)
{
    cm_world *w = world;
    cpSpaceStep(w->space, w->dt);
}

static void cm_state(void *world, double *xy, double *vxy)
{
    cm_world *w = world;
    for (int i = 0; i < w->n; ++i) {
        cpVect p = cpBodyGetPosition(w->bodies[i]), v = cpBodyGetVelocity(w->bodies[i]);
        xy[2 * i] = p.x;
        xy[2 * i + 1] = p.y;
        vxy[2 * i] = v.x;
        vxy[2 * i + 1] = v.y;
    }
}

typedef struct collected { void **items; int n, cap; } collected;

static void collect(void *obj, void *data)
{
    collected *c = data;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->items = realloc(c->items, sizeof *c->items * (size_t)c->cap);
    }
    c->items[c->n++] = obj;
}

// cpSpaceFree frees the space only: its shapes, constraints and bodies are freed here.
static void cm_destroy(void *world)
{
    cm_world *w = world;
    collected shapes = {0}, joints = {0}, bodies = {0};
    cpSpaceEachShape(w->space, (cpSpaceShapeIteratorFunc)collect, &shapes);
    cpSpaceEachConstraint(w->space, (cpSpaceConstraintIteratorFunc)collect, &joints);
    cpSpaceEachBody(w->space, (cpSpaceBodyIteratorFunc)collect, &bodies);
    for (int i = 0; i < shapes.n; ++i) {
        cpSpaceRemoveShape(w->space, shapes.items[i]);
        cpShapeFree(shapes.items[i]);
    }
    for (int i = 0; i < joints.n; ++i) {
        cpSpaceRemoveConstraint(w->space, joints.items[i]);
        cpConstraintFree(joints.items[i]);
    }
    for (int i = 0; i < bodies.n; ++i) {
        cpSpaceRemoveBody(w->space, bodies.items[i]);
        cpBodyFree(bodies.items[i]);
    }
    cpSpaceFree(w->space);
    free(shapes.items);
    free(joints.items);
    free(bodies.items);
    free(w->bodies);
    free(w);
}

const bench_engine bench_chipmunk = {"Chipmunk 7", "10 iterations", cm_create, cm_step, cm_state, cm_destroy};
