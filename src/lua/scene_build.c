// Building a scene: running the script, checking its worlds, the shapes that say whether a new
// build has the running one's structure, carrying state over, and adopting a build. The reload
// that orders them is scene_reload.c.
#define _POSIX_C_SOURCE 200809L
#include "scene_internal.h"

#include "sb_lua.h"
#include "sb_pattern.h"
#include "sb_tune_source.h"
#include "sb_tuning.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>


// ---------------------------------------------------------------- building

/// Retires the worlds of `gone` that `stays` does not hold: a reload replaced them, so their
/// handles (kept in springbox.state, say) must say they are stale instead of writing to a
/// world nobody steps.
void scene_build_retire(sb_scene *scene, const scene_build *gone, const scene_build *stays)
{
    for (int i = 0; i < gone->world_count; ++i) {
        bool kept = false;
        for (int k = 0; stays && k < stays->world_count && !kept; ++k)
            kept = stays->worlds[k] == gone->worlds[i];
        if (kept)
            continue;
        lua_rawgeti(scene->L, LUA_REGISTRYINDEX, gone->world_refs[i]);
        sb_lua_retire_world(scene->L, -1);
        lua_pop(scene->L, 1);
    }
}

void scene_build_free(sb_scene *scene, scene_build *b)
{
    if (scene->L) {
        luaL_unref(scene->L, LUA_REGISTRYINDEX, b->table_ref);
        luaL_unref(scene->L, LUA_REGISTRYINDEX, b->update_ref);
        for (int i = 0; i < b->world_count; ++i) {
            lua_rawgeti(scene->L, LUA_REGISTRYINDEX, b->world_refs[i]);
            sb_lua_pin_world(scene->L, -1, false);
            lua_pop(scene->L, 1);
            luaL_unref(scene->L, LUA_REGISTRYINDEX, b->world_refs[i]);
        }
    }
    for (int i = 0; i < b->file_count; ++i)
        free(b->files[i].path);
    free(b->files);
    free(b->worlds);
    free(b->world_refs);
    free(b->title);
    free(b->warning);
    memset(b, 0, sizeof *b);
    b->table_ref = b->update_ref = LUA_NOREF;
}

// Adds the world userdata at idx to the build; false if it is not a live world.
static bool build_add_world(sb_scene *scene, scene_build *b, int idx)
{
    sb_world *w = sb_lua_to_world(scene->L, idx);
    if (!w)
        return false;
    for (int i = 0; i < b->world_count; ++i)
        if (b->worlds[i] == w)
            return true;
    sb_world **ws = realloc(b->worlds, sizeof *ws * (size_t)(b->world_count + 1));
    int *refs = realloc(b->world_refs, sizeof *refs * (size_t)(b->world_count + 1));
    if (ws)
        b->worlds = ws;
    if (refs)
        b->world_refs = refs;
    if (!ws || !refs)
        return false;
    lua_pushvalue(scene->L, idx);
    sb_lua_pin_world(scene->L, -1, true); // the host steps it: no script may close it
    b->world_refs[b->world_count] = luaL_ref(scene->L, LUA_REGISTRYINDEX);
    b->worlds[b->world_count++] = w;
    return true;
}

/// Letters to change to turn a into b (Levenshtein), for "did you mean".
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), row[64];
    if (la > 62 || lb > 62)
        return 99;
    for (int j = 0; j <= lb; ++j)
        row[j] = j;
    for (int i = 1; i <= la; ++i) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; ++j) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = best < up + 1 ? best : up + 1;
            best = best < row[j - 1] + 1 ? best : row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/// The fields of the returned scene table that springbox does not use, each with the nearest
