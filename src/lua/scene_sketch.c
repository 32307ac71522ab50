// Draw mode's writes (the window's D): each drawn thing is one line of Lua in a block the scene file marks, just
// before the file's last `return`, written with the scene's own world variable; and taken back
// out again, the last first. The file is written as W writes it (scene_replace_in_file: atomic,
// only while it is plain text and still what the scene loaded), and only the scene's own file.
#include "scene_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char drawn_begin[] = "-- drawn in the window (draw mode: D); edit freely\n";
static const char drawn_end[] = "-- end of drawn\n";

/// The identifier at s (letters, digits, underscores, not starting with a digit): its length.
static size_t identifier(const char *s)
{
    size_t n = 0;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n += 1;
    return n;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s += 1;
    return s;
}

/// The scene's world variable: the first line `local NAME = MODULE.world{` (or `(`), into `name`.
static bool world_variable(const char *text, char *name, size_t size)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *s = skip_blanks(line);
        if (strncmp(s, "local", 5) != 0 || (s[5] != ' ' && s[5] != '\t'))
            continue;
        s = skip_blanks(s + 5);
        const size_t n = identifier(s);
        if (n == 0 || n >= size)
            continue;
        const char *var = s;
        s = skip_blanks(s + n);
        if (*s != '=')
            continue;
        s = skip_blanks(s + 1);
        const size_t m = identifier(s);
        if (m == 0 || strncmp(s + m, ".world", 6) != 0)
            continue;
        s = skip_blanks(s + m + 6);
        if (*s != '{' && *s != '(')
            continue;
        memcpy(name, var, n);
        name[n] = '\0';
        return true;
    }
    return false;
}

/// Where the drawn block's end marker starts, or where a new block goes: the start of the last
/// line that begins with `return`. *has_block says which; false when there is neither.
static bool insertion_point(const char *text, size_t len, size_t *at, bool *has_block)
{
    const char *begin = strstr(text, drawn_begin);
    const char *end = begin ? strstr(begin, drawn_end) : NULL;
    if (begin && end) {
        *at = (size_t)(end - text);
        *has_block = true;
        return true;
    }
    *has_block = false;
    bool found = false;
    for (size_t i = 0; i < len;) {
        if (strncmp(text + i, "return", 6) == 0 && !isalnum((unsigned char)text[i + 6]) && text[i + 6] != '_') {
            *at = i;
            found = true;
        }
        const char *next = memchr(text + i, '\n', len - i);
        i = next ? (size_t)(next - text) + 1 : len;
    }
    return found;
}

typedef struct sketch_job {
    const char *call;       // the line, %W for the world variable, %P<slot>; for a built particle
    bool take_back;         // or: the last drawn line out (into `taken`)
    char *taken;
    size_t taken_size;
    char *message;
    size_t message_size;
    bool ok;
} sketch_job;

/// Where particle `slot` of the scene's first world was built, as the reload keeps it.
static bool built_at(const sb_scene *scene, unsigned long slot, sb_vec2 *at)
{
    if (!scene->shapes || scene->cur.world_count < 1)
        return false;
    const world_shape *s = &scene->shapes[0];
    for (int i = 0; i < s->particles; ++i)
        if (s->p_index[i] == slot) {
            *at = s->start[i];
            return true;
        }
    return false;
}

/// The call with the world variable and the particles put in; false (said) where a particle is
/// not one the scene built.
static bool expand(const sb_scene *scene, const char *call, const char *var, char *out, size_t size, char *message,
                   size_t message_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *s = call; *s && used + 1 < size;) {
        if (s[0] == '%' && s[1] == 'W') {
            used += (size_t)snprintf(out + used, size - used, "%s", var);
            s += 2;
        } else if (s[0] == '%' && s[1] == 'P') {
            char *end;
            const unsigned long slot = strtoul(s + 2, &end, 10);
            sb_vec2 at;
            if (*end != ';' || !built_at(scene, slot, &at)) {
                snprintf(message, message_size, "draw mode cannot name that particle: the scene did not build it");
                return false;
            }
            char x[32], y[32];
            sb_scene_number_text(x, sizeof x, at.x, 3); // millimetres at most
            sb_scene_number_text(y, sizeof y, at.y, 3);
            used += (size_t)snprintf(out + used, size - used, "%s:pick(%s, %s)", var, x, y);
            s = end + 1;
        } else {
            out[used++] = *s++;
            out[used] = '\0';
        }
    }
    if (used + 1 >= size) {
        snprintf(message, message_size, "draw mode's line is too long to write");
        return false;
    }
    return true;
}

