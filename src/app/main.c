// springbox: headless runner for the built-in scenes. Prints one summary line per
// second of simulated time and, with --stats, writes one JSON object per frame.
#include "sb_samples.h"
#include "sb_world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: springbox [--headless] [--scene NAME] [--size N] [--method M] [--frames N]\n"
            "                 [--substeps N] [--iterations N] [--stats FILE] [--list]\n"
            "  --scene NAME   built-in scene (default wrecking_ball); --list shows them\n"
            "  --method M     force|impulse|sequential|soft|verlet|xpbd (default soft)\n"
            "  --frames N     frames of 1/60 s to run (default 300)\n"
            "  --stats FILE   write per-frame diagnostics as JSON lines\n");
}

static bool parse_int(const char *text, int lo, int hi, int *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!text[0] || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static void write_stats_line(FILE *f, const sb_world *w)
{
    const sb_stats *st = sb_world_get_stats(w);
    fprintf(f,
            "{\"frame\":%llu,\"time\":%.6f,\"kinetic\":%.9g,\"potential\":%.9g,\"max_stretch\":%.9g,"
            "\"contacts\":%d,\"step_ms\":%.4f,\"particles\":%d,\"springs\":%d,\"unstable_springs\":%d,"
            "\"halted\":%s}\n",
            (unsigned long long)st->steps, st->time, st->kinetic_energy, st->potential_energy, st->max_stretch,
            st->contacts, st->step_ms, st->particles, st->springs, st->unstable_springs,
            st->halted ? "true" : "false");
}

int main(int argc, char **argv)
{
    const char *scene_name = "wrecking_ball", *stats_path = NULL, *method_name = NULL;
    int size = -1, frames = 300, substeps = -1, iterations = -1;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(arg, "--headless") == 0) {
            continue;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--list") == 0) {
            int n;
            const sb_sample *all = sb_samples(&n);
            for (int k = 0; k < n; ++k)
                printf("%-14s %s\n", all[k].name, all[k].description);
            return 0;
        } else if (!value) {
            ok = false;
        } else if (strcmp(arg, "--scene") == 0) {
            scene_name = value;
        } else if (strcmp(arg, "--method") == 0) {
            method_name = value;
        } else if (strcmp(arg, "--stats") == 0) {
            stats_path = value;
        } else if (strcmp(arg, "--size") == 0) {
            ok = parse_int(value, 1, 1000000, &size);
        } else if (strcmp(arg, "--frames") == 0) {
            ok = parse_int(value, 0, 100000000, &frames);
        } else if (strcmp(arg, "--substeps") == 0) {
            ok = parse_int(value, 1, 1000, &substeps);
        } else if (strcmp(arg, "--iterations") == 0) {
            ok = parse_int(value, 1, 1000, &iterations);
        } else {
            fprintf(stderr, "springbox: unknown option '%s'\n", arg);
            usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "springbox: bad value for %s: '%s'\n", arg, value ? value : "(missing)");
            return 2;
        }
        i += 1;
    }

    const sb_sample *sample = sb_sample_find(scene_name);
    if (!sample) {
        fprintf(stderr, "springbox: unknown scene '%s' (try --list)\n", scene_name);
        return 2;
    }
    sb_world_def def = sb_default_world_def();
    if (method_name && !sb_method_from_name(method_name, &def.method)) {
        fprintf(stderr, "springbox: unknown method '%s' (force|impulse|sequential|soft|verlet|xpbd)\n", method_name);
        return 2;
    }
    if (substeps > 0)
        def.substeps = substeps;
    if (iterations > 0)
        def.iterations = iterations;
    sb_world *world = sample->build(&def, size > 0 ? size : sample->default_size);
    if (!world) {
        fprintf(stderr, "springbox: could not build scene '%s'\n", scene_name);
        return 1;
    }
    FILE *stats = NULL;
    if (stats_path && !(stats = fopen(stats_path, "w"))) {
        fprintf(stderr, "springbox: cannot write stats file '%s'\n", stats_path);
        sb_world_destroy(world);
        return 1;
    }

    printf("springbox: scene %s, method %s, %d sub-steps x %d iterations, %d particles, %d springs\n",
           sample->name, sb_method_name(def.method), def.substeps, def.iterations,
           sb_world_particle_count(world), sb_world_spring_count(world));
    printf("%8s %12s %12s %12s %9s %9s\n", "time s", "kinetic J", "potential J", "max stretch", "contacts", "step ms");
    int status = 0;
    double worst_stretch = 0.0, total_ms = 0.0;
    for (int f = 1; f <= frames; ++f) {
        sb_status st = sb_world_step(world);
        const sb_stats *s = sb_world_get_stats(world);
        if (stats)
            write_stats_line(stats, world);
        if (st == SB_ERR_HALTED) {
            fprintf(stderr, "springbox: %s\n", s->message);
            status = 3;
            break;
        }
        worst_stretch = s->max_stretch > worst_stretch ? s->max_stretch : worst_stretch;
        total_ms += s->step_ms;
        if (f % 60 == 0 || f == frames)
            printf("%8.2f %12.4f %12.4f %11.4f%% %9d %9.3f\n", s->time, s->kinetic_energy, s->potential_energy,
                   100.0 * s->max_stretch, s->contacts, s->step_ms);
        if (s->unstable_springs > 0 && f == 1)
            printf("warning: %d springs exceed the symplectic Euler limit (worst omega*h %.3f > %.3f)\n",
                   s->unstable_springs, s->worst_omega_h, s->worst_omega_h_limit);
    }
    if (status == 0 && frames > 0)
        printf("done: %d frames, largest stretch %.4f%%, mean step %.3f ms\n", frames, 100.0 * worst_stretch,
               total_ms / frames);
    if (stats)
        fclose(stats);
    sb_world_destroy(world);
    return status;
}