/// known name when one is close: "scene field 'updat' is not used (did you mean 'update'?)".
/// NULL when there are none. Read raw, like the rest of the table.
static char *unknown_fields(lua_State *L, int t, const char *path)
{
    static const char *const base[] = {"world", "worlds", "title", "update", "tune"};
    const char *known[sizeof base / sizeof base[0] + SCENE_CALLBACK_COUNT + 1];
    size_t nk = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; ++i)
        known[nk++] = base[i];
    for (int i = 0; i < SCENE_CALLBACK_COUNT; ++i)
        known[nk++] = scene_callback_names[i];
    known[nk] = NULL;
    char text[1024] = "";
    size_t used = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            continue;
        const char *key = lua_tostring(L, -1), *nearest = NULL;
        bool is_known = false;
        int best = 3;
        for (const char *const *k = known; *k; ++k) {
            int d = edit_distance(key, *k);
            is_known = is_known || d == 0;
            if (d < best) {
                best = d;
                nearest = *k;
            }
        }
        if (is_known || used >= sizeof text - 1)
            continue;
        int n = nearest ? snprintf(text + used, sizeof text - used, "%sscene field '%s' is not used (did you mean '%s'?)",
                                   used ? "; " : "", key, nearest)
                        : snprintf(text + used, sizeof text - used, "%sscene field '%s' is not used (known: world, "
                                   "worlds, title, update, tune, the callbacks in docs/scenes.md)", used ? "; " : "", key);
        used += n > 0 ? (size_t)n : 0;
        used = used < sizeof text ? used : sizeof text - 1;
    }
    if (!used)
        return NULL;
    const char *slash = strrchr(path, '/');
    size_t size = strlen(text) + strlen(path) + 4;
    char *w = malloc(size);
    if (w)
        snprintf(w, size, "%s: %s", slash ? slash + 1 : path, text);
    return w;
}

/// lua_getfield without metamethods: pushes t[k] by rawget and returns its type.
static int lua_getfield_raw(lua_State *L, int t, const char *k)
{
    t = lua_absindex(L, t);
    lua_pushstring(L, k);
    return lua_rawget(L, t);
}

