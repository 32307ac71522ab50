// springbox benchmark: the same scenes in springbox (every method) and, when their Debian
// packages are installed, in Box2D 2.4.1 and Chipmunk 7. Runs are interleaved; the table
// reports the median step time over the repeats, ratios against the peers measured in the
// same run, and each scene's quality figure. Writes CSV and, with gnuplot, a plot.
#define _POSIX_C_SOURCE 200809L
#include "bench_internal.h"
#include "motion.h"
#include "sb_pool.h"
#include "sb_samples.h"
#include "sb_tuning.h"
#include "sb_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ---------------------------------------------------------------- scenes


static void scene_alloc(bench_scene *s, const char *name, int np, int nl)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->particles = calloc((size_t)np, sizeof *s->particles);
    s->links = calloc((size_t)(nl > 0 ? nl : 1), sizeof *s->links);
    s->dt = 1.0 / 60.0;
    s->gravity = -10.0;
    s->friction = 0.3;
}

void scene_free(bench_scene *s)
{
    free(s->particles);
    free(s->links);
}

static void add_link(bench_scene *s, int a, int b, double length)
{
    s->links[s->nl++] = (bench_link){a, b, length};
}

/// cloth N: N x N particles of 1 kg spaced 0.1 m, top row fixed, rigid links between
/// horizontal and vertical neighbours, built with a 30% horizontal shear so it swings. The
/// links' lengths are the built distances (vertical ones 0.1044 m), so every engine starts
/// unstretched and any stretch is the solver's.
/// Links between two fixed particles of the top row do nothing and are left out
/// (Chipmunk aborts on a joint between two static bodies).
void make_cloth(bench_scene *s, int n)
{
    char name[32];
    snprintf(name, sizeof name, "cloth %d", n);
    scene_alloc(s, name, n * n, 2 * n * (n - 1) - (n - 1));
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            int i = r * n + c;
            s->particles[i] = (bench_particle){(c + 0.3 * r) * 0.1, -r * 0.1, 1.0, 0.02, r == 0};
            s->np = i + 1;
            if (c > 0 && r > 0)
                add_link(s, i - 1, i, 0.1);
            if (r > 0)
                add_link(s, i - n, i, sqrt(0.1 * 0.1 + 0.03 * 0.03));
        }
    }
}

/// beaded cloth N: cloth N whose beads (radius 0.02 m) collide with every bead they are not
/// joined to; with `group` -1 they are all of one negative group and never collide (Box2D's
/// filter): the shapes are there and every engine's broad phase may skip them.
static void make_beaded_cloth(bench_scene *s, int n, int group)
{
    make_cloth(s, n);
    snprintf(s->name, sizeof s->name, "%s cloth %d", group < 0 ? "grouped" : "beaded", n);
    s->collisions = 1;
    s->no_box = 1;
    s->group = group;
    s->left_out = "Box2D 2.4.1"; // its pair search (b2ContactManager::AddPair) takes minutes a step here
}

/// wrecking ball: 40 links of 0.25 m, first particle fixed, chain horizontal, the last
/// particle a 100 kg ball and the others 1 kg.
static void make_wrecking_ball(bench_scene *s)
{
    scene_alloc(s, "wrecking ball", 41, 40);
    for (int i = 0; i <= 40; ++i) {
        s->particles[i] = (bench_particle){0.25 * i, 0.0, i == 40 ? 100.0 : 1.0, i == 40 ? 0.5 : 0.05, i == 0};
        s->np = i + 1;
        if (i > 0)
            add_link(s, i - 1, i, 0.25);
    }
}

/// ball pit N: circles of radius 0.05 to 0.1 m from a fixed seed, in a 10 m wide box,
/// dropped from a grid and settled for 10 s.
void make_ball_pit(bench_scene *s, int n)
{
    char name[32];
    snprintf(name, sizeof name, "ball pit %d", n);
    scene_alloc(s, name, n, 0);
    s->collisions = 1;
    s->box_width = 10.0;
    int per_row = 49;
    s->box_height = (n / per_row + 1) * 0.21 + 5.0;
    sb_rng rng = sb_rng_seed(2024);
    for (int i = 0; i < n; ++i) {
        double r = sb_rng_uniform(&rng, 0.05, 0.1);
        double x = 0.2 + (i % per_row) * 0.2 + sb_rng_uniform(&rng, -0.004, 0.004);
        double y = 0.15 + (i / per_row) * 0.21;
        s->particles[i] = (bench_particle){x, y, 1.0, r, 0};
        s->np = i + 1;
    }
}

