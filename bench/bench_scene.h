// The benchmark's neutral scene description and the interface every engine implements.
// Each engine builds the same scene from this, steps it, and reports positions and
// velocities; the benchmark computes every quality figure the same way from those.
#ifndef BENCH_SCENE_H
#define BENCH_SCENE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_particle { double x, y, mass, radius; int fixed; } bench_particle;
typedef struct bench_link { int a, b; double length; } bench_link;

typedef struct bench_scene {
    char name[32];
    int np, nl;
    bench_particle *particles;
    bench_link *links;       // rigid distance constraints
    int collisions;          // circles collide with each other and with the box
    double box_width, box_height; // the box [0, width] x [0, height] when collisions are on
    int open_top;            // the box is a U of three walls: floor and sides, no lid
    int no_box;              // collisions between circles only: nothing to land on
    const char *left_out;    // an engine not run on this scene (one that takes minutes on it), or NULL
    int group;               // every circle's collision group (Box2D's rule): 0 none, -1 never with each other
    int measure;             // quality: 0 the default, BENCH_SINK the last particle's drop, BENCH_BELOW_NET the last particle's height
    double dt;               // 1/60
    double gravity;          // -10
    double friction;         // every shape's, 0.3
} bench_scene;

enum { BENCH_SINK = 1, BENCH_BELOW_NET = 2 };

typedef struct bench_engine {
    const char *name;
    const char *settings;
    void *(*create)(const bench_scene *scene);
    void (*step)(void *world);
    /// xy and vxy hold 2 * np doubles, in the scene's particle order.
    void (*state)(void *world, double *xy, double *vxy);
    void (*destroy)(void *world);
} bench_engine;

#ifdef BENCH_HAVE_CHIPMUNK
extern const bench_engine bench_chipmunk;
#endif
#ifdef BENCH_HAVE_BOX2D
extern const bench_engine bench_box2d;
#endif
#ifdef BENCH_HAVE_BOX2D_V3
/// Box2D v3 built from source (cmake -DSPRINGBOX_BOX2D_V3=DIR): one worker, and two.
extern const bench_engine bench_box2d_v3, bench_box2d_v3_2;
#endif

#ifdef __cplusplus
}
#endif
#endif
