// What the scene host tests share: a scratch folder for scene files, writing a scene, opening
// it with the host and running frames.
#ifndef SB_SCENE_HELPERS_H
#define SB_SCENE_HELPERS_H

#include "sb_constraint.h"
#include "sb_scene.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "ensure.h"

/// The scratch folder of this test program (main makes it and removes it).
static char dir[256];

static inline const char *scene_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static inline void write_file(const char *name, const char *text)
{
    FILE *f = fopen(scene_path(name), "w");
    fputs(text, f);
    fclose(f);
}

static inline sb_scene *open_scene(const char *name, double ramp)
{
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path(name);
    o.ramp_seconds = ramp;
    char error[2048];
    sb_scene *s = sb_scene_open(&o, error, sizeof error);
    if (!s)
        fprintf(stderr, "open failed: %s\n", error);
    return s;
}

static inline void run_frames(sb_scene *s, int n)
{
    char error[512];
    for (int i = 0; i < n; ++i)
        sb_scene_frame(s, error, sizeof error);
}

/// Opens `text` as a scene; NULL (with the error in `error`) if it does not load.
static inline sb_scene *open_text(const char *name, const char *text, char *error, size_t n)
{
    write_file(name, text);
    sb_scene_options o = sb_default_scene_options();
    o.path = scene_path(name);
    return sb_scene_open(&o, error, n);
}

static inline bool plot_value(sb_scene *s, const char *name, double *v)
{
    char n[64];
    for (int i = 0; i < sb_scene_plot_count(s); ++i)
        if (sb_scene_plot(s, i, n, sizeof n, v) && strcmp(n, name) == 0)
            return true;
    return false;
}

/// Runs the tests with `dir`, a scratch folder of their own, removed afterwards.
static inline int run_in_scratch_folder(int argc, char **argv, const test_entry *tests, size_t count)
{
    snprintf(dir, sizeof dir, "/tmp/springbox-scene-test-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    int status = run_tests(argc, argv, tests, count);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return status;
}

#endif
