// Box2D v3 (built from source beside the project: cmake -DSPRINGBOX_BOX2D_V3=<its folder>, which
// holds include/ and build/src/libbox2d.a) building the benchmark scenes as its samples would:
// circles that rotate (as springbox's free particles roll; a scene without collisions has
// shapeless bodies that do not turn, as springbox's particles there), rigid distance joints, segments for
// the box, the scene's friction (0.3 unless it says) as every engine here, 4 sub-steps (its default), sleeping and continuous
// collision off as for the other peers. One engine runs on one worker (Box2D's serial path), the
// other on two, with Box2D's own scheduler (workerCount, no task callbacks).
#include "bench_scene.h"

#include <box2d/box2d.h>

#include <math.h>
#include <stdlib.h>

typedef struct b3_bench_world {
    b2WorldId world;
    b2BodyId *bodies;
    int n;
    float dt;
} b3_bench_world;

static void *b3_create_with(const bench_scene *s, int workers)
{
    b3_bench_world *w = calloc(1, sizeof *w);
    b2WorldDef wd = b2DefaultWorldDef();
    wd.gravity = (b2Vec2){0.0f, (float)s->gravity};
    wd.enableSleep = false;
    wd.enableContinuous = false;
    wd.workerCount = workers;
    w->world = b2CreateWorld(&wd);
    w->dt = (float)s->dt;
    w->n = s->np;
    w->bodies = calloc((size_t)s->np, sizeof *w->bodies);
    for (int i = 0; i < s->np; ++i) {
        const bench_particle *p = &s->particles[i];
        b2BodyDef bd = b2DefaultBodyDef();
        bd.type = p->fixed ? b2_staticBody : b2_dynamicBody;
        bd.position.x = (float)p->x;
        bd.position.y = (float)p->y;
        if (!s->collisions)
            bd.motionLocks.angularZ = true; // a cloth's beads do not turn, as in every engine here
        b2BodyId body = b2CreateBody(w->world, &bd);
        if (s->collisions) {
            b2ShapeDef sd = b2DefaultShapeDef();
            sd.density = (float)(p->mass / (3.14159265358979323846 * p->radius * p->radius));
            sd.material.friction = (float)s->friction;
            sd.filter.groupIndex = s->group;
            b2Circle circle = {{0.0f, 0.0f}, (float)p->radius};
            b2CreateCircleShape(body, &sd, &circle);
        } else if (!p->fixed) {
            // no shape: nothing for the broad phase to visit, the mass set directly
            b2MassData md = {(float)p->mass, {0.0f, 0.0f}, 0.0f};
            b2Body_SetMassData(body, md);
        }
        w->bodies[i] = body;
    }
    for (int k = 0; k < s->nl; ++k) {
        b2DistanceJointDef jd = b2DefaultDistanceJointDef();
        jd.base.bodyIdA = w->bodies[s->links[k].a];
        jd.base.bodyIdB = w->bodies[s->links[k].b];
        jd.base.collideConnected = false;
        jd.length = (float)s->links[k].length;
        jd.enableSpring = false; // rigid
        b2CreateDistanceJoint(w->world, &jd);
    }
    if (s->collisions && !s->no_box) {
        b2BodyDef gd = b2DefaultBodyDef();
        b2BodyId ground = b2CreateBody(w->world, &gd);
        b2ShapeDef sd = b2DefaultShapeDef();
        sd.material.friction = (float)s->friction;
        float bw = (float)s->box_width, bh = (float)s->box_height;
        b2Vec2 c[4] = {{0, 0}, {bw, 0}, {bw, bh}, {0, bh}};
        for (int k = 0; k < 4; ++k) {
            if (s->open_top && k == 2)
                continue; // the lid
            b2Segment seg = {c[k], c[(k + 1) % 4]};
            b2CreateSegmentShape(ground, &sd, &seg);
        }
    }
    return w;
}

static void *b3_create(const bench_scene *s) { return b3_create_with(s, 1); }
static void *b3_create_2(const bench_scene *s) { return b3_create_with(s, 2); }

static void b3_step(void *world)
{
    b3_bench_world *w = world;
    b2World_Step(w->world, w->dt, 4);
}

static void b3_state(void *world, double *xy, double *vxy)
{
    b3_bench_world *w = world;
    for (int i = 0; i < w->n; ++i) {
        b2Pos p = b2Body_GetPosition(w->bodies[i]);
        b2Vec2 v = b2Body_GetLinearVelocity(w->bodies[i]);
        xy[2 * i] = p.x;
        xy[2 * i + 1] = p.y;
        vxy[2 * i] = v.x;
        vxy[2 * i + 1] = v.y;
    }
}

static void b3_destroy(void *world)
{
    b3_bench_world *w = world;
    b2DestroyWorld(w->world);
    free(w->bodies);
    free(w);
}

const bench_engine bench_box2d_v3 = {"Box2D v3", "4 sub-steps, 1 worker", b3_create, b3_step, b3_state, b3_destroy};
const bench_engine bench_box2d_v3_2 = {"Box2D v3, 2 workers", "4 sub-steps, 2 workers", b3_create_2, b3_step,
                                       b3_state, b3_destroy};
