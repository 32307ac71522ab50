// The command line: one table of the options gives the parser, --help, and the table in
// docs/running.md (--options prints it; a test holds the page to it).
#ifndef SB_OPTIONS_H
#define SB_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/// What the command line asked for.
typedef struct cli {
    const char *scene_file, *scene_name, *method_name, *stats_path;
    const char *screenshot, *record_dir, *gif, *record_input, *replay_path;
    int size, frames, substeps, iterations, threads;
    int win_w, win_h;
    double view[3];
    bool realtime, trusted, headless, view_given, frames_given;
} cli;

/// cli_parse's answer when the run goes on (anything else is the exit status).
#define CLI_GO_ON (-1)

/// The defaults: no scene, 300 frames, a 1280 x 720 window, the machine's threads.
cli cli_defaults(void);
/// Reads the arguments into c. CLI_GO_ON, or the exit status: 0 after --help, --version, --keys,
/// --list or --options (printed), 2 after a bad argument (said on stderr, naming it and its value).
int cli_parse(cli *c, int argc, char **argv);
/// The usage text, from the table.
void cli_usage(FILE *out);
/// The options as a Markdown table, as docs/running.md has it.
void cli_print_markdown(FILE *out);
/// The methods' names from the core's registry, joined by '|'.
const char *cli_method_names(void);

#endif
