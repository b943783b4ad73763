/*
 * options_live.c - the live monitor's options (`rocescope -i IFACE`; see
 * cli_options.h; rocescope.1, LIVE MONITORING). They follow tcpdump
 * where tcpdump has the same option: -i -f -s -B -w -C -W -c -Z -p.
 */
#define _DEFAULT_SOURCE
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "http.h"
#include "output.h"
#include "privs.h"
#include "roce_time.h"
#include "writers.h"

#define SNAPLEN_DEFAULT     512u /* headers inside ERSPAN/VXLAN with room to spare */
#define SNAPLEN_MAX         262144ull
#define SNAPLEN_MIN         64ull
#define BUFFER_DEFAULT_KIB  16384u     /* 16 MiB of kernel buffer */
#define BUFFER_MAX_KIB      2097151ull /* what fits libpcap's int of bytes */
#define FILE_MB_BYTES       1000000ull /* -C counts millions of bytes, as tcpdump */
#define FILE_MB_MAX         1000000ull
#define FILE_COUNT_MAX      1000000ull
#define IDLE_DEFAULT_NS     (300 * ROCE_NS_PER_SEC)
#define DURATION_MIN_NS     1000000ull /* 1 ms */
#define DURATION_MAX_NS     (366ull * 86400 * ROCE_NS_PER_SEC)
#define ROTATE_DEFAULT      5u
#define ROTATE_MAX          1000ull
#define FINAL_FLOWS_DEFAULT 65536u      /* the default --max-flows: every flow of a default table */
#define FINAL_FLOWS_MAX     67108864ull /* the largest --max-flows */

static const struct roce_cli_unit long_time_units[] = {
    {"", ROCE_NS_PER_SEC},
    {"s", ROCE_NS_PER_SEC},
    {"ms", ROCE_NS_PER_MS},
    {"m", 60 * ROCE_NS_PER_SEC},
    {"h", 3600 * ROCE_NS_PER_SEC},
    {"d", 86400 * ROCE_NS_PER_SEC},
    {NULL, 0},
};

const char roce_cli_live_usage[] =
    "Live monitoring (instead of FILE...):\n"
    "  -i, --interface IFACE capture on IFACE; every --interval print the counters\n"
    "                        of the interval (a refreshed view on a terminal, lines\n"
    "                        otherwise, JSON Lines with --json), then the full\n"
    "                        report when it stops (SIGINT/SIGTERM, -c, --duration)\n"
    "  -f, --filter EXPR     BPF filter (default: RoCE, PFC/PAUSE, GRE/ERSPAN and\n"
    "                        VXLAN, also behind VLAN tags)\n"
    "  -s, --snaplen N       bytes kept per frame (default 512)\n"
    "  -B, --buffer-size KIB kernel capture buffer in KiB (default 16384)\n"
    "      --immediate       deliver every packet at once (no kernel buffering)\n"
    "  -p, --no-promiscuous-mode  do not put the interface in promiscuous mode\n"
    "  -c, --count N         stop after N frames\n"
    "      --duration T      stop after T (e.g. 30s, 10m, 2h, 1d)\n"
    "      --idle-timeout T  retire flows idle for T (default 300s; 0: never)\n"
    "      --final-flows N   flows listed in the final report, the worst first\n"
    "                        (default 65536; 0: every flow); the totals and the\n"
    "                        diagnoses still count every flow\n"
    "      --prometheus-file PATH  rewrite PATH each interval in the Prometheus\n"
    "                        text format (node_exporter textfile collector)\n"
    "      --listen [ADDR:]PORT  serve /metrics (Prometheus) and / (the live page)\n"
    "                        over HTTP on ADDR (default 127.0.0.1), IPv6 in []\n"
    "  -q, --quiet           no interval view or lines and no final report on\n"
    "                        stdout (--events, -o, the Prometheus file and\n"
    "                        --listen still written)\n"
    "      --events          JSON Lines of the verdicts as they settle, on stdout\n"
    "                        or appended to -o PATH, instead of the interval view\n"
    "                        and the final report\n"
    "      --rotate-size MB  with --events -o PATH: past MB million bytes PATH\n"
    "                        becomes PATH.1 (PATH.1 PATH.2 ...) and a new one starts\n"
    "      --rotate-count N  older --events files kept (default 5)\n"
    "  -w, --write FILE      save the captured frames to FILE (pcap)\n"
    "  -C, --file-size MB    start a new -w file past MB million bytes\n"
    "  -W, --file-count N    with -C: keep a ring of N files\n"
    "  -Z, --user USER       once capturing, run as USER (started as root: default\n"
    "                        rocescope, else nobody; -Z root keeps root)\n";