static void sketch_body(sb_scene *scene, void *args)
{
    sketch_job *job = (sketch_job *)args;
    lua_State *L = scene->L;
    lua_getfield(L, LUA_REGISTRYINDEX, "springbox.sources");
    lua_pushfstring(L, "@%s", scene->path);
    size_t len = 0;
    const char *text = lua_rawget(L, -2) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    char var[64], why[512] = "", line[8192];
    size_t at = 0;
    bool has_block = false;
    if (!text) {
        snprintf(job->message, job->message_size, "draw mode cannot edit %s: its text as loaded is not known", scene->path);
    } else if (!world_variable(text, var, sizeof var)) {
        snprintf(job->message, job->message_size, "draw mode cannot edit %s: it has no line `local w = sb.world{...}` "
                 "to draw into", scene->path);
    } else if (!insertion_point(text, len, &at, &has_block)) {
        snprintf(job->message, job->message_size, "draw mode cannot edit %s: it has no line starting with `return` "
                 "to draw before", scene->path);
    } else if (job->take_back) {
        // the last line of the block: between the begin marker's end and the end marker
        const size_t first = (size_t)(strstr(text, drawn_begin) - text) + sizeof drawn_begin - 1;
        if (!has_block || at <= first) {
            snprintf(job->message, job->message_size, "nothing drawn to take back in %s", scene->path);
        } else {
            size_t start = at - 1; // the newline ending the last drawn line
            while (start > first && text[start - 1] != '\n')
                start -= 1;
            snprintf(job->taken, job->taken_size, "%.*s", (int)(at - 1 - start), text + start);
            scene_edit edit = {start, at - start, ""};
            job->ok = scene_replace_in_file(scene->path, &edit, 1, text, len, why, sizeof why);
        }
    } else if (expand(scene, job->call, var, line, sizeof line, job->message, job->message_size)) {
        char *insert = malloc(strlen(line) + sizeof drawn_begin + sizeof drawn_end + 4);
        if (!insert) {
            snprintf(job->message, job->message_size, "out of memory");
        } else {
            if (has_block) // the end marker stays where it is
                sprintf(insert, "%s\n", line);
            else // a new block, and a blank line before the return
                sprintf(insert, "%s%s\n%s\n", drawn_begin, line, drawn_end);
            scene_edit edit = {at, 0, insert};
            job->ok = scene_replace_in_file(scene->path, &edit, 1, text, len, why, sizeof why);
            snprintf(job->taken, job->taken_size, "%s", line);
            free(insert);
        }
    }
    if (!job->ok && why[0])
        snprintf(job->message, job->message_size, "draw mode did not write %s: %s", scene->path, why);
    scene_clean_text(job->message);
    lua_pop(L, 2);
}

bool sb_scene_sketch_write(sb_scene *scene, const char *call, char *written, size_t written_size, char *message, size_t message_size)
{
    sketch_job job = {call, false, written, written_size, message, message_size, false};
    message[0] = written[0] = '\0';
    return scene_host_call(scene, sketch_body, &job, message, message_size) && job.ok;
}

bool sb_scene_sketch_take_back(sb_scene *scene, char *taken, size_t taken_size, char *message, size_t message_size)
{
    sketch_job job = {NULL, true, taken, taken_size, message, message_size, false};
    message[0] = taken[0] = '\0';
    return scene_host_call(scene, sketch_body, &job, message, message_size) && job.ok;
}
