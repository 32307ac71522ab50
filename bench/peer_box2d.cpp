// Box2D 2.4.1 (Debian's libbox2d-dev, what LOVE 11 embeds) building the benchmark scenes:
// rigid distance joints (min = max = length, stiffness 0), circles and edges for the ball
// pit, 8 velocity and 3 position iterations, sleeping and continuous collision off.
// Particles have fixed rotation, like springbox's.
#include "bench_scene.h"

#include <box2d/box2d.h>
#include <cmath>
#include <vector>

namespace {

struct b2_bench_world {
    b2World world{b2Vec2(0.0f, -10.0f)};
    std::vector<b2Body *> bodies;
    float dt = 1.0f / 60.0f;
};

void *b2_create(const bench_scene *s)
{
    auto *w = new b2_bench_world;
    w->world.SetGravity(b2Vec2(0.0f, (float)s->gravity));
    w->world.SetAllowSleeping(false);
    w->world.SetContinuousPhysics(false);
    w->dt = (float)s->dt;
    w->bodies.resize((size_t)s->np);
    for (int i = 0; i < s->np; ++i) {
        const bench_particle &p = s->particles[i];
        b2BodyDef def;
        def.type = p.fixed ? b2_staticBody : b2_dynamicBody;
        def.position.Set((float)p.x, (float)p.y);
        def.fixedRotation = true;
        b2Body *b = w->world.CreateBody(&def);
        if (s->collisions) {
            b2CircleShape circle;
            circle.m_radius = (float)p.radius;
            b2FixtureDef fd;
            fd.shape = &circle;
            fd.density = (float)(p.mass / (M_PI * p.radius * p.radius));
            fd.friction = (float)s->friction;
            fd.filter.groupIndex = (int16)s->group;
            b->CreateFixture(&fd);
        } else if (!p.fixed) {
            b2MassData md;
            md.mass = (float)p.mass;
            md.center.SetZero();
            md.I = 0.0f;
            b->SetMassData(&md);
        }
        w->bodies[(size_t)i] = b;
    }
    for (int k = 0; k < s->nl; ++k) {
        const bench_link &l = s->links[k];
        b2DistanceJointDef jd;
        jd.Initialize(w->bodies[(size_t)l.a], w->bodies[(size_t)l.b], w->bodies[(size_t)l.a]->GetPosition(),
                      w->bodies[(size_t)l.b]->GetPosition());
        jd.length = jd.minLength = jd.maxLength = (float)l.length;
        jd.stiffness = 0.0f;
        jd.damping = 0.0f;
        jd.collideConnected = false;
        w->world.CreateJoint(&jd);
    }
    if (s->collisions && !s->no_box) {
        b2BodyDef gd;
        b2Body *ground = w->world.CreateBody(&gd);
        b2Vec2 c[4] = {b2Vec2(0, 0), b2Vec2((float)s->box_width, 0), b2Vec2((float)s->box_width, (float)s->box_height),
                       b2Vec2(0, (float)s->box_height)};
        for (int k = 0; k < 4; ++k) {
            if (s->open_top && k == 2)
                continue; // the lid
            b2EdgeShape edge;
            edge.SetTwoSided(c[k], c[(k + 1) % 4]);
            b2FixtureDef fd;
            fd.shape = &edge;
            fd.friction = (float)s->friction;
            ground->CreateFixture(&fd);
        }
    }
    return w;
}

void b2_step(void *world)
{
    auto *w = static_cast<b2_bench_world *>(world);
    w->world.Step(w->dt, 8, 3);
}

void b2_state(void *world, double *xy, double *vxy)
{
    auto *w = static_cast<b2_bench_world *>(world);
    for (size_t i = 0; i < w->bodies.size(); ++i) {
        b2Vec2 p = w->bodies[i]->GetPosition(), v = w->bodies[i]->GetLinearVelocity();
        xy[2 * i] = p.x;
        xy[2 * i + 1] = p.y;
        vxy[2 * i] = v.x;
        vxy[2 * i + 1] = v.y;
    }
}

void b2_destroy(void *world) { delete static_cast<b2_bench_world *>(world); }

} // namespace

extern "C" const bench_engine bench_box2d = {"Box2D 2.4.1", "8 vel / 3 pos iterations", b2_create, b2_step, b2_state,
                                             b2_destroy};
