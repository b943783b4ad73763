/*
 * options.h - command-line options of rocescope.
 */
#ifndef ROCE_OPTIONS_H
#define ROCE_OPTIONS_H

#include <stdint.h>

#include "roce_engine.h"

/* The live monitor's options (`-i IFACE`; rocescope(1), LIVE MONITORING). */
struct roce_live_options {
    const char *iface;      /* -i: capture live from this interface (NULL: read files) */
    const char *filter;     /* -f: BPF filter (NULL: the default RoCE/PFC/mirror filter) */
    unsigned snaplen;       /* -s: bytes kept per frame */
    unsigned buffer_kib;    /* -B: kernel capture buffer, KiB */
    int immediate;          /* --immediate: no buffering in the kernel */
    int promisc;            /* 0 with -p */
    const char *savefile;   /* -w: save the captured frames there */
    uint64_t file_bytes;    /* -C: rotate the -w file past this size (0: never) */
    unsigned file_count;    /* -W: ring of that many -w files (0: no limit) */
    uint64_t count;         /* -c: stop after that many frames (0: no limit) */
    int64_t duration_ns;    /* --duration: stop after that long (0: no limit) */
    int64_t idle_timeout_ns;/* --idle-timeout: retire flows idle that long (0: never) */
    const char *prometheus; /* --prometheus-file */
    const char *listen;     /* --listen: serve /metrics and / on ADDR:PORT (NULL: off) */
    int quiet;              /* -q: nothing on stdout but the --events */
    uint64_t rotate_bytes;  /* --rotate-size: rotate the --events -o file past this (0: never) */
    unsigned rotate_count;  /* --rotate-count: older --events files kept */
    const char *user;       /* -Z: drop root privileges to this user */
    const char *first_live; /* the first live-only option given (for messages) */
};

enum roce_cli_mode {
    ROCE_MODE_TEXT,
    ROCE_MODE_JSON,
    ROCE_MODE_EVENTS
};

struct roce_cli_options {
    struct roce_config cfg;
    enum roce_cli_mode mode;
    const char *output; /* -o PATH, NULL for stdout */
    const char *html;   /* --html PATH: the HTML report too (NULL: none) */
    char **files;
    int n_files;
    unsigned top; /* flows and episodes listed in the text report */
    unsigned jobs; /* -j: files analysed apart, that many at a time, then merged (0: one engine) */
    unsigned threads; /* -T: engines analysing the capture at once (1: one; default: the CPUs) */
    int threads_given; /* -T was given */
    int64_t interval_ns; /* --interval: PFC storm window (and live reporting interval) */
    struct roce_live_options live;
};

enum roce_cli_parse_result {
    ROCE_CLI_RUN = 0,
    ROCE_CLI_EXIT_OK = 1,   /* --help or --version printed */
    ROCE_CLI_EXIT_USAGE = 2 /* bad usage, message printed */
};

/* Parse argv into o (defaults first). Messages go to stderr (stdout for
 * --help and --version). */
enum roce_cli_parse_result roce_cli_parse(int argc, char **argv, struct roce_cli_options *o);

/* getopt_long codes of the live options that have no short form. */
enum roce_cli_live_long {
    ROCE_OPT_IMMEDIATE = 512,
    ROCE_OPT_DURATION,
    ROCE_OPT_IDLE_TIMEOUT,
    ROCE_OPT_PROMETHEUS,
    ROCE_OPT_LISTEN,
    ROCE_OPT_ROTATE_SIZE,
    ROCE_OPT_ROTATE_COUNT
};

/* The live options (options_live.c): defaults, one option (1 when c is not
 * a live option, 0 done, -1 bad value, message printed), the checks after
 * all options are read (0, or -1 with a message), and their help text. */
void roce_cli_live_defaults(struct roce_live_options *lo);
int roce_cli_live_option(int c, const char *arg, struct roce_live_options *lo);
int roce_cli_live_check(const struct roce_cli_options *o);
extern const char roce_cli_live_usage[];

/* A number with a unit suffix from a table ending with a NULL suffix: the
 * value times the unit's factor must lie in [min, max]. 0, or -1. */
struct roce_cli_unit {
    const char *suffix;
    uint64_t factor;
};
int roce_cli_parse_unit(const char *s, const struct roce_cli_unit *units, uint64_t min,
                        uint64_t max, uint64_t *out);

/* --html PATH beside -o PATH (output; NULL: stdout): not both on stdout, not
 * the same file. 0, or -1 with a message printed. */
int roce_cli_html_check(const char *html, const char *output);

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

/* getopt_long's ':' (an option without its value) or '?' (an unknown
 * option) of command cmd ("" for rocescope itself): the message; -1. */
int roce_cli_getopt_error(const char *cmd, int c, const char *opt);

#endif