/// walled pile N: the ball pit's circles with a density of 1000 kg/m^2 (8 to 31 kg), poured
/// into a U of three walls 10 m wide (no lid): the heavy pile, where walls leaked.
static void make_walled_pile(bench_scene *s, int n)
{
    make_ball_pit(s, n);
    snprintf(s->name, sizeof s->name, "walled pile %d", n);
    s->open_top = 1;
    for (int i = 0; i < n; ++i)
        s->particles[i].mass = 1000.0 * 3.14159265358979 * s->particles[i].radius * s->particles[i].radius;
}

/// column 20: the stack, 20 balls of radius 0.05 m and 1 kg resting on the floor of a box
/// 1 m wide, each on the one below. Quality: how far the top one sinks in 10 s (mm).
void make_column(bench_scene *s)
{
    scene_alloc(s, "column 20", 20, 0);
    s->collisions = 1;
    s->box_width = 1.0;
    s->box_height = 4.0;
    s->measure = BENCH_SINK;
    for (int i = 0; i < 20; ++i) {
        s->particles[i] = (bench_particle){0.5, 0.05 + 0.1 * i, 1.0, 0.05, 0};
        s->np = i + 1;
    }
}

/// net 1000:1: the heavy ball, 100 kg (radius 0.2 m) dropped from 1 m above a sagging net
/// of 21 beads of 0.1 kg (radius 0.05 m) on 20 rigid links of 0.2 m, its ends fixed 3.6 m apart:
/// the beads start on the circular arc of that length and chord (a quarter turn of radius
/// 8 / pi m, 0.75 m deep); nothing below. Quality: the ball's height against the net's ends after
/// 10 s (a ball that went through keeps falling), and the links' worst stretch during the run.
/// The net sags because a straight chain of rigid links cannot take a load without stretching.
void make_heavy_net(bench_scene *s)
{
    scene_alloc(s, "net 1000:1", 22, 20);
    s->collisions = 1;
    s->no_box = 1;
    s->measure = BENCH_BELOW_NET;
    const double half = 3.14159265358979 / 4.0, radius = 2.0 / half; // arc 4 m, chord 2 R sin(pi / 4) = 3.6 m
    for (int i = 0; i <= 20; ++i) {
        double a = -half + 2.0 * half * i / 20.0;
        s->particles[i] = (bench_particle){radius * sin(a), radius - radius * cos(a) - (radius - radius * cos(half)), 0.1, 0.05, i == 0 || i == 20};
        s->np = i + 1;
        if (i > 0)
            add_link(s, i - 1, i, 0.2);
    }
    const double lowest = s->particles[10].y;
    s->particles[21] = (bench_particle){0.1, lowest + 0.25 + 1.0, 100.0, 0.2, 0};
    s->np = 22;
}

/// chain 30: the chain, 30 rigid links of 0.1 m pinned at one end, released horizontal.
void make_chain(bench_scene *s)
{
    scene_alloc(s, "chain 30", 31, 30);
    for (int i = 0; i <= 30; ++i) {
        s->particles[i] = (bench_particle){0.1 * i, 0.0, 1.0, 0.05, i == 0};
        s->np = i + 1;
        if (i > 0)
            add_link(s, i - 1, i, 0.1);
    }
}


// ---------------------------------------------------------------- springbox as an engine


typedef struct sb_bench_world { sb_world *w; sb_particle_id *ids; int n; } sb_bench_world;

sb_method bench_method;
bool bench_tethers;
bool bench_no_rolling; // particles that do not turn
int bench_threads = 1;  // the world's threads
int bench_substeps; // 0: the default

