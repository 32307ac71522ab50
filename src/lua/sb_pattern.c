// springbox: Lua 5.4 string patterns with a time guard (see sb_pattern.h).
//
// Written to the Lua 5.4 reference manual, section 6.4.1 (patterns) and the entries of
// string.find, string.match, string.gmatch and string.gsub in 6.4. The matcher backtracks
// exactly as the manual's semantics require (greedy '*' and '+' try the longest run first,
// '-' the shortest, '?' one then none), so every result and error equals the stock
// library's; tests/lua/pattern_fuzz.lua compares the two on random patterns. What differs is
// that every match counts its steps and calls the guard, which can stop it.
#define _GNU_SOURCE // memmem: a linear-time plain find (a naive one is quadratic)
#include "sb_pattern.h"

#include <ctype.h>
#include <lauxlib.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define ESCAPE '%'
#define SPECIALS "^$*+?.([%-"
#define MAX_DEPTH 200          // nested matching calls before "pattern too complex", as in Lua
#define MAX_CAPTURES 32        // captures per pattern, as in Lua (its LUA_MAXCAPTURES default)
#define OPEN_CAPTURE (-1)      // capture length while its ')' is not reached
#define POSITION_CAPTURE (-2)  // "()": captures a position, not text

typedef struct guard_box {
    sb_pattern_guard guard;
    void *ud;
} guard_box;

typedef struct matcher {
    const char *src, *src_end; // the subject
    const char *pat_end;       // the pattern's end (the pattern may hold zeros)
    lua_State *L;
    const guard_box *box;
    unsigned steps;            // since the guard last ran
    int depth;                 // nested calls left
    int level;                 // captures started
    struct {
        const char *start;
        ptrdiff_t len;
    } capture[MAX_CAPTURES];
} matcher;

static void step(matcher *m)
{
    if (++m->steps >= SB_PATTERN_CHECK_STEPS) {
        m->steps = 0;
        m->box->guard(m->L, m->box->ud);
    }
}

/// Whether byte c is in class letter cl (%a, %d, ...; upper case is the complement). Any
/// other letter stands for itself.
static bool class_has(int c, int cl)
{
    bool in;
    switch (tolower(cl)) {
    case 'a': in = isalpha(c); break;
    case 'c': in = iscntrl(c); break;
    case 'd': in = isdigit(c); break;
    case 'g': in = isgraph(c); break;
    case 'l': in = islower(c); break;
    case 'p': in = ispunct(c); break;
    case 's': in = isspace(c); break;
    case 'u': in = isupper(c); break;
    case 'w': in = isalnum(c); break;
    case 'x': in = isxdigit(c); break;
    default: return cl == c;
    }
    return isupper(cl) ? !in : in;
}

/// Whether byte c is in the set [...] from `p` (at '[') to `close` (at its ']').
static bool set_has(int c, const char *p, const char *close)
{
    bool negated = false;
    p += 1;
    if (*p == '^') {
        negated = true;
        p += 1;
    }
    // the first character after '[' or '[^' is a member even when it is ']'
    while (p < close) {
        if (*p == ESCAPE) {
            if (class_has(c, (unsigned char)p[1]))
                return !negated;
            p += 2;
        } else if (p + 2 < close && p[1] == '-') {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
                return !negated;
            p += 3;
        } else {
            if ((unsigned char)*p == c)
                return !negated;
            p += 1;
        }
    }
    return negated;
}

/// The end of the single-character class that starts at p.
static const char *class_end(matcher *m, const char *p)
{
    char c = *p++;
    if (c == ESCAPE) {
        if (p >= m->pat_end)
            luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (p < m->pat_end && *p == '^')
            p += 1;
        for (;;) { // the first member is taken whatever it is, so "[]]" holds ']'
            if (p >= m->pat_end)
                luaL_error(m->L, "malformed pattern (missing ']')");
            char member = *p++;
            if (member == ESCAPE && p < m->pat_end)
                p += 1; // "%]" is a member, not the end
            if (p < m->pat_end && *p == ']')
                return p + 1;
        }
    }
    return p;
}

