// springbox.open_log(name): the one file a sandboxed scene may write.
//
// The sandbox has no `io`, so a scene that wants a CSV of its run (stretch per frame, a
// frequency it measured) writes it here: a plain file name next to the scene, .csv, .txt,
// .log or .json, at most opt.log_limit bytes each and SCENE_LOG_MAX files. A log outlives
// the file behind it as Lua's closed files do ("attempt to use a closed log"). The first
// open of a name in a session truncates the file; opens after a reload append, so the file
// holds the whole session. Logs are flushed after every frame, so `tail -f` follows them.
#include "scene_internal.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define LOG_TYPE "springbox.log"

typedef struct scene_log {
    char name[SCENE_LOG_NAME_MAX + 1];
    FILE *file;          // NULL when closed
    size_t bytes;        // written this session, against opt.log_limit
    unsigned generation; // bumped whenever the slot's file is closed
    bool opened;         // opened before this session: later opens append
    unsigned version;    // the run of the scene file that opened it (a reload closes the old version's)
} scene_log;

struct scene_logs {
    scene_log slot[SCENE_LOG_MAX];
};

/// What a log userdata holds: its slot and the slot's generation when it was opened.
typedef struct log_handle {
    sb_scene *scene;
    int slot;
    unsigned generation;
} log_handle;

static bool name_ok(const char *name, size_t len)
{
    static const char *const extensions[] = {".csv", ".txt", ".log", ".json"};
    if (len == 0 || len > SCENE_LOG_NAME_MAX || name[0] == '.')
        return false;
    for (size_t i = 0; i < len; ++i) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return false;
    }
    for (size_t e = 0; e < sizeof extensions / sizeof *extensions; ++e) {
        size_t n = strlen(extensions[e]);
        if (len > n && strcmp(name + len - n, extensions[e]) == 0)
            return true;
    }
    return false;
}

static void slot_close(scene_log *log)
{
    if (log->file)
        fclose(log->file);
    log->file = NULL;
    log->generation += 1;
}

/// The handle's log while its file is open and still the one it opened, else NULL.
static scene_log *live_log(const log_handle *h)
{
    struct scene_logs *logs = h->scene ? h->scene->logs : NULL;
    scene_log *log = logs && h->slot >= 0 && h->slot < SCENE_LOG_MAX ? &logs->slot[h->slot] : NULL;
    return log && log->file && log->generation == h->generation ? log : NULL;
}

static scene_log *check_log(lua_State *L, int idx)
{
    scene_log *log = live_log((log_handle *)luaL_checkudata(L, idx, LOG_TYPE));
    if (!log)
        luaL_error(L, "attempt to use a closed log (it was closed, opened again, or the scene was reloaded)");
    return log;
}

static void log_append(lua_State *L, const sb_scene *scene, scene_log *log, const char *text, size_t len)
{
    if (log->bytes + len > scene->opt.log_limit)
        luaL_error(L, "log '%s' is full: it may hold %d bytes, and this write would take it to %d", log->name,
                   (int)scene->opt.log_limit, (int)(log->bytes + len));
    if (fwrite(text, 1, len, log->file) != len)
        luaL_error(L, "cannot write log '%s': %s", log->name, strerror(errno));
    log->bytes += len;
}

// log:write(...): strings and numbers, as io.write writes them.
static int log_write(lua_State *L)
{
    scene_log *log = check_log(L, 1);
    const sb_scene *scene = ((log_handle *)lua_touserdata(L, 1))->scene;
    int n = lua_gettop(L);
    for (int i = 2; i <= n; ++i) {
        if (lua_type(L, i) != LUA_TSTRING && lua_type(L, i) != LUA_TNUMBER)
            return luaL_typeerror(L, i, "string or number");
        size_t len;
        const char *text = lua_tolstring(L, i, &len);
        log_append(L, scene, log, text, len);
    }
    lua_settop(L, 1);
    return 1;
}

// log:row(...): one CSV line (RFC 4180): numbers as tostring writes them, strings quoted
// when they hold a comma, a quote or a line break, nil as an empty field.
static int log_row(lua_State *L)
{
    scene_log *log = check_log(L, 1);
    const sb_scene *scene = ((log_handle *)lua_touserdata(L, 1))->scene;
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 2; i <= n; ++i) {
        if (i > 2)
            luaL_addchar(&b, ',');
        int type = lua_type(L, i);
        if (type == LUA_TNIL)
            continue;
        if (type == LUA_TBOOLEAN) {
            luaL_addstring(&b, lua_toboolean(L, i) ? "true" : "false");
            continue;
        }
        if (type != LUA_TSTRING && type != LUA_TNUMBER)
            return luaL_typeerror(L, i, "string, number, boolean or nil");
        size_t len;
        const char *text = lua_tolstring(L, i, &len);
        if (type == LUA_TNUMBER || strcspn(text, ",\"\r\n") == len) {
            luaL_addlstring(&b, text, len);
            continue;
        }
        luaL_addchar(&b, '"');
        for (size_t k = 0; k < len; ++k) {
            if (text[k] == '"')
                luaL_addchar(&b, '"');
            luaL_addchar(&b, text[k]);
        }
        luaL_addchar(&b, '"');
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    size_t len;
    const char *line = lua_tolstring(L, -1, &len);
    log_append(L, scene, log, line, len);
    lua_settop(L, 1);
    return 1;
}

static int log_close(lua_State *L)
{
    slot_close(check_log(L, 1));
    return 0;
}