// Runs the scene file and checks what it returned. On failure fills `error`.
bool scene_build_run(sb_scene *scene, scene_build *b, char *error, size_t error_size)
{
    lua_State *L = scene->L;
    memset(b, 0, sizeof *b);
    b->table_ref = b->update_ref = LUA_NOREF;
    scene_record_file(b, scene->path);
    // Tunables declared by this run start empty; so does its springbox.state (springbox.state).
    // The last run's declarations stay at hand: a default the file changes since then wins over
    // a slider's value (springbox.tune), the latest change being the designer's intent.
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.tunables.before");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.next");
    int top = lua_gettop(L);
    b->version = ++scene->versions;
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped");
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped_name");
    // Each run starts with the collector as the host set it: one version's collectgarbage("stop")
    // or ("generational") is not the next one's.
    lua_gc(L, LUA_GCRESTART);
    lua_gc(L, LUA_GCINC, 0, 0, 0);
    if (scene_load_source(scene, scene->path, NULL) != LUA_OK) { // the designer named it: anywhere, but a regular file
        error_with_source_line(L, lua_tostring(L, -1), error, error_size);
        lua_settop(L, top);
        return false;
    }
    scene_push_environment(scene);
    lua_setupvalue(L, -2, 1);
    scene->loading = b;
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.loading");
    bool loaded = protected_call(scene, 0, 1, scene->opt.load_seconds, "loading the scene", error, error_size);
    scene->loading = NULL;
    lua_pushboolean(L, 0);
    lua_setfield(L, LUA_REGISTRYINDEX, "springbox.loading");
    if (!loaded) { // a failed load's state goes with it
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, "springbox.state.next");
    }
    if (!loaded) {
        lua_settop(L, top);
        return false;
    }
    // What the file returned is read raw: its metamethods (__index, __len) could raise or loop,
    // and this runs outside any protected call.
    int result = lua_gettop(L);
    if (sb_lua_to_world(L, result)) {
        build_add_world(scene, b, result);
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, result);
        lua_setfield(L, -2, "world");
        lua_replace(L, result);
    } else if (lua_istable(L, result)) {
        lua_getfield_raw(L, result, "world");
        bool ok = build_add_world(scene, b, -1);
        lua_pop(L, 1);
        if (lua_getfield_raw(L, result, "worlds") == LUA_TTABLE) {
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            for (lua_Integer i = 1; i <= n; ++i) {
                lua_rawgeti(L, -1, i);
                if (!build_add_world(scene, b, -1)) {
                    snprintf(error, error_size, "%s: scene field 'worlds' must hold open springbox worlds; item %d is a %s",
                             scene->path, (int)i, luaL_typename(L, -1));
                    lua_settop(L, top);
                    return false;
                }
                lua_pop(L, 1);
            }
            ok = ok || b->world_count > 0;
        }
        lua_pop(L, 1);
        if (!ok) {
            lua_getfield_raw(L, result, "world");
            snprintf(error, error_size, "%s: the scene must return a springbox world or a table with field 'world' (a springbox world), got %s for 'world'",
                     scene->path, luaL_typename(L, -1));
            lua_settop(L, top);
            return false;
        }
        int t = lua_getfield_raw(L, result, "update");
        if (t == LUA_TFUNCTION) {
            b->update_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
            if (t != LUA_TNIL) {
                snprintf(error, error_size, "%s: scene field 'update' must be a function, got %s", scene->path, lua_typename(L, t));
                lua_settop(L, top);
                return false;
            }
        }
        if (lua_getfield_raw(L, result, "title") == LUA_TSTRING)
            b->title = scene_copy_string(lua_tostring(L, -1));
        lua_pop(L, 1);
        if (!scene_check_callbacks(scene, result, error, error_size)) {
            lua_settop(L, top);
            return false;
        }
        // Tunables listed in the returned table count as declared too.
        if (lua_getfield_raw(L, result, "tune") == LUA_TTABLE) {
            lua_getfield(L, LUA_REGISTRYINDEX, "springbox.tunables");
            lua_pushnil(L);
            while (lua_next(L, -3)) {
                if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1)) {
                    lua_pushvalue(L, -2);
                    if (lua_rawget(L, -4) == LUA_TNIL) {
                        lua_pop(L, 1);
                        lua_pushvalue(L, -2);
                        lua_pushvalue(L, -2);
                        lua_rawset(L, -5);
                    } else {
                        lua_pop(L, 1);
                    }
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    } else {
        snprintf(error, error_size, "%s: the scene must return a springbox world or a table with field 'world', got %s",
                 scene->path, luaL_typename(L, result));
        lua_settop(L, top);
        return false;
    }
    if (lua_istable(L, -1))
        b->warning = unknown_fields(L, lua_gettop(L), scene->path);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped");
    lua_Integer dropped = lua_tointeger(L, -1);
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.state.dropped_name");
    if (dropped > 0 && lua_isstring(L, -1)) { // said beside the unknown fields, once per load
        char note[512];
        snprintf(note, sizeof note, "%s%s%s and %d other functions or coroutines: springbox.state carries data "
                                    "across a reload, not code, so they were left out",
                 b->warning ? b->warning : "", b->warning ? "; " : "", lua_tostring(L, -1), (int)dropped - 1);
        free(b->warning);
        b->warning = scene_copy_string(note);
    }
    lua_pop(L, 2);
    b->table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (!b->title) {
        const char *slash = strrchr(scene->path, '/');
        b->title = scene_copy_string(slash ? slash + 1 : scene->path);
    }
    if (b->title) // what a scene names goes to a terminal and to --stats: printable UTF-8 only
        scene_clean_text(b->title);
    if (b->warning)
        scene_clean_text(b->warning);
    lua_settop(L, top);
    return true;
}


// ---------------------------------------------------------------- structure


void scene_shape_free(world_shape *s)
{
    free(s->p_index);
    free(s->s_index);
    free(s->s_a);
    free(s->s_b);
    free(s->p_gen);
    free(s->s_gen);
    free(s->start);
    memset(s, 0, sizeof *s);
}