void *sb_create(const bench_scene *s)
{
    sb_bench_world *b = calloc(1, sizeof *b);
    sb_world_def def = sb_default_world_def(); // the defaults a user gets
    def.method = bench_method;
    def.tethers = bench_tethers;
    def.threads = bench_threads;
    if (bench_substeps > 0)
        def.substeps = bench_substeps;
    def.gravity.x = 0.0;
    def.gravity.y = s->gravity;
    def.dt = s->dt;
    def.collisions = s->collisions != 0;
    def.friction = s->friction;
    if (s->collisions && !s->open_top && !s->no_box) {
        def.has_bounds = true;
        def.bounds = (sb_bounds){0.0, 0.0, s->box_width, s->box_height};
    }
    b->w = sb_world_create(&def);
    if (s->collisions && s->open_top) { // three walls, as a user builds a U with w:wall
        sb_vec2 a = {0.0, s->box_height}, bl = {0.0, 0.0}, br = {s->box_width, 0.0}, c = {s->box_width, s->box_height};
        sb_world_add_wall(b->w, a, bl, NULL);
        sb_world_add_wall(b->w, bl, br, NULL);
        sb_world_add_wall(b->w, br, c, NULL);
    }
    b->n = s->np;
    b->ids = calloc((size_t)s->np, sizeof *b->ids);
    for (int i = 0; i < s->np; ++i) {
        const bench_particle *p = &s->particles[i];
        sb_particle_def d = sb_default_particle_def();
        d.position.x = p->x;
        d.position.y = p->y;
        d.mass = p->mass;
        d.radius = p->radius;
        d.fixed = p->fixed != 0;
        d.group = s->group;
        if (bench_no_rolling)
            d.rolling = SB_ROLLING_OFF;
        b->ids[i] = sb_world_add_particle(b->w, &d, NULL);
    }
    for (int k = 0; k < s->nl; ++k) {
        sb_spring_def d = sb_default_spring_def(); // rigid
        d.a = b->ids[s->links[k].a];
        d.b = b->ids[s->links[k].b];
        d.rest_length = s->links[k].length;
        sb_world_add_spring(b->w, &d, NULL, NULL);
    }
    return b;
}

void sb_step(void *world) { sb_world_step(((sb_bench_world *)world)->w); }

void sb_state(void *world, double *xy, double *vxy)
{
    sb_bench_world *b = world;
    for (int i = 0; i < b->n; ++i) {
        sb_particle_def d;
        sb_particle_get(b->w, b->ids[i], &d);
        xy[2 * i] = d.position.x;
        xy[2 * i + 1] = d.position.y;
        vxy[2 * i] = d.velocity.x;
        vxy[2 * i + 1] = d.velocity.y;
    }
}

void sb_destroy(void *world)
{
    sb_bench_world *b = world;
    sb_world_destroy(b->w);
    free(b->ids);
    free(b);
}


// ---------------------------------------------------------------- measuring


typedef struct result {
    double ms[16];             // mean step time of each repeat
    int runs;
    double median_ms;
    double q[BENCH_QUALITY];   // quality figures, scene-specific
    int iterations;            // constraint iterations per step, for ns/spring/iteration
    const char *engine, *settings;
    char settings_buf[64];
} result;

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double link_stretch(const bench_scene *s, const double *xy, int k)
{
    const bench_link *l = &s->links[k];
    double dx = xy[2 * l->b] - xy[2 * l->a], dy = xy[2 * l->b + 1] - xy[2 * l->a + 1];
    return fabs(sqrt(dx * dx + dy * dy) / l->length - 1.0);
}

// Largest overlap relative to the smaller radius, by sweep and prune on x; with `touching`, also
// how many pairs touch (a gap under 2% of the smaller radius: what a pile rests on).
static double largest_overlap_and_touching(const bench_scene *s, const double *xy, int *touching)
{
    int n = s->np;
    int *order = malloc(sizeof *order * (size_t)n);
    for (int i = 0; i < n; ++i)
        order[i] = i;
    // insertion-friendly: sort indices by x with a simple merge sort
    int *tmp = malloc(sizeof *tmp * (size_t)n);
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = xy[2 * order[i]] <= xy[2 * order[j]] ? order[i++] : order[j++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        int *t = order;
        order = tmp;
        tmp = t;
    }
    double worst = 0.0;
    for (int a = 0; a < n; ++a) {
        int i = order[a];
        for (int b = a + 1; b < n; ++b) {
            int j = order[b];
            if (xy[2 * j] - xy[2 * i] > 0.2)
                break;
            double dx = xy[2 * j] - xy[2 * i], dy = xy[2 * j + 1] - xy[2 * i + 1];
            double overlap = s->particles[i].radius + s->particles[j].radius - sqrt(dx * dx + dy * dy);
            double rel = overlap / fmin(s->particles[i].radius, s->particles[j].radius);
            worst = rel > worst ? rel : worst;
            if (touching && rel > -0.02)
                *touching += 1;
        }
    }
    free(order);
    free(tmp);
    return worst;
}

static double largest_overlap(const bench_scene *s, const double *xy) { return largest_overlap_and_touching(s, xy, NULL); }

