// The walls' broad phase: a static bounding volume hierarchy over the live walls' boxes, built
// again whenever the walls change (a median split on the longer axis, leaves of a few walls), and
// asked for the walls whose boxes meet a box. The narrow phase, the stops and the walls' hold ask
// it with each particle's reach, so that a particle meets the walls near it and not every wall:
// a polyline of a million points under 100 balls cost walls x particles a step.
#include "world_internal.h"

#include <stdlib.h>

enum { WALL_LEAF = 4 };

typedef struct wall_box { double lo_x, lo_y, hi_x, hi_y; } wall_box;

/// A node: its box, and either its two children or (count > 0) items[first .. first + count).
typedef struct wall_node {
    wall_box box;
    int first, count, left, right;
} wall_node;

struct sb_wall_tree {
    wall_node *nodes;
    int node_count, node_cap;
    int *items;               // live wall numbers, in leaf order
};

typedef struct build_scratch { wall_box *boxes; double *centre; } build_scratch;

static wall_box box_union(wall_box a, wall_box b)
{
    return (wall_box){a.lo_x < b.lo_x ? a.lo_x : b.lo_x, a.lo_y < b.lo_y ? a.lo_y : b.lo_y,
                      a.hi_x > b.hi_x ? a.hi_x : b.hi_x, a.hi_y > b.hi_y ? a.hi_y : b.hi_y};
}

/// Orders items[from .. to) so that the one at `mid` is where a sort by centre along `axis` (then
/// by wall number) puts it, the smaller before it and the larger after (quickselect).
static void select_median(int *items, const build_scratch *s, int axis, int from, int to, int mid)
{
    while (to - from > 1) {
        int pivot = items[from + (to - from) / 2];
        double pc = s->centre[2 * pivot + axis];
        int lo = from, hi = to - 1;
        while (lo <= hi) {
            while (s->centre[2 * items[lo] + axis] < pc || (s->centre[2 * items[lo] + axis] == pc && items[lo] < pivot))
                lo += 1;
            while (s->centre[2 * items[hi] + axis] > pc || (s->centre[2 * items[hi] + axis] == pc && items[hi] > pivot))
                hi -= 1;
            if (lo <= hi) {
                int t = items[lo];
                items[lo++] = items[hi];
                items[hi--] = t;
            }
        }
        if (mid <= hi)
            to = hi + 1;
        else if (mid >= lo)
            from = lo;
        else
            return;
    }
}

/// Builds the node of items[from .. to); returns its number, -1 out of memory.
static int build_node(sb_wall_tree *t, const build_scratch *s, int from, int to, int depth)
{
    if (t->node_count == t->node_cap) {
        int cap = t->node_cap ? 2 * t->node_cap : 64;
        wall_node *nodes = realloc(t->nodes, sizeof *nodes * (size_t)cap);
        if (!nodes)
            return -1;
        t->nodes = nodes;
        t->node_cap = cap;
    }
    int at = t->node_count++;
    wall_box box = s->boxes[t->items[from]];
    double c_lo_x = s->centre[2 * t->items[from]], c_hi_x = c_lo_x;
    double c_lo_y = s->centre[2 * t->items[from] + 1], c_hi_y = c_lo_y;
    for (int k = from + 1; k < to; ++k) {
        int i = t->items[k];
        box = box_union(box, s->boxes[i]);
        double cx = s->centre[2 * i], cy = s->centre[2 * i + 1];
        c_lo_x = cx < c_lo_x ? cx : c_lo_x, c_hi_x = cx > c_hi_x ? cx : c_hi_x;
        c_lo_y = cy < c_lo_y ? cy : c_lo_y, c_hi_y = cy > c_hi_y ? cy : c_hi_y;
    }
    t->nodes[at] = (wall_node){box, from, to - from, -1, -1};
    if (to - from <= WALL_LEAF || depth >= 60)
        return at;
    int axis = c_hi_y - c_lo_y > c_hi_x - c_lo_x, mid = from + (to - from) / 2;
    select_median(t->items, s, axis, from, to, mid);
    int left = build_node(t, s, from, mid, depth + 1);
    int right = left < 0 ? -1 : build_node(t, s, mid, to, depth + 1);
    if (right < 0)
        return -1;
    t->nodes[at].count = 0;
    t->nodes[at].left = left;
    t->nodes[at].right = right;
    return at;
}

