// The files a run writes where the designer named them: see output_file.h.
#define _GNU_SOURCE
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

output_file output_file_none(void)
{
    output_file o;
    memset(&o, 0, sizeof o);
    o.fd = -1;
    return o;
}

// ---------------------------------------------------------------- what a target may be

/// The first bytes of what `kind` writes, and its name for messages.
static bool holds_kind(const unsigned char *head, size_t len, output_kind kind)
{
    switch (kind) {
    case OUTPUT_STATS: // JSON lines, each an object with a frame or an event first
        return (len >= 9 && memcmp(head, "{\"frame\":", 9) == 0) || (len >= 9 && memcmp(head, "{\"event\":", 9) == 0);
    case OUTPUT_PNG: return len >= 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0;
    case OUTPUT_GIF: return len >= 6 && (memcmp(head, "GIF89a", 6) == 0 || memcmp(head, "GIF87a", 6) == 0);
    case OUTPUT_RECORDING: return len >= 16 && memcmp(head, "springbox-input ", 16) == 0;
    }
    return false;
}

static const char *kind_name(output_kind kind)
{
    static const char *const names[] = {"springbox stats (JSON lines)", "a PNG", "a GIF", "a springbox input recording"};
    return names[kind];
}

/// The first bytes of a regular file, read without following a link or blocking; -1 on failure.
static ssize_t read_head(const char *path, unsigned char *head, size_t size)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat st;
    ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, size) : -1;
    close(fd);
    return got;
}

/// `head` as printable text for a message: what the file starts with.
static void printable_head(const unsigned char *head, size_t len, char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < len && used + 1 < size; ++i)
        out[used++] = head[i] >= ' ' && head[i] < 0x7F ? (char)head[i] : '?';
    out[used] = '\0';
}

static bool ends_with_lua(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcasecmp(path + n - 4, ".lua") == 0;
}

bool output_file_check(const char *path, output_kind kind, char *why, size_t n)
{
    if (!path[0]) {
        snprintf(why, n, "no file name");
        return false;
    }
    if (ends_with_lua(path)) {
        snprintf(why, n, "a .lua file is a scene or a module, never %s", kind_name(kind));
        return false;
    }
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? true : (snprintf(why, n, "%s", strerror(errno)), false);
    if (S_ISLNK(st.st_mode)) {
        struct stat to;
        // a link to a stream (/dev/stdout, a pipe) is written as the stream; a link to a file is refused
        if (stat(path, &to) == 0 && (S_ISFIFO(to.st_mode) || S_ISCHR(to.st_mode)))
            return true;
        snprintf(why, n, "a symbolic link: springbox writes no file through a link");
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, n, "a folder");
        return false;
    }
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
        return true;
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, n, "not a regular file (a socket or a block device)");
        return false;
    }
    if (st.st_size == 0)
        return true; // nothing to lose
    unsigned char head[32];
    ssize_t len = read_head(path, head, sizeof head);
    if (len < 0) {
        snprintf(why, n, "cannot read what it holds: %s", strerror(errno));
        return false;
    }
    if (!holds_kind(head, (size_t)len, kind)) {
        char start[40];
        printable_head(head, (size_t)len < 24 ? (size_t)len : 24, start, sizeof start);
        snprintf(why, n, "it exists and is not %s (it starts '%s'): springbox replaces only what it wrote", kind_name(kind),
                 start);
        return false;
    }
    return true;
}

/// The folder of `path` resolved, then its last name: one spelling for one place.
static bool canonical_name(const char *path, char *out, size_t size)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return false;
    return snprintf(out, size, "%s/%s", real, base) < (int)size;
}

bool output_file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    if (!canonical_name(a, ca, sizeof ca) || !canonical_name(b, cb, sizeof cb))
        return strcmp(a, b) == 0;
    return strcmp(ca, cb) == 0;
}

// ---------------------------------------------------------------- temporaries and signals

/// The temporaries not yet placed, for the signal handler: fixed storage, no allocation.
enum { TEMP_SLOTS = 8 };
static char temp_paths[TEMP_SLOTS][4096];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];

static void temp_remember(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (!temp_used[i]) {
            snprintf(temp_paths[i], sizeof temp_paths[i], "%s", path);
            temp_used[i] = 1;
            return;
        }
}

static void temp_forget(const char *path)
{
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (temp_used[i] && strcmp(temp_paths[i], path) == 0)
            temp_used[i] = 0;
}

static void on_signal(int sig)
{
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (temp_used[i])
            unlink(temp_paths[i]); // async-signal-safe
    signal(sig, SIG_DFL);
    raise(sig);
}

void output_file_clean_on_signals(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
}

void output_file_signals_to_default(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}

// ---------------------------------------------------------------- writing

/// Opens a FIFO or a device for writing without waiting for a reader; -1 with the reason.
static int open_stream(const char *path, char *why, size_t n)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        snprintf(why, n, "%s", errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) { // swapped since the look
        snprintf(why, n, "it changed while it was opened");
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); // a reader is there: writes may wait for it
    return fd;
}

/// Makes the temporary "<folder>/.<name>.springbox-XXXXXX" beside `path`, with the mode the
/// target has (or a new file's); -1 with the reason.
static int open_temp(const char *path, char *temp, size_t size, char *why, size_t n)
{
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path) + 1 : 0;
    if (snprintf(temp, size, "%.*s.%s.springbox-XXXXXX", dir_len, path, slash ? slash + 1 : path) >= (int)size) {
        snprintf(why, n, "the name is too long");
        return -1;
    }
    int fd = mkostemp(temp, O_CLOEXEC); // O_EXCL: never an existing name, never through a link
    if (fd < 0) {
        snprintf(why, n, "%s", strerror(errno));
        temp[0] = '\0';
        return -1;
    }
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = (0666 & ~mask) | 0600; // its owner reads what it wrote (emscripten's umask reads 0777)
    }
    (void)fchmod(fd, mode); // a folder that keeps no modes (a FAT stick) still takes the file
    temp_remember(temp);
    return fd;
}

bool output_file_open(output_file *o, const char *option, const char *path, output_kind kind, char *why, size_t n)
{
    *o = output_file_none();
    o->option = option;
    o->path = path;
    o->kind = kind;
    if (!output_file_check(path, kind, why, n))
        return false;
    struct stat st;
    if (stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        o->fd = open_stream(path, why, n);
        o->placed = o->fd >= 0;
        return o->fd >= 0;
    }
    o->fd = open_temp(path, o->temp, sizeof o->temp, why, n);
    return o->fd >= 0;
}

int output_file_release(output_file *o)
{
    int fd = o->fd;
    o->fd = -1;
    return fd;
}

bool output_file_place(output_file *o, const sb_scene *scene, char *why, size_t n)
{
    if (o->placed)
        return true;
    if (!o->temp[0]) {
        snprintf(why, n, "not open");
        return false;
    }
    if (!output_file_check(o->path, o->kind, why, n))
        return false;
    for (int i = 0; scene && i < sb_scene_file_count(scene); ++i)
        if (output_file_same(o->path, sb_scene_file(scene, i))) {
            snprintf(why, n, "it is %s, which the scene reads", i == 0 ? "the scene file" : "a module");
            return false;
        }
    if (rename(o->temp, o->path) != 0) {
        snprintf(why, n, "%s", strerror(errno));
        return false;
    }
    temp_forget(o->temp);
    o->temp[0] = '\0';
    o->placed = true;
    return true;
}

void output_file_discard(output_file *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (!o->placed && o->temp[0]) {
        unlink(o->temp);
        temp_forget(o->temp);
        o->temp[0] = '\0';
    }
}