// The share of the box's area the circles cover in a band from a fifth to three fifths of the
// pile's height (away from the floor's layer and the surface), counting the circles whose centres
// are in it. Rigid discs of mixed sizes pack at random to about 0.84; hexagonal packing of equal
// discs is the ceiling, pi / (2 sqrt 3) = 0.907. A pile above it stands on circles squeezed into
// each other.
static double packing_fraction(const bench_scene *s, const double *xy)
{
    double top = 0.0;
    for (int i = 0; i < s->np; ++i)
        if (xy[2 * i + 1] >= 0.0 && xy[2 * i + 1] <= s->box_height)
            top = fmax(top, xy[2 * i + 1]);
    double lo = 0.2 * top, hi = 0.6 * top, area = 0.0;
    for (int i = 0; i < s->np; ++i) {
        double x = xy[2 * i], y = xy[2 * i + 1], r = s->particles[i].radius;
        if (y >= lo && y < hi && x >= 0.0 && x <= s->box_width)
            area += 3.14159265358979 * r * r;
    }
    return hi > lo ? area / (s->box_width * (hi - lo)) : 0.0;
}

// Runs one engine on one scene for `steps` steps; times only the step calls.
double run(const bench_engine *e, const bench_scene *s, int steps, double q[BENCH_QUALITY])
{
    void *w = e->create(s);
    double *xy = malloc(sizeof *xy * 2 * (size_t)s->np), *v = malloc(sizeof *v * 2 * (size_t)s->np);
    double total = 0.0, peak = 0.0;
    for (int f = 0; f < steps; ++f) {
        double t0 = now_ms();
        e->step(w);
        total += now_ms() - t0;
        if (s->nl > 0) { // quality during the run: the largest stretch
            e->state(w, xy, v);
            if (s->nl == 40) { // wrecking ball: path stretch, sum of link lengths over rest, minus one
                double path = 0.0, rest = 0.0;
                for (int k = 0; k < s->nl; ++k) {
                    double dx = xy[2 * s->links[k].b] - xy[2 * s->links[k].a];
                    double dy = xy[2 * s->links[k].b + 1] - xy[2 * s->links[k].a + 1];
                    path += sqrt(dx * dx + dy * dy);
                    rest += s->links[k].length;
                }
                double stretch = path / rest - 1.0;
                peak = !(stretch <= peak) ? stretch : peak; // NaN counts as the worst
            } else {
                for (int k = 0; k < s->nl; ++k) {
                    double st = link_stretch(s, xy, k);
                    peak = !(st <= peak) ? st : peak; // NaN counts as the worst
                }
            }
        }
    }
    e->state(w, xy, v);
    if (s->measure == BENCH_SINK) {
        int top = s->np - 1;
        q[0] = 1000.0 * (s->particles[top].y - xy[2 * top + 1]);
        q[1] = largest_overlap(s, xy);
        q[2] = 0.0;
    } else if (s->measure == BENCH_BELOW_NET) {
        int ball = s->np - 1;
        q[0] = xy[2 * ball + 1] - s->particles[0].y;
        q[1] = peak;
        q[2] = 0.0;
    } else if (s->nl == 0) { // a pile
        double ke = 0.0;
        int escaped = 0;
        for (int i = 0; i < s->np; ++i) {
            ke += 0.5 * s->particles[i].mass * (v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1]);
            if (!(xy[2 * i] >= -0.01 && xy[2 * i] <= s->box_width + 0.01 && xy[2 * i + 1] >= -0.01 &&
                  xy[2 * i + 1] <= s->box_height + 0.01))
                escaped += 1;
        }
        // what the pile rests on: touching pairs and circles on the box's floor and sides, per
        // circle (a pile of standing columns has about 1, a pile of rolled balls 2 and
        // more), and the pile's top
        int touching = 0;
        double top = -INFINITY;
        q[0] = ke;
        q[1] = largest_overlap_and_touching(s, xy, &touching);
        q[2] = escaped;
        for (int i = 0; i < s->np; ++i) {
            double x = xy[2 * i], y = xy[2 * i + 1], r = s->particles[i].radius, near = 1.02 * r;
            if (!(x >= -0.01 && x <= s->box_width + 0.01 && y >= -0.01 && y <= s->box_height + 0.01))
                continue;
            touching += (y < near) + (x < near) + (x > s->box_width - near);
            top = fmax(top, y + r);
        }
        q[3] = (double)touching / s->np;
        q[4] = top;
        q[5] = packing_fraction(s, xy);
    } else if (s->nl == 40) {
        q[0] = peak;
        q[1] = q[2] = 0.0;
    } else {
        double max_end = 0.0, sum = 0.0;
        for (int k = 0; k < s->nl; ++k) {
            double st = link_stretch(s, xy, k);
            max_end = !(st <= max_end) ? st : max_end;
            sum += st;
        }
        q[0] = max_end;
        q[1] = sum / s->nl;
        q[2] = peak;
    }
    free(xy);
    free(v);
    e->destroy(w);
    return total / steps;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}