void wall_tree_free(sb_world *w)
{
    if (w->walls.tree) {
        free(w->walls.tree->nodes);
        free(w->walls.tree->items);
        free(w->walls.tree);
    }
    w->walls.tree = NULL;
}

bool wall_tree_build(sb_world *w)
{
    wall_tree_free(w);
    if (w->broad.walls_unindexed)
        return false;
    sb_wall_tree *t = calloc(1, sizeof *t);
    build_scratch s = {malloc(sizeof *s.boxes * (size_t)(w->walls.high + 1)), malloc(sizeof *s.centre * (size_t)(2 * w->walls.high + 2))};
    int n = 0;
    if (t)
        t->items = malloc(sizeof *t->items * (size_t)(w->walls.high + 1));
    bool ok = t && t->items && s.boxes && s.centre;
    for (int k = 0; ok && k < w->walls.high; ++k) {
        if (!w->walls.alive_flag[k])
            continue;
        sb_vec2 a = w->walls.a[k], b = w->walls.b[k];
        s.boxes[k] = (wall_box){a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
        s.centre[2 * k] = 0.5 * (a.x + b.x);
        s.centre[2 * k + 1] = 0.5 * (a.y + b.y);
        t->items[n++] = k;
    }
    ok = ok && (n == 0 || build_node(t, &s, 0, n, 0) >= 0);
    free(s.boxes);
    free(s.centre);
    if (!ok) {
        if (t) {
            free(t->nodes);
            free(t->items);
            free(t);
        }
        return false;
    }
    w->walls.tree = t;
    return true;
}

static int compare_walls(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void sort_walls(int *walls, int n)
{
    if (n > 32) {
        qsort(walls, (size_t)n, sizeof *walls, compare_walls);
        return;
    }
    for (int k = 1; k < n; ++k) { // a handful each: insertion
        int v = walls[k], m = k;
        for (; m > 0 && walls[m - 1] > v; --m)
            walls[m] = walls[m - 1];
        walls[m] = v;
    }
}

int wall_tree_query(const sb_world *w, double lo_x, double lo_y, double hi_x, double hi_y, int *out, int cap)
{
    const sb_wall_tree *t = w->walls.tree;
    if (!t) { // no tree (out of memory when it was built): every live wall, as the callers did before
        int n = 0;
        for (int k = 0; k < w->walls.high; ++k)
            if (w->walls.alive_flag[k]) {
                if (n < cap)
                    out[n] = k;
                n += 1;
            }
        return n;
    }
    if (t->node_count == 0)
        return 0;
    int stack[128], top = 0, n = 0;
    stack[top++] = 0;
    while (top > 0) {
        const wall_node *node = &t->nodes[stack[--top]];
        const wall_box *b = &node->box;
        if (b->hi_x < lo_x || b->lo_x > hi_x || b->hi_y < lo_y || b->lo_y > hi_y)
            continue;
        if (node->count == 0) {
            stack[top++] = node->right;
            stack[top++] = node->left;
            continue;
        }
        for (int k = node->first; k < node->first + node->count; ++k) {
            int i = t->items[k];
            sb_vec2 a = w->walls.a[i], e = w->walls.b[i];
            if ((a.x > e.x ? a.x : e.x) < lo_x || (a.x < e.x ? a.x : e.x) > hi_x || (a.y > e.y ? a.y : e.y) < lo_y ||
                (a.y < e.y ? a.y : e.y) > hi_y)
                continue;
            if (n < cap)
                out[n] = i;
            n += 1;
        }
    }
    if (n <= cap)
        sort_walls(out, n);
    return n;
}

bool walls_near_find(const sb_world *w, double lo_x, double lo_y, double hi_x, double hi_y, walls_near *near)
{
    near->walls = near->stack;
    near->count = wall_tree_query(w, lo_x, lo_y, hi_x, hi_y, near->stack, WALLS_NEAR_MAX);
    if (near->count <= WALLS_NEAR_MAX)
        return true;
    near->walls = malloc(sizeof *near->walls * (size_t)near->count);
    if (!near->walls) {
        near->count = 0;
        return false;
    }
    wall_tree_query(w, lo_x, lo_y, hi_x, hi_y, near->walls, near->count);
    return true;
}

void walls_near_free(walls_near *near)
{
    if (near->walls != near->stack)
        free(near->walls);
    near->walls = near->stack;
    near->count = 0;
}
