/*
 * options.h - the options model every rocescope command shares, as plain
 * data: the outputs chosen (which writers, where they write, how much a
 * summary lists) and the live monitor's capture options. The command line
 * fills them (cli/cli_options.h); the writers (writers/writers.h) and the
 * live monitor (live/live.h) read them. No function is declared here.
 */
#ifndef ROCE_OPTIONS_H
#define ROCE_OPTIONS_H

#include <stdint.h>

#define ROCE_WRITERS_MAX 16 /* rows of the writers' table (writers/writers.c), at most */

/*
 * The outputs of a run (rocescope(1), OPTIONS, Output). Writers are named by
 * their row in the writers' table: bit i of chosen is row i, chosen by its
 * option (--json, --events, --html PATH, ...); path[i] is its PATH when it
 * takes one. Every other writer writes the -o output; when none of those is
 * chosen the table's default (the summary) does.
 */
struct roce_outputs {
    const char *output; /* -o PATH (NULL: standard output) */
    unsigned top;       /* --top: flows and episodes listed in a summary, graphs in a page */
    uint32_t chosen;    /* bit i: the table's writer i */
    const char *path[ROCE_WRITERS_MAX]; /* writer i's own path, when it takes one */
    int argc;                           /* the command line (the annotated pcapng quotes it) */
    char *const *argv;
};

/* The live monitor's capture options (`-i IFACE`; rocescope(1), LIVE
 * MONITORING). */
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
    uint32_t final_flows;   /* --final-flows: flows listed in the final report (0: all) */
    const char *user;       /* -Z: drop root privileges to this user */
};

#endif