// ---------------------------------------------------------------- what each method guarantees



// ---------------------------------------------------------------- main

/// A scene runs when no --only was given or its name contains one of them.
static bool selected(const char *name, const char *const *only, int count)
{
    for (int i = 0; i < count; ++i)
        if (strstr(name, only[i]))
            return true;
    return count == 0;
}

typedef struct engine_entry {
    bench_engine e;
    sb_method method;
    bool springbox;
    int iterations;
    bool tethers;
    bool no_rolling;
    int threads;
} engine_entry;

static void fmt_quality(char *out, size_t n, const bench_scene *s, const double q[BENCH_QUALITY])
{
    if (s->measure == BENCH_SINK)
        snprintf(out, n, "top sinks %.1f mm, worst overlap %.1f%% of a radius", q[0], 100.0 * q[1]);
    else if (s->measure == BENCH_BELOW_NET)
        snprintf(out, n, "ball ends %.2f m from the net's ends, links stretched %.1f%% at worst", q[0], 100.0 * q[1]);
    else if (s->nl == 0)
        snprintf(out, n, "KE %.3g J, overlap %.1f%%, escaped %d, %.2f contacts a circle, top %.2f m, packing %.3f",
                 q[0], 100.0 * q[1], (int)q[2], q[3], q[4], q[5]);
    else if (s->nl == 40)
        snprintf(out, n, "peak path stretch %.2f%%", 100.0 * q[0]);
    else
        snprintf(out, n, "end max %.2f%% mean %.3f%%, run max %.2f%%", 100.0 * q[0], 100.0 * q[1], 100.0 * q[2]);
}

/// The run as Markdown: a summary row per scene (springbox's default on one thread and on every
/// core, the fastest peer, and the ratio of the two on this run's clock), then every engine's time
/// and quality. bench/table.sh puts it in docs/performance.md.
static void write_markdown(const char *path, const bench_scene *scenes, int scene_count, const char *const *only,
                           int only_count, const engine_entry *engines, int ne, result (*results)[SB_METHOD_COUNT + 7],
                           int repeats)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "springbox_bench: --markdown %s: cannot write it\n", path);
        return;
    }
    int one = -1, many = -1; // springbox's default on one thread, and on every core
    for (int e = 0; e < ne; ++e) {
        if (engines[e].springbox && strstr(engines[e].e.name, "(default)"))
            one = e;
        if (engines[e].springbox && engines[e].threads > 1)
            many = e;
    }
    fprintf(f, "| scene | springbox (default), ms/step | %s | fastest peer, ms/step | springbox / fastest peer |\n",
            many >= 0 ? engines[many].e.name : "more threads");
    fprintf(f, "|---|---|---|---|---|\n");
    for (int sc = 0; sc < scene_count; ++sc) {
        if (!selected(scenes[sc].name, only, only_count))
            continue;
        int peer = -1;
        for (int e = 0; e < ne; ++e)
            if (!engines[e].springbox && results[sc][e].runs > 0 && (peer < 0 || results[sc][e].median_ms < results[sc][peer].median_ms))
                peer = e;
        const double base = one >= 0 ? results[sc][one].median_ms : 0.0;
        char own[32] = "-", threaded[48] = "-", fastest[96] = "-", ratio[32] = "-";
        if (one >= 0)
            snprintf(own, sizeof own, "%.3g", base);
        if (one >= 0 && many >= 0)
            snprintf(threaded, sizeof threaded, "%.3g (%.2fx)", results[sc][many].median_ms, base / results[sc][many].median_ms);
        if (peer >= 0)
            snprintf(fastest, sizeof fastest, "%s %.3g", engines[peer].e.name, results[sc][peer].median_ms);
        if (one >= 0 && peer >= 0)
            snprintf(ratio, sizeof ratio, "%.2fx", base / results[sc][peer].median_ms);
        fprintf(f, "| %s | %s | %s | %s | %s |\n", scenes[sc].name, own, threaded, fastest, ratio);
    }
    fprintf(f, "\n| scene | engine | ms/step | quality |\n|---|---|---|---|\n");
    for (int sc = 0; sc < scene_count; ++sc) {
        if (!selected(scenes[sc].name, only, only_count))
            continue;
        for (int e = 0; e < ne; ++e) {
            if (results[sc][e].runs == 0)
                continue;
            char q[160];
            fmt_quality(q, sizeof q, &scenes[sc], results[sc][e].q);
            fprintf(f, "| %s | %s | %.3g | %s |\n", scenes[sc].name, engines[e].e.name, results[sc][e].median_ms, q);
        }
    }
    fprintf(f, "\nMedians of %d run%s a scene and engine, engines interleaved; %d thread%s on this machine.\n", repeats,
            repeats == 1 ? "" : "s", sb_machine_threads(), sb_machine_threads() == 1 ? "" : "s");
    fclose(f);
}