/// Whether the class from p to class_end ep matches the subject byte at s.
static bool class_matches(const matcher *m, const char *s, const char *p, const char *ep)
{
    if (s >= m->src_end)
        return false;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return true;
    case ESCAPE: return class_has(c, (unsigned char)p[1]);
    case '[': return set_has(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *match_here(matcher *m, const char *s, const char *p);

/// '*' and '+': the longest run of the class first, then one shorter at a time.
static const char *match_greedy(matcher *m, const char *s, const char *p, const char *ep)
{
    ptrdiff_t run = 0;
    while (class_matches(m, s + run, p, ep)) {
        run += 1;
        step(m);
    }
    for (; run >= 0; --run) {
        const char *end = match_here(m, s + run, ep + 1);
        if (end)
            return end;
    }
    return NULL;
}

/// '-': the shortest run first, one longer at a time.
static const char *match_lazy(matcher *m, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *end = match_here(m, s, ep + 1);
        if (end)
            return end;
        if (!class_matches(m, s, p, ep))
            return NULL;
        s += 1;
        step(m);
    }
}

static const char *open_capture(matcher *m, const char *s, const char *p, ptrdiff_t what)
{
    if (m->level >= MAX_CAPTURES)
        luaL_error(m->L, "too many captures");
    m->capture[m->level].start = s;
    m->capture[m->level].len = what;
    m->level += 1;
    const char *end = match_here(m, s, p);
    if (!end)
        m->level -= 1; // this capture never happened
    return end;
}

static const char *close_capture(matcher *m, const char *s, const char *p)
{
    int open = m->level - 1; // the innermost capture still open
    while (open >= 0 && m->capture[open].len != OPEN_CAPTURE)
        open -= 1;
    if (open < 0)
        luaL_error(m->L, "invalid pattern capture");
    m->capture[open].len = s - m->capture[open].start;
    const char *end = match_here(m, s, p);
    if (!end)
        m->capture[open].len = OPEN_CAPTURE;
    return end;
}

/// Capture index from the digit after '%' (a back reference), checked.
static int capture_index(matcher *m, int digit)
{
    int i = digit - '1';
    if (i < 0 || i >= m->level || m->capture[i].len == OPEN_CAPTURE)
        luaL_error(m->L, "invalid capture index %%%d", i + 1);
    return i;
}

/// %1 .. %9: the same text as that capture, here.
static const char *match_back_reference(matcher *m, const char *s, int digit)
{
    int i = capture_index(m, digit);
    ptrdiff_t len = m->capture[i].len;
    if (len >= 0 && m->src_end - s >= len && memcmp(m->capture[i].start, s, (size_t)len) == 0)
        return s + len;
    return NULL; // a position capture never matches text
}

/// %bxy: from an x to its balancing y.
static const char *match_balance(matcher *m, const char *s, const char *p)
{
    if (p + 1 >= m->pat_end)
        luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->src_end || *s != p[0])
        return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < m->src_end) {
        step(m);
        if (*s == close) {
            if (--depth == 0)
                return s + 1;
        } else if (*s == open) {
            depth += 1;
        }
    }
    return NULL;
}

/// Matches the pattern from p against the subject from s; the end of the match or NULL.
static const char *match_here(matcher *m, const char *s, const char *p)
{
    if (m->depth-- == 0)
        luaL_error(m->L, "pattern too complex");
    step(m);
    for (;;) {
        if (p == m->pat_end)
            break;
        if (*p == '(') {
            if (p + 1 < m->pat_end && p[1] == ')')
                s = open_capture(m, s, p + 2, POSITION_CAPTURE);
            else
                s = open_capture(m, s, p + 1, OPEN_CAPTURE);
            break;
        }
        if (*p == ')') {
            s = close_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->pat_end) { // '$' anchors only at the pattern's end
            s = s == m->src_end ? s : NULL;
            break;
        }
        if (*p == ESCAPE && p + 1 < m->pat_end && p[1] == 'b') {
            s = match_balance(m, s, p + 2);
            if (!s)
                break;
            p += 4;
            continue;
        }
        if (*p == ESCAPE && p + 1 < m->pat_end && p[1] == 'f') { // frontier
            p += 2;
            if (p >= m->pat_end || *p != '[')
                luaL_error(m->L, "missing '[' after '%%f' in pattern");
            const char *ep = class_end(m, p);
            int before = s == m->src ? '\0' : (unsigned char)s[-1];
            int here = s < m->src_end ? (unsigned char)*s : '\0';
            if (set_has(before, p, ep - 1) || !set_has(here, p, ep - 1)) {
                s = NULL;
                break;
            }
            p = ep;
            continue;
        }
        if (*p == ESCAPE && p + 1 < m->pat_end && isdigit((unsigned char)p[1])) {
            s = match_back_reference(m, s, (unsigned char)p[1]);
            if (!s)
                break;
            p += 2;
            continue;
        }
        // a single-character class, maybe with a quantifier
        const char *ep = class_end(m, p);
        char quantifier = ep < m->pat_end ? *ep : '\0';
        if (!class_matches(m, s, p, ep)) {
            if (quantifier == '*' || quantifier == '?' || quantifier == '-') { // zero is enough
                p = ep + 1;
                continue;
            }
            s = NULL;
            break;
        }
        if (quantifier == '?') {
            const char *end = match_here(m, s + 1, ep + 1);
            if (end) {
                s = end;
                break;
            }
            p = ep + 1;
            continue;
        }
        if (quantifier == '+') {
            s = match_greedy(m, s + 1, p, ep);
            break;
        }
        if (quantifier == '*') {
            s = match_greedy(m, s, p, ep);
            break;
        }
        if (quantifier == '-') {
            s = match_lazy(m, s, p, ep);
            break;
        }
        s += 1;
        p = ep;
    }
    m->depth += 1;
    return s;
}

