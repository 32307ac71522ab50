// The files a run writes where the designer named them (--stats, --screenshot, --gif, --record's
// frames, --record-input). None replaces a file before the run has earned it: each is written to
// a temporary file beside its target, made exclusively, and renamed over the target when it is
// whole (a PNG, a GIF, a recording) or once the scene has loaded (the stats, whose lines go on
// growing in the same file). A target springbox did not write (a scene, a module, notes), one of
// the run's inputs, a symbolic link, a folder and a FIFO without a reader are refused before
// anything runs; a FIFO with a reader and a character device (/dev/null, /dev/full) are written
// in place, since nothing there can be lost.
#ifndef SB_OUTPUT_FILE_H
#define SB_OUTPUT_FILE_H

#include "sb_scene.h"

#include <stdbool.h>
#include <stddef.h>

/// What an output holds: an existing file is replaced only if it holds the same.
typedef enum output_kind { OUTPUT_STATS, OUTPUT_PNG, OUTPUT_GIF, OUTPUT_RECORDING } output_kind;

typedef struct output_file {
    const char *option; ///< the option that names it ("--stats"), for messages
    const char *path;   ///< the target as given
    output_kind kind;
    int fd;             ///< open for writing until released or closed; -1 after
    bool placed;        ///< the target is the file being written (renamed over, or written in place)
    char temp[4096];    ///< the temporary beside the target until it is placed
} output_file;

/// An output that is not open (fd -1), so that output_file_discard is safe on it.
output_file output_file_none(void);
/// Whether `path` may be the target of `option`, which writes `kind`; false with the reason in
/// `why` (the path and the option are the caller's to name).
bool output_file_check(const char *path, output_kind kind, char *why, size_t n);
/// True when `a` and `b` name one file: the same file on disk, or, where either does not exist
/// yet, the same name in the same folder once links in the folders are resolved.
bool output_file_same(const char *a, const char *b);
/// Checks `path` and opens it for writing as `option`: a temporary beside it, or the FIFO or
/// device itself. False with the reason in `why`; `o` is then not open.
bool output_file_open(output_file *o, const char *option, const char *path, output_kind kind, char *why, size_t n);
/// The descriptor, now the caller's to close (fdopen, a PNG or GIF writer); -1 when not open.
int output_file_release(output_file *o);
/// Renames the temporary over the target, checking the target again (it may have become a link,
/// another program's file, or, once `scene` has loaded, one of the scene's files). True when
/// placed (or written in place); false with the reason, the target untouched.
bool output_file_place(output_file *o, const sb_scene *scene, char *why, size_t n);
/// Closes what is still open and removes a temporary not placed; the target is as it was.
void output_file_discard(output_file *o);
/// Removes every temporary not yet placed when the process is stopped by SIGINT, SIGTERM or
/// SIGHUP, until output_file_signals_to_default.
void output_file_clean_on_signals(void);
/// Gives the three signals back to their default action, so that a window's library can take
/// them and end the run through its own loop (which removes the temporaries itself).
void output_file_signals_to_default(void);

#endif