int main(int argc, char **argv)
{
    int repeats = 3;
    double step_scale = 1.0;
    const char *only_list[8], *engine_list[8];
    int only_count = 0, engine_count = 0;
    const char *csv_path = "bench/results/results.csv", *plot_path = "bench/results/results.png", *markdown_path = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--guarantees") == 0) {
            return guarantees();
        } else if (strcmp(argv[i], "--snapshots") == 0) {
            return snapshots();
        } else if (strcmp(argv[i], "--quick") == 0) {
            repeats = 1;
            step_scale = 0.2;
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
            repeats = atoi(argv[++i]);
            repeats = repeats < 1 ? 1 : repeats > 16 ? 16 : repeats;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc && only_count < 8) {
            only_list[only_count++] = argv[++i]; // several: a scene matching any of them
        } else if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc && engine_count < 8) {
            engine_list[engine_count++] = argv[++i]; // several: an engine matching any of them
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--markdown") == 0 && i + 1 < argc) {
            markdown_path = argv[++i];
        } else if (strcmp(argv[i], "--plot") == 0 && i + 1 < argc) {
            plot_path = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: springbox_bench [--quick] [--repeats N] [--only SUBSTRING]... [--engine SUBSTRING]... [--csv F] [--plot F] [--markdown F]\n"
                    "       springbox_bench --guarantees   (the README's table of what each method guarantees)\n"
                    "       springbox_bench --snapshots    (what a snapshot and a restore cost against a step)\n");
            return 2;
        }
    }

    enum { SCENES = 15 };
    bench_scene scenes[SCENES];
    int steps[SCENES];
    make_cloth(&scenes[0], 32), steps[0] = 300;
    make_cloth(&scenes[1], 64), steps[1] = 300;
    make_cloth(&scenes[2], 128), steps[2] = 300;
    make_cloth(&scenes[3], 256), steps[3] = 120;
    make_wrecking_ball(&scenes[4]), steps[4] = 300;
    make_ball_pit(&scenes[5], 4000), steps[5] = 600;
    make_ball_pit(&scenes[6], 20000), steps[6] = 600;
    make_walled_pile(&scenes[7], 4000), steps[7] = 600;
    make_column(&scenes[8]), steps[8] = 600;
    make_heavy_net(&scenes[9]), steps[9] = 600;
    make_ball_pit(&scenes[10], 16000), steps[10] = 600; // four times the balls: at best four times the time
    make_ball_pit(&scenes[11], 4000), steps[11] = 600;  // every engine builds the same pile
    scenes[11].friction = 0.0;
    snprintf(scenes[11].name, sizeof scenes[11].name, "frictionless pit 4000");
    make_cloth(&scenes[12], 96), steps[12] = 300;
    make_beaded_cloth(&scenes[13], 128, -1), steps[13] = 300;
    make_beaded_cloth(&scenes[14], 128, 0), steps[14] = 300;

    sb_world_def defaults = sb_default_world_def();
    engine_entry engines[SB_METHOD_COUNT + 7];
    int ne = 0;
    static char sb_names[SB_METHOD_COUNT][48], sb_settings[64];
    snprintf(sb_settings, sizeof sb_settings, "%d sub-steps x %d iterations", defaults.substeps, defaults.iterations);
    for (int m = 0; m < SB_METHOD_COUNT; ++m) {
        snprintf(sb_names[m], sizeof sb_names[m], "springbox %s%s", sb_method_name((sb_method)m),
                 m == (int)defaults.method ? " (default)" : "");
        engines[ne++] = (engine_entry){{sb_names[m], sb_settings, sb_create, sb_step, sb_state, sb_destroy},
                                       (sb_method)m, true, defaults.substeps * defaults.iterations, defaults.tethers, false, 1};
    }
    // The default without tethers (tether.c), to show what they buy on each scene.
    engines[ne++] = (engine_entry){{"springbox soft, no tethers", sb_settings, sb_create, sb_step, sb_state, sb_destroy},
                                   defaults.method, true, defaults.substeps * defaults.iterations, false, false, 1};
    // The default with particles that do not turn, to show what rolling changes.
    engines[ne++] = (engine_entry){{"springbox soft, no rolling", sb_settings, sb_create, sb_step, sb_state, sb_destroy},
                                   defaults.method, true, defaults.substeps * defaults.iterations, defaults.tethers, true, 1};
    // The default on every core of the machine, beside the one-thread rows above.
    static char threaded_name[64];
    int cores = sb_machine_threads();
    if (cores > 1) {
        snprintf(threaded_name, sizeof threaded_name, "springbox soft, %d threads", cores);
        engines[ne++] = (engine_entry){{threaded_name, sb_settings, sb_create, sb_step, sb_state, sb_destroy},
                                       defaults.method, true, defaults.substeps * defaults.iterations, defaults.tethers,
                                       false, cores};
    }
    int box2d = -1, chipmunk = -1;
