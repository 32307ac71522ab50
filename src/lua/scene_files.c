// The files the scene host opens for a scene: its source, its modules, its logs and the file W
// writes. Each is a regular file, and for a sandboxed scene one inside the scene's folder once
// links are resolved: never a FIFO or a device (a read would block or never end), never a link
// or a second name out of the folder. Opening is checked on the descriptor itself
// (fstat after open), so a file swapped between the look and the open is caught too.
#define _GNU_SOURCE
#include "scene_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *scene_real_dir(const char *dir)
{
    return realpath(dir, NULL);
}

/// True when `real` (a resolved path) is `dir` or lies below it.
static bool inside(const char *dir, const char *real)
{
    size_t n = strlen(dir);
    if (strncmp(dir, real, n) != 0)
        return false;
    return real[n] == '/' || (n == 1 && dir[0] == '/');
}

/// The resolved path of an open descriptor, through /proc (the file it is, not the name it had).
static bool descriptor_path(int fd, char *out, size_t size)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    out[n] = '\0';
    return true;
}

/// Checks an open descriptor: a regular file, inside `real_dir` when one is given, with no other
/// name (a hard link made inside the folder to a file outside it is that file).
static bool descriptor_ok(int fd, const char *real_dir, bool writing, char *why, size_t why_size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a regular file (a FIFO, a device or a folder)");
        return false;
    }
    if (real_dir) {
        char real[PATH_MAX];
        if (!descriptor_path(fd, real, sizeof real) || !inside(real_dir, real)) {
            snprintf(why, why_size, "outside the scene's folder %s (a link out of it?)", real_dir);
            return false;
        }
        if (writing && st.st_nlink > 1) {
            snprintf(why, why_size, "it has other names (hard links), which may lie outside the scene's folder");
            return false;
        }
    }
    return true;
}

