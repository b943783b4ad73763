/*
 * options.h - command-line options of rocescope.
 */
#ifndef ROCE_OPTIONS_H
#define ROCE_OPTIONS_H

#include <stdint.h>

#include "roce_engine.h"

enum roce_cli_mode {
    ROCE_MODE_TEXT,
    ROCE_MODE_JSON,
    ROCE_MODE_EVENTS
};

struct roce_cli_options {
    struct roce_config cfg;
    enum roce_cli_mode mode;
    const char *output; /* -o PATH, NULL for stdout */
    char **files;
    int n_files;
    unsigned top; /* flows and episodes listed in the text report */
    int64_t interval_ns; /* --interval: PFC storm window (and live reporting interval) */
};

enum roce_cli_parse_result {
    ROCE_CLI_RUN = 0,
    ROCE_CLI_EXIT_OK = 1,   /* --help or --version printed */
    ROCE_CLI_EXIT_USAGE = 2 /* bad usage, message printed */
};

/* Parse argv into o (defaults first). Messages go to stderr (stdout for
 * --help and --version). */
enum roce_cli_parse_result roce_cli_parse(int argc, char **argv, struct roce_cli_options *o);

/* Strict unsigned decimal in [min, max]: no sign, no blanks, no garbage, no
 * overflow. 0, or -1 (then *out is untouched). */
int roce_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