static void matcher_init(matcher *m, lua_State *L, const guard_box *box, const char *src, size_t len,
                         const char *pat, size_t plen)
{
    m->L = L;
    m->box = box;
    m->steps = 0;
    m->src = src;
    m->src_end = src + len;
    m->pat_end = pat + plen;
}

/// Starts a match attempt afresh (captures and depth).
static const char *match_at(matcher *m, const char *s, const char *p)
{
    m->level = 0;
    m->depth = MAX_DEPTH;
    return match_here(m, s, p);
}

/// Pushes capture i of the match s..e; with no captures, capture 0 is the whole match.
/// Returns the length pushed for text, POSITION_CAPTURE for a position.
static ptrdiff_t push_capture(matcher *m, int i, const char *s, const char *e)
{
    if (i >= m->level) {
        if (i != 0)
            luaL_error(m->L, "invalid capture index %%%d", i + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return e - s;
    }
    ptrdiff_t len = m->capture[i].len;
    if (len == OPEN_CAPTURE)
        luaL_error(m->L, "unfinished capture");
    if (len == POSITION_CAPTURE) {
        lua_pushinteger(m->L, (m->capture[i].start - m->src) + 1);
        return POSITION_CAPTURE;
    }
    lua_pushlstring(m->L, m->capture[i].start, (size_t)len);
    return len;
}

/// Pushes every capture (or the whole match when there are none and s is given).
static int push_captures(matcher *m, const char *s, const char *e)
{
    int n = (m->level == 0 && s) ? 1 : m->level;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; ++i)
        push_capture(m, i, s, e);
    return n;
}

/// A 1-based start position (negative counts from the end) as a 0-based offset; may be
/// past the end.
static size_t start_offset(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos - 1;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 0;
    return (size_t)((lua_Integer)len + pos);
}

static bool has_specials(const char *p, size_t len)
{
    for (size_t i = 0; i < len; ++i)
        if (p[i] && strchr(SPECIALS, p[i]))
            return true;
    return false;
}

static const guard_box *box_of(lua_State *L) { return (const guard_box *)lua_touserdata(L, lua_upvalueindex(1)); }

static int find_or_match(lua_State *L, bool find)
{
    size_t len, plen;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *p = luaL_checklstring(L, 2, &plen);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), len);
    if (init > len) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || !has_specials(p, plen))) {
        const char *at = plen == 0 ? s + init : memmem(s + init, len - init, p, plen);
        if (at) {
            lua_pushinteger(L, (at - s) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(at - s) + plen));
            return 2;
        }
        luaL_pushfail(L);
        return 1;
    }
    matcher m;
    bool anchored = plen > 0 && *p == '^';
    if (anchored) {
        p += 1;
        plen -= 1;
    }
    matcher_init(&m, L, box_of(L), s, len, p, plen);
    const char *from = s + init;
    do {
        const char *end = match_at(&m, from, p);
        if (end) {
            if (!find)
                return push_captures(&m, from, end);
            lua_pushinteger(L, (from - s) + 1);
            lua_pushinteger(L, end - s);
            return push_captures(&m, NULL, NULL) + 2;
        }
    } while (from++ < m.src_end && !anchored);
    luaL_pushfail(L);
    return 1;
}

static int pattern_find(lua_State *L) { return find_or_match(L, true); }
static int pattern_match(lua_State *L) { return find_or_match(L, false); }

typedef struct gmatch_state {
    matcher m;
    size_t next;         // where the next search starts (offset; may be len + 1)
    const char *last;    // end of the last match: an empty match right there is skipped
    const char *pattern;
} gmatch_state;