void scene_shape_of(const sb_world *w, world_shape *s)
{
    memset(s, 0, sizeof *s);
    int np = sb_world_particle_count(w), ns = sb_world_spring_count(w);
    s->p_index = malloc(sizeof *s->p_index * (size_t)(np + 1));
    s->start = malloc(sizeof *s->start * (size_t)(np + 1));
    s->s_index = malloc(sizeof *s->s_index * (size_t)(ns + 1));
    s->s_a = malloc(sizeof *s->s_a * (size_t)(ns + 1));
    s->s_b = malloc(sizeof *s->s_b * (size_t)(ns + 1));
    s->p_gen = malloc(sizeof *s->p_gen * (size_t)(np + 1));
    s->s_gen = malloc(sizeof *s->s_gen * (size_t)(ns + 1));
    if (!s->p_index || !s->start || !s->s_index || !s->s_a || !s->s_b || !s->p_gen || !s->s_gen) {
        scene_shape_free(s);
        s->particles = -1; // never equal to anything
        return;
    }
    s->broken_total = sb_world_get_stats(w)->broken_springs_total;
    sb_particle_id p = sb_null_particle();
    while (sb_world_next_particle(w, &p)) {
        sb_particle_def d;
        sb_particle_get(w, p, &d);
        s->p_index[s->particles] = p.index;
        s->p_gen[s->particles] = p.generation;
        s->start[s->particles++] = d.position;
    }
    sb_spring_id sp = sb_null_spring();
    while (sb_world_next_spring(w, &sp)) {
        sb_spring_def d;
        sb_spring_get(w, sp, &d);
        s->s_index[s->springs] = sp.index;
        s->s_gen[s->springs] = sp.generation;
        s->s_a[s->springs] = d.a.index;
        s->s_b[s->springs++] = d.b.index;
    }
    // constraints: counted and hashed (FNV-1a), which is all a reload needs to tell them apart
    uint64_t layout = 1469598103934665603ull, gens = 1469598103934665603ull;
    sb_constraint_id c = {SB_NULL_INDEX, 0};
    while (sb_world_next_constraint(w, &c)) {
        sb_constraint_def d;
        sb_particle_id ids[8];
        int count = sb_constraint_get(w, c, &d, ids, 8);
        uint64_t words[4] = {c.index, (uint64_t)d.kind, (uint64_t)count, 0};
        for (int i = 0; i < count && i < 8; ++i)
            words[3] = words[3] * 1000003u + ids[i].index;
        for (int k = 0; k < 4; ++k)
            layout = (layout ^ words[k]) * 1099511628211ull;
        gens = (gens ^ c.generation) * 1099511628211ull;
        s->constraints += 1;
    }
    s->c_layout = layout;
    s->c_gens = gens;
}

// Why two shapes differ, or false if they are the same structure.
/// True when the running world's particles and springs are no longer the ones it was built with
/// (update() or a callback removed or added some, or emptied a slot and filled it again): its
/// state then cannot be matched to a new build's, and a reload must restart and say so.
bool scene_shape_changed_while_running(const world_shape *built, const sb_world *w, int world, char *why, size_t n)
{
    world_shape now;
    scene_shape_of(w, &now);
    bool changed = now.particles != built->particles || now.springs != built->springs;
    for (int i = 0; !changed && i < now.particles; ++i)
        changed = now.p_index[i] != built->p_index[i] || now.p_gen[i] != built->p_gen[i];
    for (int i = 0; !changed && i < now.springs; ++i)
        changed = now.s_index[i] != built->s_index[i] || now.s_gen[i] != built->s_gen[i];
    bool constraints = now.constraints != built->constraints || now.c_layout != built->c_layout || now.c_gens != built->c_gens;
    // Springs the physics broke are not the scene's doing: say so. The shape was taken
    // when the world was built (its total then is 0) or carried over (the total carries too).
    uint64_t total = sb_world_get_stats(w)->broken_springs_total;
    uint64_t broke = total > built->broken_total ? total - built->broken_total : 0;
    bool particles_same = now.particles == built->particles;
    for (int i = 0; particles_same && i < now.particles; ++i)
        particles_same = now.p_index[i] == built->p_index[i] && now.p_gen[i] == built->p_gen[i];
    if (changed && particles_same && broke > 0 && (uint64_t)(built->springs - now.springs) == broke)
        snprintf(why, n, "world %d: %llu spring%s broke since it was loaded (%d left of %d)", world + 1,
                 (unsigned long long)broke, broke == 1 ? "" : "s", now.springs, built->springs);
    else if (changed)
        snprintf(why, n, "world %d: the running scene added or removed particles or springs since it was loaded "
                         "(%d particles and %d springs, built with %d and %d)",
                 world + 1, now.particles, now.springs, built->particles, built->springs);
    else if (constraints)
        snprintf(why, n, "world %d: the running scene added or removed constraints since it was loaded (%d, built with %d)",
                 world + 1, now.constraints, built->constraints);
    changed = changed || constraints;
    scene_shape_free(&now);
    return changed;
}