#ifdef BENCH_HAVE_BOX2D
    box2d = ne;
    engines[ne++] = (engine_entry){bench_box2d, SB_METHOD_SOFT, false, 8, false, false, 1};
#endif
#ifdef BENCH_HAVE_BOX2D_V3
    engines[ne++] = (engine_entry){bench_box2d_v3, SB_METHOD_SOFT, false, 4, false, false, 1};
    engines[ne++] = (engine_entry){bench_box2d_v3_2, SB_METHOD_SOFT, false, 4, false, false, 2};
#endif
#ifdef BENCH_HAVE_CHIPMUNK
    chipmunk = ne;
    engines[ne++] = (engine_entry){bench_chipmunk, SB_METHOD_SOFT, false, 10, false, false, 1};
#endif
    if (engine_count > 0) { // only the engines asked for (Box2D 2.4.1 takes ten minutes on the 16000-ball pit)
        int kept = 0, kept_box2d = -1, kept_chipmunk = -1;
        for (int e = 0; e < ne; ++e) {
            if (!selected(engines[e].e.name, engine_list, engine_count))
                continue;
            kept_box2d = e == box2d ? kept : kept_box2d;
            kept_chipmunk = e == chipmunk ? kept : kept_chipmunk;
            engines[kept++] = engines[e];
        }
        ne = kept;
        box2d = kept_box2d;
        chipmunk = kept_chipmunk;
    } else if (box2d < 0 || chipmunk < 0)
        fprintf(stderr, "note: built without %s%s%s: install libbox2d-dev and libchipmunk-dev and rebuild to compare\n",
                box2d < 0 ? "Box2D" : "", box2d < 0 && chipmunk < 0 ? " and " : "", chipmunk < 0 ? "Chipmunk" : "");

    static result results[SCENES][SB_METHOD_COUNT + 7];
    memset(results, 0, sizeof results);
    int total = 0, done = 0;
    for (int sc = 0; sc < SCENES; ++sc)
        if (selected(scenes[sc].name, only_list, only_count))
            total += ne * repeats;
    for (int r = 0; r < repeats; ++r) {
        for (int sc = 0; sc < SCENES; ++sc) {
            if (!selected(scenes[sc].name, only_list, only_count))
                continue;
            int n = (int)(steps[sc] * step_scale);
            n = n < 10 ? 10 : n;
            for (int k = 0; k < ne; ++k) {
                // interleave: rotate the order each repeat so no engine always runs first
                int e = (k + r) % ne;
                if (scenes[sc].left_out && strcmp(engines[e].e.name, scenes[sc].left_out) == 0)
                    continue;
                fprintf(stderr, "\r[%d/%d] %-14s %-28s repeat %d/%d   ", ++done, total, scenes[sc].name,
                        engines[e].e.name, r + 1, repeats);
                bench_method = engines[e].method;
                bench_tethers = engines[e].tethers;
                bench_no_rolling = engines[e].no_rolling;
                bench_threads = engines[e].threads > 1 ? engines[e].threads : 1;
                result *res = &results[sc][e];
                res->ms[res->runs++] = run(&engines[e].e, &scenes[sc], n, res->q);
                res->engine = engines[e].e.name;
                res->settings = engines[e].e.settings;
                res->iterations = engines[e].iterations;
            }
        }
    }
    fprintf(stderr, "\r%-90s\r", "");

    FILE *csv = fopen(csv_path, "w");
    if (csv)
        fprintf(csv, "scene,engine,settings,ms_per_step,x_box2d,x_chipmunk,ns_per_spring_iteration,q1,q2,q3,q4,q5,q6\n");
    printf("%-13s %-30s %9s %8s %8s %8s  %s\n", "scene", "engine", "ms/step", "x Box2D", "x Chipm", "ns/s/it",
           "quality");
    for (int sc = 0; sc < SCENES; ++sc) {
        if (!selected(scenes[sc].name, only_list, only_count))
            continue;
        for (int e = 0; e < ne; ++e) {
            result *res = &results[sc][e];
            qsort(res->ms, (size_t)res->runs, sizeof res->ms[0], compare_double);
            res->median_ms = res->ms[res->runs / 2];
        }
        for (int e = 0; e < ne; ++e) {
            result *res = &results[sc][e];
            if (res->runs == 0)
                continue; // left out of this scene
            char xb[16] = "-", xc[16] = "-", ns[16] = "-", q[128];
            if (box2d >= 0 && results[sc][box2d].runs > 0)
                snprintf(xb, sizeof xb, "%.2f", res->median_ms / results[sc][box2d].median_ms);
            if (chipmunk >= 0)
                snprintf(xc, sizeof xc, "%.2f", res->median_ms / results[sc][chipmunk].median_ms);
            if (scenes[sc].nl > 0)
                snprintf(ns, sizeof ns, "%.1f", res->median_ms * 1e6 / ((double)scenes[sc].nl * res->iterations));
            fmt_quality(q, sizeof q, &scenes[sc], res->q);
            printf("%-13s %-30s %9.3f %8s %8s %8s  %s\n", scenes[sc].name, res->engine, res->median_ms, xb, xc, ns, q);
            if (csv) // text fields quoted: an engine's name may hold a comma
                fprintf(csv, "\"%s\",\"%s\",\"%s\",%.4f,%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", scenes[sc].name,
                        res->engine, res->settings, res->median_ms, xb, xc, ns, res->q[0], res->q[1], res->q[2], res->q[3],
                        res->q[4], res->q[5]);
        }
        printf("\n");
    }
    if (markdown_path)
        write_markdown(markdown_path, scenes, SCENES, only_list, only_count, engines, ne, results, repeats);
    if (csv) {
        fclose(csv);
        printf("wrote %s (%d repeats, medians; %s)\n", csv_path, repeats, step_scale < 1 ? "quick" : "full length");
    }
    // A plot of step time per scene and engine, if gnuplot is installed.
    char dat[1024], gp[1024];
    snprintf(dat, sizeof dat, "%s.dat", plot_path);
    snprintf(gp, sizeof gp, "%s.gp", plot_path);
    FILE *d = fopen(dat, "w"), *g = fopen(gp, "w");
    if (d && g) {
        fprintf(d, "scene");
        for (int e = 0; e < ne; ++e)
            fprintf(d, "\t\"%s\"", engines[e].e.name);
        fprintf(d, "\n");
        for (int sc = 0; sc < SCENES; ++sc) {
            if (!selected(scenes[sc].name, only_list, only_count))
                continue;
            fprintf(d, "\"%s\"", scenes[sc].name);
            for (int e = 0; e < ne; ++e)
                fprintf(d, "\t%.5f", results[sc][e].median_ms);
            fprintf(d, "\n");
        }
        fprintf(g,
                "set terminal pngcairo size 1200,560 noenhanced font 'DejaVu Sans,10'\n"
                "set output '%s'\n"
                "set datafile separator '\\t'\n"
                "set style data histogram\nset style histogram clustered gap 1\nset style fill solid border -1\n"
                "set logscale y\nset ylabel 'ms per step (median, log scale)'\nset grid ytics\n"
                // One colour per engine (gnuplot's default cycle repeats after eight).
                "set linetype 1 lc rgb '#7b3294'\nset linetype 2 lc rgb '#009e73'\nset linetype 3 lc rgb '#56b4e9'\n"
                "set linetype 4 lc rgb '#e69f00'\nset linetype 5 lc rgb '#f0e442'\nset linetype 6 lc rgb '#0072b2'\n"
                "set linetype 7 lc rgb '#f4a3a8'\nset linetype 8 lc rgb '#000000'\nset linetype 9 lc rgb '#999999'\n"
                "set key outside right\nset title 'Step time, springbox (every method) vs Box2D 2.4.1 and Chipmunk 7'\n"
                "plot for [i=2:%d] '%s' using i:xtic(1) title columnheader(i)\n",
                plot_path, ne + 1, dat);
    }
    if (d)
        fclose(d);
    if (g)
        fclose(g);
    fflush(stdout); // the plot's message must not land inside the table
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "command -v gnuplot >/dev/null 2>&1 && gnuplot '%s' && echo 'wrote %s'", gp, plot_path);
    if (system(cmd) != 0)
        fprintf(stderr, "no plot: install gnuplot (Debian: gnuplot-nox)\n");
    for (int sc = 0; sc < SCENES; ++sc)
        scene_free(&scenes[sc]);
    return 0;
}
