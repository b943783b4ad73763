/*
 * cli_options.h - rocescope's command line: what it holds (struct
 * roce_cli_options, built on the options model of common/options.h) and
 * how every command parses it: one getopt loop (roce_cli_getopt) that takes
 * the output options of the writers a command runs (options_output.c) and
 * hands it the rest; the analysis' options (options.c), the live monitor's
 * (options_live.c), and the values every command shares (options_values.c).
 */
#ifndef ROCE_CLI_OPTIONS_H
#define ROCE_CLI_OPTIONS_H

#include <getopt.h>
#include <stdint.h>

#include "options.h"
#include "roce_engine.h"

/* `rocescope [OPTIONS] FILE...` and `rocescope -i IFACE [OPTIONS]`. */
struct roce_cli_options {
    struct roce_config cfg;
    struct roce_outputs out; /* --json, --events, -o, --html, --top */
    char **files;
    int n_files;
    unsigned jobs; /* -j: files analysed apart, that many at a time, then merged (0: one engine) */
    unsigned threads;    /* -T: engines analysing the capture at once (1: one; default: the CPUs) */
    int threads_given;   /* -T was given */
    int64_t interval_ns; /* --interval: PFC storm window (and live reporting interval) */
    struct roce_live_options live;
    const char *first_live; /* the first live-only option given (for messages) */
};

enum roce_cli_parse_result {
    ROCE_CLI_RUN = 0,
    ROCE_CLI_EXIT_OK = 1,   /* --help or --version printed */
    ROCE_CLI_EXIT_USAGE = 2 /* bad usage, message printed */
};

/* Parse argv into o (defaults first). Messages go to stderr (stdout for
 * --help and --version). */
enum roce_cli_parse_result roce_cli_parse(int argc, char **argv, struct roce_cli_options *o);

/* ---- every command's getopt loop (options_output.c) ---- */

/* The writers a command runs, whose options it takes (writers/writers.h). */
enum roce_cli_writers {
    ROCE_CLI_WRITERS_ALL,     /* the analysis of capture files, the live monitor */
    ROCE_CLI_WRITERS_MERGED,  /* those that write from a report alone (merge) */
    ROCE_CLI_WRITERS_LOCALIZE /* those that write localize's result */
};

/* getopt_long codes of the output options without a short form: --top, and
 * each writer's option (its row in the table added). */
enum { ROCE_OPT_TOP = 1024, ROCE_OPT_WRITER = 1040 };

/* A command: its name in messages ("" for rocescope itself), getopt's short
 * options (with o: for -o), its own long options (ending with a NULL name;
 * the output options are added), the writers it runs, and what takes its
 * own options: 0, -1 on a bad value (message printed), or ROCE_CLI_EXIT_OK
 * when it printed its help or version. */
struct roce_cli_command {
    const char *name;
    const char *shortopts;
    const struct option *own;
    enum roce_cli_writers writers;
    int (*option)(int c, const char *arg, void *ctx);
};

/* Parse the options of argv: the output options into out (defaults first),
 * the others through cmd->option(ctx). Returns ROCE_CLI_RUN (optind is then
 * the first operand), ROCE_CLI_EXIT_OK, or ROCE_CLI_EXIT_USAGE (messages
 * printed: the problem, then "Try 'rocescope CMD --help'."). */
enum roce_cli_parse_result roce_cli_getopt(const struct roce_cli_command *cmd, int argc,
                                           char **argv, struct roce_outputs *out, void *ctx);
/* Print the "Try ... --help" line of cmd; returns ROCE_CLI_EXIT_USAGE. */
int roce_cli_usage_error(const struct roce_cli_command *cmd);

/* After the options: at most one writer of the -o output chosen. 0, or -1
 * with the message printed ("--json and --events exclude each other"). */
int roce_cli_outputs_writers(const struct roce_outputs *out);
/* The writers' own paths beside -o: not on standard output when the -o
 * output is there, not the same file as -o or as each other. 0, or -1 with
 * the message printed. */
int roce_cli_outputs_paths(const struct roce_outputs *out);
/* A writer that reads the capture files again (ROCE_WRITER_FILES) has
 * regular files or standard input, and no live capture (live). 0, or -1
 * with the message printed. */
int roce_cli_outputs_reread(const struct roce_outputs *out, char *const *files, int n_files,
                            int live);
/* When such a writer is chosen and standard input is among the files, keep
 * it for the second reading (roce_capture_stdin_keep: a copy when it is not
 * a file). 0, or -1 with the message printed. */
int roce_cli_outputs_keep_stdin(const struct roce_outputs *out, char *const *files, int n_files);

/* ---- the live monitor's options (options_live.c) ---- */

/* getopt_long codes of the live options that have no short form. */
enum roce_cli_live_long {
    ROCE_OPT_IMMEDIATE = 512,
    ROCE_OPT_DURATION,
    ROCE_OPT_IDLE_TIMEOUT,
    ROCE_OPT_PROMETHEUS,
    ROCE_OPT_LISTEN,
    ROCE_OPT_ROTATE_SIZE,
    ROCE_OPT_ROTATE_COUNT,
    ROCE_OPT_FINAL_FLOWS
};

/* Defaults; one option (1 when c is not a live option, 0 done, -1 bad
 * value, message printed; o->first_live notes the first); the checks after
 * all options are read (0, or -1 with a message); their help text. */
void roce_cli_live_defaults(struct roce_live_options *lo);
int roce_cli_live_option(int c, const char *arg, struct roce_cli_options *o);
int roce_cli_live_check(const struct roce_cli_options *o);
extern const char roce_cli_live_usage[];

/* ---- values (options_values.c) ---- */

/* A number with a unit suffix from a table ending with a NULL suffix: the
 * value times the unit's factor must lie in [min, max]. 0, or -1. */
struct roce_cli_unit {
    const char *suffix;
    uint64_t factor;
};
int roce_cli_parse_unit(const char *s, const struct roce_cli_unit *units, uint64_t min,
                        uint64_t max, uint64_t *out);

/* Print "rocescope: OPT: invalid value 'VAL' (expected EXPECT)"; returns -1. */
int roce_cli_bad_value(const char *opt, const char *val, const char *expect);

/* Strict unsigned decimal in [min, max]: no sign, no blanks, no garbage, no
 * overflow. 0, or -1 (then *out is untouched). */
int roce_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* The options several commands share, each with its one range and message:
 * 0, or -1 (message printed; the value untouched). */
#define ROCE_CLI_TOP_DEFAULT 20u /* --top: flows (episodes, losses...) listed in a summary */
int roce_cli_top(const char *arg, unsigned *top);
int roce_cli_udp_port(const char *arg, uint16_t *port);
int roce_cli_max_flows(const char *arg, uint32_t *max_flows);
/* --link-speed: Gb/s (100, 25G) or Mb/s (10000M), into Mb/s. */
int roce_cli_link_speed(const char *arg, uint32_t *mbps);

/* getopt_long's ':' (an option without its value) or '?' (an unknown
 * option) of command cmd ("" for rocescope itself): the message; -1. */
int roce_cli_getopt_error(const char *cmd, int c, const char *opt);

#endif