void roce_cli_live_defaults(struct roce_live_options *lo)
{
    memset(lo, 0, sizeof *lo);
    lo->snaplen = SNAPLEN_DEFAULT;
    lo->buffer_kib = BUFFER_DEFAULT_KIB;
    lo->promisc = 1;
    lo->idle_timeout_ns = IDLE_DEFAULT_NS;
    lo->rotate_count = ROTATE_DEFAULT;
    lo->final_flows = FINAL_FLOWS_DEFAULT;
}

/* Options that take no number. 1 when c is none of them. */
static int text_option(int c, const char *arg, struct roce_live_options *lo)
{
    switch (c) {
    case 'i':
        lo->iface = arg;
        return 0;
    case 'f':
        lo->filter = arg;
        return 0;
    case 'w':
        lo->savefile = arg;
        return 0;
    case ROCE_OPT_PROMETHEUS:
        lo->prometheus = arg;
        return 0;
    case ROCE_OPT_LISTEN: {
        struct sockaddr_storage sa;
        socklen_t len;
        if (roce_http_parse_addr(arg, &sa, &len) != 0)
            return roce_cli_bad_value("--listen", arg,
                                      "PORT, IPV4:PORT or [IPV6]:PORT, port 1..65535");
        lo->listen = arg;
        return 0;
    }
    case 'q':
        lo->quiet = 1;
        return 0;
    case ROCE_OPT_IMMEDIATE:
        lo->immediate = 1;
        return 0;
    case 'p':
        lo->promisc = 0;
        return 0;
    case 'Z': {
        if (!roce_privs_user_exists(arg))
            return roce_cli_bad_value("-Z", arg, "an existing user name");
        const struct passwd *pw = getpwnam(arg);
        if (pw != NULL && pw->pw_uid == 0) /* only ever by this explicit choice */
            roce_complainf("-Z %s: warning: the monitor keeps running as root, with its "
                           "capabilities, its HTTP server and outputs too (without -Z it runs "
                           "as '%s' or '%s'; NO_NEW_PRIVS and the system call filter still "
                           "apply)",
                           arg, ROCE_PRIVS_SYSTEM_USER, ROCE_PRIVS_FALLBACK_USER);
        lo->user = arg;
        return 0;
    }
    default:
        return 1;
    }
}

/* Durations. 1 when c is none of them. */
static int time_option(int c, const char *arg, struct roce_live_options *lo)
{
    uint64_t v;
    switch (c) {
    case ROCE_OPT_DURATION:
        if (roce_cli_parse_unit(arg, long_time_units, DURATION_MIN_NS, DURATION_MAX_NS, &v))
            return roce_cli_bad_value("--duration", arg, "a duration like 30s, 500ms, 10m, 2h");
        lo->duration_ns = (int64_t)v;
        return 0;
    case ROCE_OPT_IDLE_TIMEOUT:
        if (roce_cli_parse_unit(arg, long_time_units, 0, DURATION_MAX_NS, &v))
            return roce_cli_bad_value("--idle-timeout", arg, "a duration like 300s, 10m, 1h, or 0");
        lo->idle_timeout_ns = (int64_t)v;
        return 0;
    default:
        return 1;
    }
}

/* Numbers. 1 when c is none of them. */
static int number_option(int c, const char *arg, struct roce_live_options *lo)
{
    uint64_t v;
    switch (c) {
    case 's':
        if (roce_cli_parse_u64(arg, 0, SNAPLEN_MAX, &v) || (v != 0 && v < SNAPLEN_MIN))
            return roce_cli_bad_value("-s", arg, "bytes 64..262144, or 0 for 262144");
        lo->snaplen = v ? (unsigned)v : (unsigned)SNAPLEN_MAX;
        return 0;
    case 'B':
        if (roce_cli_parse_u64(arg, 1, BUFFER_MAX_KIB, &v))
            return roce_cli_bad_value("-B", arg, "KiB 1..2097151");
        lo->buffer_kib = (unsigned)v;
        return 0;
    case 'C':
        if (roce_cli_parse_u64(arg, 1, FILE_MB_MAX, &v))
            return roce_cli_bad_value("-C", arg, "millions of bytes 1..1000000");
        lo->file_bytes = v * FILE_MB_BYTES;
        return 0;
    case 'W':
        if (roce_cli_parse_u64(arg, 1, FILE_COUNT_MAX, &v))
            return roce_cli_bad_value("-W", arg, "a number of files 1..1000000");
        lo->file_count = (unsigned)v;
        return 0;
    case ROCE_OPT_ROTATE_SIZE:
        if (roce_cli_parse_u64(arg, 1, FILE_MB_MAX, &v))
            return roce_cli_bad_value("--rotate-size", arg, "millions of bytes 1..1000000");
        lo->rotate_bytes = v * FILE_MB_BYTES;
        return 0;
    case ROCE_OPT_ROTATE_COUNT:
        if (roce_cli_parse_u64(arg, 1, ROTATE_MAX, &v))
            return roce_cli_bad_value("--rotate-count", arg, "a number of files 1..1000");
        lo->rotate_count = (unsigned)v;
        return 0;
    case ROCE_OPT_FINAL_FLOWS:
        if (roce_cli_parse_u64(arg, 0, FINAL_FLOWS_MAX, &v))
            return roce_cli_bad_value("--final-flows", arg, "a number of flows 0..67108864");
        lo->final_flows = (uint32_t)v;
        return 0;
    case 'c':
        if (roce_cli_parse_u64(arg, 1, UINT64_MAX, &v))
            return roce_cli_bad_value("-c", arg, "a number of frames, 1 or more");
        lo->count = v;
        return 0;
    default:
        return 1;
    }
}