static int gmatch_next(lua_State *L)
{
    gmatch_state *g = (gmatch_state *)lua_touserdata(L, lua_upvalueindex(4));
    g->m.L = L; // the iterator may run in another coroutine than the one that made it
    g->m.steps = 0;
    size_t len = (size_t)(g->m.src_end - g->m.src);
    for (size_t at = g->next; at <= len; ++at) {
        const char *from = g->m.src + at;
        const char *end = match_at(&g->m, from, g->pattern);
        if (end && end != g->last) {
            g->next = (size_t)(end - g->m.src);
            g->last = end;
            return push_captures(&g->m, from, end);
        }
    }
    g->next = len + 1;
    return 0;
}

static int pattern_gmatch(lua_State *L)
{
    size_t len, plen;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *p = luaL_checklstring(L, 2, &plen);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), len);
    lua_settop(L, 2); // the closure keeps both strings alive
    gmatch_state *g = (gmatch_state *)lua_newuserdatauv(L, sizeof *g, 0);
    matcher_init(&g->m, L, box_of(L), s, len, p, plen);
    g->next = init > len ? len + 1 : init;
    g->last = NULL;
    g->pattern = p; // '^' is not an anchor here (the manual): it matches itself
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_pushcclosure(L, gmatch_next, 4); // upvalues: guard box, subject, pattern, state
    return 1;
}

/// Appends a string replacement, with %0 .. %9 and %% expanded.
static void add_replacement_text(matcher *m, luaL_Buffer *b, const char *s, const char *e)
{
    size_t len;
    const char *r = lua_tolstring(m->L, 3, &len);
    const char *r_end = r + len;
    while (r < r_end) {
        const char *esc = memchr(r, ESCAPE, (size_t)(r_end - r));
        if (!esc) {
            luaL_addlstring(b, r, (size_t)(r_end - r));
            break;
        }
        luaL_addlstring(b, r, (size_t)(esc - r));
        char c = esc + 1 < r_end ? esc[1] : '\0';
        if (c == ESCAPE) {
            luaL_addchar(b, ESCAPE);
        } else if (c == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)c)) {
            push_capture(m, c - '1', s, e);
            luaL_addvalue(b); // a position capture is added as its number
        } else {
            luaL_error(m->L, "invalid use of '%c' in replacement string", ESCAPE);
        }
        r = esc + 2;
    }
}

/// Appends the replacement of the match s..e; false when the original text was kept.
static bool add_replacement(matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind)
{
    lua_State *L = m->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        lua_call(L, n, 1);
    } else if (kind == LUA_TTABLE) {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_replacement_text(m, b, s, e);
        return true;
    }
    if (!lua_toboolean(L, -1)) { // nil or false: keep the match as it was
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return false;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return true;
}

static int pattern_gsub(lua_State *L)
{
    size_t len, plen;
    const char *src = luaL_checklstring(L, 1, &len);
    const char *p = luaL_checklstring(L, 2, &plen);
    int kind = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)len + 1);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE, 3,
                     "string/function/table");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    bool anchored = plen > 0 && *p == '^';
    if (anchored) {
        p += 1;
        plen -= 1;
    }
    matcher m;
    matcher_init(&m, L, box_of(L), src, len, p, plen);
    const char *s = src, *last = NULL;
    lua_Integer count = 0;
    bool changed = false;
    while (count < most) {
        const char *end = match_at(&m, s, p);
        if (end && end != last) {
            count += 1;
            changed = add_replacement(&m, &b, s, end, kind) || changed;
            s = last = end;
        } else if (s < m.src_end) {
            luaL_addchar(&b, *s++);
        } else {
            break;
        }
        if (anchored)
            break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, s, (size_t)(m.src_end - s));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, count);
    return 2;
}

void sb_pattern_install(lua_State *L, int idx, sb_pattern_guard guard, void *ud)
{
    idx = lua_absindex(L, idx);
    guard_box *box = (guard_box *)lua_newuserdatauv(L, sizeof *box, 0);
    box->guard = guard;
    box->ud = ud;
    static const luaL_Reg functions[] = {
        {"find", pattern_find}, {"match", pattern_match}, {"gmatch", pattern_gmatch}, {"gsub", pattern_gsub},
        {NULL, NULL},
    };
    for (const luaL_Reg *f = functions; f->name; ++f) {
        lua_pushvalue(L, -1);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, idx, f->name);
    }
    lua_pop(L, 1);
}