bool scene_shape_differs(const world_shape *old, const world_shape *new_, int world, char *why, size_t n)
{
    if (old->particles != new_->particles) {
        snprintf(why, n, "world %d: %d particles, was %d", world + 1, new_->particles, old->particles);
        return true;
    }
    if (old->springs != new_->springs) {
        snprintf(why, n, "world %d: %d springs, was %d", world + 1, new_->springs, old->springs);
        return true;
    }
    for (int i = 0; i < old->particles; ++i) {
        if (old->p_index[i] != new_->p_index[i]) {
            snprintf(why, n, "world %d: particles were added or removed differently", world + 1);
            return true;
        }
        if (old->start[i].x != new_->start[i].x || old->start[i].y != new_->start[i].y) {
            snprintf(why, n, "world %d: particle %d starts at (%g, %g), was (%g, %g)", world + 1, i + 1,
                     new_->start[i].x, new_->start[i].y, old->start[i].x, old->start[i].y);
            return true;
        }
    }
    for (int i = 0; i < old->springs; ++i) {
        if (old->s_index[i] != new_->s_index[i] || old->s_a[i] != new_->s_a[i] || old->s_b[i] != new_->s_b[i]) {
            snprintf(why, n, "world %d: spring %d joins particles %u and %u, was %u and %u", world + 1, i + 1,
                     new_->s_a[i] + 1, new_->s_b[i] + 1, old->s_a[i] + 1, old->s_b[i] + 1);
            return true;
        }
    }
    if (old->constraints != new_->constraints) {
        snprintf(why, n, "world %d: %d constraints, was %d", world + 1, new_->constraints, old->constraints);
        return true;
    }
    if (old->c_layout != new_->c_layout) {
        snprintf(why, n, "world %d: constraints are of other kinds or hold other particles", world + 1);
        return true;
    }
    return false;
}

bool scene_shape_extends(const world_shape *old, const world_shape *new_)
{
    if (old->particles < 0 || new_->particles < 0)
        return false;
    const int particles = old->particles < new_->particles ? old->particles : new_->particles;
    const int springs = old->springs < new_->springs ? old->springs : new_->springs;
    for (int i = 0; i < particles; ++i)
        if (old->p_index[i] != new_->p_index[i] || old->start[i].x != new_->start[i].x ||
            old->start[i].y != new_->start[i].y)
            return false;
    for (int i = 0; i < springs; ++i)
        if (old->s_index[i] != new_->s_index[i] || old->s_a[i] != new_->s_a[i] || old->s_b[i] != new_->s_b[i])
            return false;
    return true;
}


// ---------------------------------------------------------------- carrying state over


static bool same_tuning(const sb_tuning *a, const sb_tuning *b)
{
    if (a->mode != b->mode)
        return false;
    switch (a->mode) {
    case SB_TUNE_HERTZ: return a->hertz == b->hertz && a->damping_ratio == b->damping_ratio;
    case SB_TUNE_COEFFICIENTS: return a->stiffness == b->stiffness && a->damping == b->damping;
    default: return a->k == b->k && a->c == b->c;
    }
}