/* How the live-only options are named in messages. */
static const struct {
    int code;
    const char *name;
} live_names[] = {
    {'f', "-f"},
    {'s', "-s"},
    {'B', "-B"},
    {'w', "-w"},
    {'C', "-C"},
    {'W', "-W"},
    {'c', "-c"},
    {'Z', "-Z"},
    {'p', "-p"},
    {ROCE_OPT_IMMEDIATE, "--immediate"},
    {ROCE_OPT_DURATION, "--duration"},
    {ROCE_OPT_IDLE_TIMEOUT, "--idle-timeout"},
    {ROCE_OPT_PROMETHEUS, "--prometheus-file"},
    {ROCE_OPT_LISTEN, "--listen"},
    {'q', "-q"},
    {ROCE_OPT_ROTATE_SIZE, "--rotate-size"},
    {ROCE_OPT_ROTATE_COUNT, "--rotate-count"},
    {ROCE_OPT_FINAL_FLOWS, "--final-flows"},
    {0, NULL},
};

int roce_cli_live_option(int c, const char *arg, struct roce_cli_options *o)
{
    struct roce_live_options *lo = &o->live;
    int rc = text_option(c, arg, lo);
    if (rc == 1)
        rc = time_option(c, arg, lo);
    if (rc == 1)
        rc = number_option(c, arg, lo);
    for (unsigned i = 0; rc == 0 && o->first_live == NULL && live_names[i].name != NULL; i++)
        if (live_names[i].code == c)
            o->first_live = live_names[i].name;
    return rc;
}

/* The live monitor's files beside the writers' (roce_cli_outputs_paths
 * checked those): the Prometheus file and -w (a single file: with -C it
 * is a series of numbered ones) may not be one of them, whatever the names.
 * 0, or -1 with the message printed. */
static int live_paths_distinct(const struct roce_cli_options *o)
{
    const struct roce_live_options *lo = &o->live;
    struct {
        const char *option, *path;
    } f[ROCE_WRITERS_MAX + 3];
    unsigned n = 0;
    f[n].option = "-o";
    f[n++].path = o->out.output;
    for (unsigned i = 0; i < roce_writers_count; i++)
        if ((o->out.chosen >> i & 1u) && (roce_writers[i].needs & ROCE_WRITER_PATH)) {
            f[n].option = roce_writers[i].option;
            f[n++].path = o->out.path[i];
        }
    unsigned own = n;
    f[n].option = "--prometheus-file";
    f[n++].path = lo->prometheus;
    f[n].option = "-w";
    f[n++].path = lo->file_bytes ? NULL : lo->savefile;
    for (unsigned j = own; j < n; j++)
        for (unsigned i = 0; i < j; i++) {
            const char *a = f[i].path, *b = f[j].path;
            if (a == NULL || b == NULL || !strcmp(a, "-") || !strcmp(b, "-") ||
                !roce_output_same_file(a, b))
                continue;
            roce_complainf("%s and %s name the same file '%s'", f[i].option, f[j].option, b);
            return -1;
        }
    return 0;
}

int roce_cli_live_check(const struct roce_cli_options *o)
{
    const struct roce_live_options *lo = &o->live;
    if (lo->iface == NULL) {
        if (o->first_live != NULL) {
            fprintf(stderr, "rocescope: %s needs -i (live capture)\n", o->first_live);
            return -1;
        }
        return 0;
    }
    if (o->n_files > 0) {
        fputs("rocescope: -i and capture files exclude each other\n", stderr);
        return -1;
    }
    /* what rotates is the -o file of a writer that streams (--events) */
    if (lo->rotate_bytes &&
        (!(roce_writers_main(&o->out)->needs & ROCE_WRITER_STREAM) || o->out.output == NULL)) {
        fputs("rocescope: --rotate-size needs --events and -o\n", stderr);
        return -1;
    }
    if ((lo->file_bytes || lo->file_count) && lo->savefile == NULL) {
        fputs("rocescope: -C and -W need -w\n", stderr);
        return -1;
    }
    if (lo->file_count && !lo->file_bytes) {
        fputs("rocescope: -W needs -C\n", stderr);
        return -1;
    }
    return live_paths_distinct(o);
}