static int log_gc(lua_State *L)
{
    scene_log *log = live_log((log_handle *)lua_touserdata(L, 1));
    if (log)
        slot_close(log);
    return 0;
}

static int log_tostring(lua_State *L)
{
    log_handle *h = (log_handle *)luaL_checkudata(L, 1, LOG_TYPE);
    struct scene_logs *logs = h->scene ? h->scene->logs : NULL;
    bool slot = logs && h->slot >= 0 && h->slot < SCENE_LOG_MAX;
    lua_pushfstring(L, "log '%s'%s", slot ? logs->slot[h->slot].name : "?", live_log(h) ? "" : " (closed)");
    return 1;
}

// springbox.open_log(name [, header]): a log file `name` next to the scene; `header`, a list
// of column names, is written as the first row when the file is created.
static int open_log(lua_State *L)
{
    sb_scene *scene = (sb_scene *)lua_touserdata(L, lua_upvalueindex(1));
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    if (!name_ok(name, len) || strlen(name) != len)
        return luaL_argerror(L, 1, lua_pushfstring(L, "a log is a plain file name next to the scene (letters, digits, "
                                                      "'_', '-', '.'; at most %d characters) ending in .csv, .txt, .log "
                                                      "or .json, got '%s'",
                                                   SCENE_LOG_NAME_MAX, name));
    if (!scene->logs && !(scene->logs = (struct scene_logs *)calloc(1, sizeof *scene->logs)))
        return luaL_error(L, "not enough memory");
    scene_log *log = NULL, *free_slot = NULL;
    for (int i = 0; i < SCENE_LOG_MAX; ++i) {
        scene_log *s = &scene->logs->slot[i];
        if (s->opened && strcmp(s->name, name) == 0)
            log = s;
        else if (!s->opened && !free_slot)
            free_slot = s;
    }
    if (!log && !free_slot)
        return luaL_error(L, "springbox.open_log: a scene may write at most %d logs in a session, and '%s' would be one "
                             "more", SCENE_LOG_MAX, name);
    bool append = log != NULL;
    if (!log)
        log = free_slot;
    // The handle is whole before anything can fail: a failed open leaves no half-made log
    // for the collector (which would crash on it).
    log_handle *h = (log_handle *)lua_newuserdatauv(L, sizeof *h, 0);
    h->scene = NULL;
    h->slot = -1;
    h->generation = 0;
    luaL_setmetatable(L, LOG_TYPE);
    if (log->file)
        slot_close(log); // one handle per file: the old one (an earlier version's) is closed
    char why[256];
    FILE *f = scene_open_log_file(scene->real_dir ? scene->real_dir : scene->dir, name, append, why, sizeof why);
    if (!f)
        return luaL_error(L, "springbox.open_log: cannot write '%s' next to the scene: %s", name, why);
    memcpy(log->name, name, len + 1);
    log->file = f;
    log->opened = true;
    log->version = scene->loading ? scene->loading->version : scene->cur.version;
    h->scene = scene;
    h->slot = (int)(log - scene->logs->slot);
    h->generation = log->generation;
    if (!append && lua_istable(L, 2)) { // the header row, through log:row
        lua_settop(L, 3);
        lua_pushcfunction(L, log_row);
        lua_pushvalue(L, 3);
        lua_Integer n = luaL_len(L, 2);
        luaL_checkstack(L, (int)(n < 0 ? 0 : n > 200 ? 200 : n), "too many columns");
        if (n > 200)
            return luaL_argerror(L, 2, "a header has at most 200 columns");
        for (lua_Integer i = 1; i <= n; ++i)
            lua_geti(L, 2, i);
        lua_call(L, (int)n + 1, 0);
    }
    return 1;
}

void scene_log_install(sb_scene *scene)
{
    lua_State *L = scene->L;
    if (luaL_newmetatable(L, LOG_TYPE)) {
        static const luaL_Reg methods[] = {{"write", log_write}, {"row", log_row}, {"close", log_close}, {NULL, NULL}};
        static const luaL_Reg meta[] = {{"__gc", log_gc}, {"__close", log_gc}, {"__tostring", log_tostring}, {NULL, NULL}};
        luaL_setfuncs(L, meta, 0);
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "springbox");
    lua_pushlightuserdata(L, scene);
    lua_pushcclosure(L, open_log, 1);
    lua_setfield(L, -2, "open_log");
    lua_pop(L, 2);
}

void scene_log_close_version(sb_scene *scene, unsigned version)
{
    for (int i = 0; scene->logs && i < SCENE_LOG_MAX; ++i)
        if (scene->logs->slot[i].file && scene->logs->slot[i].version == version)
            slot_close(&scene->logs->slot[i]);
}

void scene_log_keep_only(sb_scene *scene, unsigned version)
{
    for (int i = 0; scene->logs && i < SCENE_LOG_MAX; ++i)
        if (scene->logs->slot[i].file && scene->logs->slot[i].version != version)
            slot_close(&scene->logs->slot[i]);
}

void scene_log_flush(sb_scene *scene)
{
    for (int i = 0; scene->logs && i < SCENE_LOG_MAX; ++i)
        if (scene->logs->slot[i].file)
            fflush(scene->logs->slot[i].file);
}

void scene_log_free(sb_scene *scene)
{
    for (int i = 0; scene->logs && i < SCENE_LOG_MAX; ++i)
        if (scene->logs->slot[i].file)
            slot_close(&scene->logs->slot[i]);
    free(scene->logs);
    scene->logs = NULL;
}