// The new world takes the old world's state and starts from where it stands: every spring's
// rest length and tuning, every mass and the gravity as they are now, ramps in progress
// included. What the file changed then blends in through the core's ramps (retune.c), which
// re-base a retuned spring so that the structure is not thrown. Returns the ramps it started.
int scene_carry_over(sb_scene *scene, sb_world *dst, const sb_world *src)
{
    const double T = scene->opt.ramp_seconds;
    int started = 0;
    sb_world_carry_state(dst, src);
    // The structures match slot for slot where both have them (checked by the caller); each world
    // has its own handles.
    sb_spring_id s = sb_null_spring(), t = sb_null_spring();
    while (sb_world_next_spring(dst, &s) && sb_world_next_spring(src, &t)) {
        sb_spring_def now, was;
        sb_spring_get(dst, s, &now);
        sb_spring_get(src, t, &was);
        double target_rest = was.rest_length;
        sb_tuning target = was.tuning;
        sb_spring_ramp_target(src, t, &target_rest, &target);
        sb_spring_set(dst, s, was.rest_length, &was.tuning, NULL);
        if (!same_tuning(&now.tuning, &target) || now.rest_length != target_rest) {
            sb_spring_retune(dst, s, now.rest_length, &now.tuning, T, NULL);
            started += 1;
        }
    }
    sb_particle_id p = sb_null_particle(), q = sb_null_particle();
    while (sb_world_next_particle(dst, &p) && sb_world_next_particle(src, &q)) {
        sb_particle_def now, was;
        sb_particle_get(dst, p, &now);
        sb_particle_get(src, q, &was);
        if (now.mass != was.mass) {
            double mass = now.mass;
            now.mass = was.mass;
            sb_particle_set(dst, p, &now, NULL);
            sb_particle_ramp_mass(dst, p, mass, T);
            started += 1;
        }
    }
    sb_world_def now = sb_world_get_def(dst), was = sb_world_get_def(src);
    if (now.gravity.x != was.gravity.x || now.gravity.y != was.gravity.y) {
        sb_vec2 g = now.gravity;
        now.gravity = was.gravity;
        sb_world_set_def(dst, &now, NULL);
        sb_world_ramp_gravity(dst, g, T);
        started += 1;
    }
    return started;
}


// ---------------------------------------------------------------- adopting a build


// Makes `b` the running scene. With `shapes` the structure of the new worlds is taken as
// given (a kept reload: the worlds already run the old state); otherwise it is measured
// from the freshly built worlds.
void scene_adopt(sb_scene *scene, scene_build *b, world_shape *shapes)
{
    for (int i = 0; scene->shapes && i < scene->cur.world_count; ++i)
        scene_shape_free(&scene->shapes[i]);
    free(scene->shapes);
    scene->shapes = shapes;
    if (!shapes) { // a new run: its frames count from 0
        scene->frames = 0;
        scene->shapes = calloc((size_t)b->world_count, sizeof *scene->shapes);
        for (int i = 0; i < b->world_count && scene->shapes; ++i)
            scene_shape_of(b->worlds[i], &scene->shapes[i]);
    }
    scene_build_retire(scene, &scene->cur, b);
    scene_build_free(scene, &scene->cur);
    scene->cur = *b;
    scene->update_ok = true;
    scene_log_keep_only(scene, b->version); // a reload closes the replaced version's logs
    lua_newtable(scene->L); // which plot series this version writes (an old one's give way when full)
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.plots.fresh");
    memset(scene->callback_off, 0, sizeof scene->callback_off);
    // The adopted load's springbox.state becomes the running state.
    lua_getfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.next");
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.current");
    lua_pushnil(scene->L);
    lua_setfield(scene->L, LUA_REGISTRYINDEX, "springbox.state.next");
    lua_gc(scene->L, LUA_GCCOLLECT); // the old worlds go now, not at some later collection
}