bool scene_read_file(const char *real_dir, const char *path, size_t max_bytes, char **text, size_t *len, char *why,
                     size_t why_size)
{
    *text = NULL;
    *len = 0;
    struct stat st;
    // A look before the open: opening a FIFO or a device can itself block or act.
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a regular file (a FIFO, a device or a folder)");
        return false;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return false;
    }
    if (!descriptor_ok(fd, real_dir, false, why, why_size) || fstat(fd, &st) != 0) {
        close(fd);
        return false;
    }
    if ((unsigned long long)st.st_size > max_bytes) {
        snprintf(why, why_size, "%lld bytes, more than the %zu a scene file may have", (long long)st.st_size, max_bytes);
        close(fd);
        return false;
    }
    size_t cap = (size_t)st.st_size, used = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        snprintf(why, why_size, "not enough memory");
        close(fd);
        return false;
    }
    for (;;) { // to the end, which may have moved since fstat (an editor still writing): never past the cap
        if (used == cap) {
            char probe;
            ssize_t more = read(fd, &probe, 1);
            if (more <= 0)
                break;
            if (cap >= max_bytes) {
                snprintf(why, why_size, "it grew past the %zu bytes a scene file may have", max_bytes);
                free(buf);
                close(fd);
                return false;
            }
            size_t next = cap * 2 + 4096 < max_bytes ? cap * 2 + 4096 : max_bytes;
            char *grown = realloc(buf, next + 1);
            if (!grown) {
                free(buf);
                close(fd);
                snprintf(why, why_size, "not enough memory");
                return false;
            }
            buf = grown;
            cap = next;
            buf[used++] = probe;
            continue;
        }
        ssize_t n = read(fd, buf + used, cap - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    close(fd);
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return true;
}

FILE *scene_open_log_file(const char *real_dir, const char *name, bool append, char *why, size_t why_size)
{
    why[0] = '\0';
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", real_dir, name) >= sizeof path) {
        snprintf(why, why_size, "the path is too long");
        return NULL;
    }
    // O_NOFOLLOW: a link in the log's place is refused, wherever it points. No O_TRUNC before
    // the checks: a refused file must stay as it was.
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (append ? O_APPEND : 0), 0644);
    if (fd < 0) {
        snprintf(why, why_size, "%s", errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return NULL;
    }
    if (!descriptor_ok(fd, real_dir, true, why, why_size) || (!append && ftruncate(fd, 0) != 0)) {
        if (!why[0])
            snprintf(why, why_size, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, append ? "a" : "w");
    if (!f) {
        snprintf(why, why_size, "%s", strerror(errno));
        close(fd);
    }
    return f;
}

/// The length of the printable UTF-8 character at text[i] (1 to 4), or 0 for a byte that does not
/// start one: a control byte (but tab and newline, and with `file_breaks` CR and form feed too),
/// DEL, a stray continuation, an overlong two-byte form, or a sequence cut short.
static size_t printable_char(const char *text, size_t i, size_t len, bool file_breaks)
{
    unsigned char c = (unsigned char)text[i];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool control = c < 0x20 && c != '\t' && c != '\n' && !(file_breaks && (c == '\r' || c == '\f'));
    if (n == 0 || i + n > len || control || c == 0x7F || (n == 2 && c < 0xC2))
        return 0;
    for (size_t k = 1; k < n; ++k)
        if (((unsigned char)text[i + k] & 0xC0) != 0x80)
            return 0;
    return n;
}

/// True when `text` is plain UTF-8 text; else the first bad byte is at *bad.
static bool plain_text(const char *text, size_t len, size_t *bad)
{
    for (size_t i = 0, n; i < len; i += n)
        if ((n = printable_char(text, i, len, true)) == 0) {
            *bad = i;
            return false;
        }
    return true;
}

void sb_scene_number_text(char *out, size_t size, double v, int decimals)
{
    snprintf(out, size, "%.*f", decimals, v);
    if (strchr(out, '.')) {
        char *end = out + strlen(out) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
    }
    if (strcmp(out, "-0") == 0)
        snprintf(out, size, "0");
}

bool scene_replace_in_file(const char *path, const scene_edit *edits, int count, const char *expected_text,
                           size_t expected_len, char *why, size_t why_size)
{
    char *text;
    size_t len;
    if (!scene_read_file(NULL, path, (size_t)64 << 20, &text, &len, why, why_size))
        return false;
    size_t bad;
    if (!plain_text(text, len, &bad)) {
        snprintf(why, why_size, "it is not plain UTF-8 text (byte %zu is 0x%02x); nothing was written, so nothing is lost",
                 bad + 1, (unsigned char)text[bad]);
        free(text);
        return false;
    }
    if (len != expected_len || memcmp(text, expected_text, len) != 0) {
        snprintf(why, why_size, "it changed on disk since the scene loaded it; save it (the scene reloads), then try again");
        free(text);
        return false;
    }
    size_t out_len = len;
    for (int i = 0; i < count; ++i) { // in order, apart, inside the text
        if (edits[i].offset + edits[i].length > len || (i > 0 && edits[i].offset < edits[i - 1].offset + edits[i - 1].length)) {
            snprintf(why, why_size, "the places to write overlap or lie past its end");
            free(text);
            return false;
        }
        out_len = out_len - edits[i].length + strlen(edits[i].text);
    }
    char *out = malloc(out_len + 1);
    if (!out) {
        free(text);
        snprintf(why, why_size, "not enough memory");
        return false;
    }
    size_t from = 0, to = 0;
    for (int i = 0; i < count; ++i) {
        memcpy(out + to, text + from, edits[i].offset - from);
        to += edits[i].offset - from;
        size_t n = strlen(edits[i].text);
        memcpy(out + to, edits[i].text, n);
        to += n;
        from = edits[i].offset + edits[i].length;
    }
    memcpy(out + to, text + from, len - from);
    free(text);
    // Atomically: a temporary file beside the real one (links resolved), then rename over it, so
    // a crash or a full disk leaves the old file or the new one, never half of one.
    char *real = realpath(path, NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        free(real);
        free(out);
        return false;
    }
    size_t tn = strlen(real) + 16;
    char *tmp = malloc(tn);
    int fd = -1;
    if (tmp) {
        snprintf(tmp, tn, "%s.w-XXXXXX", real);
        fd = mkstemp(tmp);
    }
    bool ok = fd >= 0;
    if (!ok)
        snprintf(why, why_size, "cannot create a temporary file beside it: %s", strerror(errno));
    for (size_t done = 0; ok && done < out_len;) {
        ssize_t n = write(fd, out + done, out_len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, why_size, "cannot write: %s", strerror(errno));
            ok = false;
            break;
        }
        done += (size_t)n;
    }
    if (ok && (fchmod(fd, st.st_mode & 07777) != 0 || fsync(fd) != 0)) {
        snprintf(why, why_size, "cannot write: %s", strerror(errno));
        ok = false;
    }
    if (fd >= 0 && close(fd) != 0 && ok) {
        snprintf(why, why_size, "cannot write: %s", strerror(errno));
        ok = false;
    }
    if (ok && rename(tmp, real) != 0) {
        snprintf(why, why_size, "cannot replace it: %s", strerror(errno));
        ok = false;
    }
    if (!ok && fd >= 0)
        unlink(tmp);
    free(tmp);
    free(real);
    free(out);
    return ok;
}

void scene_clean_text(char *text)
{
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        size_t n = printable_char(text, i, len, false);
        if (n == 0)
            text[i++] = '?'; // one byte at a time: what follows may be good again
        else
            i += n;
    }
}
