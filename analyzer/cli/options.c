/*
 * options.c - rocescope's command line: the analysis' options (see
 * cli_options.h; every option in rocescope.1, OPTIONS).
 */
#define _DEFAULT_SOURCE
#include "cli_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "roce_time.h"

#define ROCESCOPE_VERSION   "0.1.0"
#define CNP_WINDOW_MAX_US   10000000ull /* 10 s */
#define INTERVAL_MIN_NS     1000ull
#define INTERVAL_MAX_NS     86400000000000ull /* one day */
#define INTERVAL_DEFAULT_NS ROCE_NS_PER_SEC
#define JOBS_MAX            1024ull
#define DCQCN_US_MAX        1000000ull /* 1 s */
#define DCQCN_PCT_MAX       1000ull
#define INCAST_SENDERS_MAX  32ull /* a receiver's sender slots (roce_config_valid) */
#define COUNT_MAX           1000000ull
#define THREADS_MAX         256ull

enum long_only {
    OPT_UDP_PORT = 256,
    OPT_CNP_WINDOW,
    OPT_PMTU,
    OPT_MAX_FLOWS,
    OPT_NO_ICRC,
    OPT_LINK_SPEED,
    OPT_INTERVAL,
    OPT_STORM_SHARE,
    OPT_DCQCN_WINDOW,
    OPT_DCQCN_DELAY,
    OPT_DCQCN_PACKETS,
    OPT_DCQCN_CNPS,
    OPT_DCQCN_REACTED,
    OPT_DCQCN_IGNORED,
    OPT_CE_UNANSWERED,
    OPT_CNP_UNEXPLAINED,
    OPT_PAUSED_SHARE,
    OPT_DSCP_PRIORITY,
    OPT_VICTIM_WINDOW,
    OPT_CNP_PACING,
    OPT_NAK_RTT,
    OPT_INCAST_SENDERS,
    OPT_INCAST_WINDOW
};

/* The analysis' own long options (the output options: roce_cli_getopt). */
static const struct option long_opts[] = {
    {"jobs", required_argument, NULL, 'j'},
    {"threads", required_argument, NULL, 'T'},
    {"udp-port", required_argument, NULL, OPT_UDP_PORT},
    {"cnp-window", required_argument, NULL, OPT_CNP_WINDOW},
    {"pmtu", required_argument, NULL, OPT_PMTU},
    {"max-flows", required_argument, NULL, OPT_MAX_FLOWS},
    {"no-icrc", no_argument, NULL, OPT_NO_ICRC},
    {"link-speed", required_argument, NULL, OPT_LINK_SPEED},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"storm-share", required_argument, NULL, OPT_STORM_SHARE},
    {"dcqcn-window", required_argument, NULL, OPT_DCQCN_WINDOW},
    {"dcqcn-delay", required_argument, NULL, OPT_DCQCN_DELAY},
    {"dcqcn-packets", required_argument, NULL, OPT_DCQCN_PACKETS},
    {"dcqcn-cnps", required_argument, NULL, OPT_DCQCN_CNPS},
    {"dcqcn-reacted", required_argument, NULL, OPT_DCQCN_REACTED},
    {"dcqcn-ignored", required_argument, NULL, OPT_DCQCN_IGNORED},
    {"ce-unanswered", required_argument, NULL, OPT_CE_UNANSWERED},
    {"cnp-unexplained", required_argument, NULL, OPT_CNP_UNEXPLAINED},
    {"paused-share", required_argument, NULL, OPT_PAUSED_SHARE},
    {"dscp-priority", required_argument, NULL, OPT_DSCP_PRIORITY},
    {"victim-window", required_argument, NULL, OPT_VICTIM_WINDOW},
    {"cnp-pacing", required_argument, NULL, OPT_CNP_PACING},
    {"nak-rtt", required_argument, NULL, OPT_NAK_RTT},
    {"incast-senders", required_argument, NULL, OPT_INCAST_SENDERS},
    {"incast-window", required_argument, NULL, OPT_INCAST_WINDOW},
    {"interface", required_argument, NULL, 'i'},
    {"filter", required_argument, NULL, 'f'},
    {"snaplen", required_argument, NULL, 's'},
    {"buffer-size", required_argument, NULL, 'B'},
    {"immediate", no_argument, NULL, ROCE_OPT_IMMEDIATE},
    {"no-promiscuous-mode", no_argument, NULL, 'p'},
    {"count", required_argument, NULL, 'c'},
    {"duration", required_argument, NULL, ROCE_OPT_DURATION},
    {"idle-timeout", required_argument, NULL, ROCE_OPT_IDLE_TIMEOUT},
    {"prometheus-file", required_argument, NULL, ROCE_OPT_PROMETHEUS},
    {"listen", required_argument, NULL, ROCE_OPT_LISTEN},
    {"quiet", no_argument, NULL, 'q'},
    {"rotate-size", required_argument, NULL, ROCE_OPT_ROTATE_SIZE},
    {"rotate-count", required_argument, NULL, ROCE_OPT_ROTATE_COUNT},
    {"final-flows", required_argument, NULL, ROCE_OPT_FINAL_FLOWS},
    {"write", required_argument, NULL, 'w'},
    {"file-size", required_argument, NULL, 'C'},
    {"file-count", required_argument, NULL, 'W'},
    {"user", required_argument, NULL, 'Z'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
    fputs("Usage: rocescope [OPTIONS] FILE...\n"
          "       rocescope -i IFACE [OPTIONS]\n"
          "       rocescope merge [--json] [-o PATH] [--html PATH] [--top N] REPORT.json...\n"
          "       rocescope localize [OPTIONS] FILE FILE...  (see rocescope localize --help)\n"
          "Analyse RoCE (RDMA over Converged Ethernet) traffic in pcap/pcapng captures:\n"
          "PSN gaps, retransmissions, go-back-N episodes and their triggers, NAKs,\n"
          "ECN CE marks and CNPs, DCQCN reaction, PFC, ICRC, and the diagnoses they\n"
          "add up to. Several files are read one after the other as one capture\n"
          "(frame numbers continue).\n"
          "\n"
          "  -T, --threads N       analyse with N engines at once, each taking the frames\n"
          "                        of its connections (default: the number of CPUs;\n"
          "                        the results are those of one engine)\n"
          "  -j, --jobs N          analyse the files apart, N at a time, and merge their\n"
          "                        reports (equal to the joint report where no flow\n"
          "                        spans two files)\n"
          "\n"
          "Output (default: a human summary on stdout):\n"
          "      --json            the full report as one JSON document\n"
          "      --events          JSON Lines: one line per frame with a verdict (with\n"
          "                        -i: as the verdicts settle)\n"
          "  -o, --output PATH     write to PATH (via a temporary file and rename)\n"
          "      --html PATH       also write the HTML report to PATH: one self-contained\n"
          "                        page with sequence graphs, rates, CNP latency, PFC\n"
          "                        (live: the final report)\n"
          "      --annotate PATH   also write the capture files as one pcapng file to\n"
          "                        PATH, frame for frame, each verdict a packet comment\n"
          "                        ('rocescope: ...'; the files are read again: not\n"
          "                        standard input, a pipe or -i)\n"
          "      --top N           flows and episodes listed in the summary, flows with\n"
          "                        graphs in the HTML report (default 20)\n"
          "\n"
          "Analysis:\n"
          "      --udp-port N      RoCEv2 UDP destination port (default 4791)\n"
          "      --cnp-window US   CE mark to CNP window in microseconds (default 100)\n"
          "      --pmtu N          path MTU to assume until it is learned: 256, 512,\n"
          "                        1024, 2048 or 4096 (default: learn it)\n"
          "      --max-flows N     flows tracked at once; the least recently active is\n"
          "                        evicted and counted (default 65536)\n"
          "      --no-icrc         do not verify ICRCs\n"
          "      --link-speed G    link speed for PFC/PAUSE quanta, Gb/s (default 100;\n"
          "                        also 25G, 400G, 10000M)\n"
          "      --interval T      PFC storm window and live reporting interval\n"
          "                        (default 1s; also 500ms, 250us)\n"
          "      --storm-share P   a priority paused for more than P percent of a window\n"
          "                        is a pause storm (default 50)\n"
          "\n"
          "Diagnoses:\n"
          "      --dcqcn-window US the windows before and after a CNP in which a\n"
          "                        sender's rate is measured, microseconds (default 20)\n"
          "      --dcqcn-delay US  from a CNP to its after window (default 4)\n"
          "      --dcqcn-packets N requests each window needs (default 5)\n"
          "      --dcqcn-cnps N    evaluated CNPs a DCQCN verdict needs (default 3)\n"
          "      --dcqcn-reacted P median rate ratio (after/before) at most P percent:\n"
          "                        the sender reacted (default 85)\n"
          "      --dcqcn-ignored P at least P percent: it ignored its CNPs (default 95)\n"
          "      --ce-unanswered N unanswered CE marks of a flow (none answered) that\n"
          "                        make a ce_unanswered diagnosis, and marks left\n"
          "                        unanswered here and there that make a\n"
          "                        ce_some_unanswered one (default 3)\n"
          "      --cnp-unexplained N  CNPs with no CE mark seen that make a\n"
          "                        cnp_unexplained diagnosis (default 3)\n"
          "      --paused-share P  a priority paused for P percent of the capture (and\n"
          "                        at least 1 ms) is a pfc_paused diagnosis (default 20)\n"
          "      --dscp-priority D=P[,D=P...]  the PFC priority of untagged frames of\n"
          "                        DSCP D (default DSCP / 8: 26 is 3, 48 is 6)\n"
          "      --victim-window US  a flow whose last request came at most US before\n"
          "                        a pause and its next at most US after it is a\n"
          "                        victim (default 10)\n"
          "      --cnp-pacing US   CNPs to one QP closer than US, a CNP for every CE\n"
          "                        mark: a cnp_unpaced diagnosis (default 4)\n"
          "      --nak-rtt US      a flow's NAK round trip while none was measured:\n"
          "                        how long a requester must send on past a PSN gap,\n"
          "                        with no NAK or resend, for the gap to be inferred\n"
          "                        as capture loss (default 1000)\n"
          "      --incast-senders N  N senders to one receiver at once while its\n"
          "                        traffic is CE marked, paused or lost: an incast\n"
          "                        diagnosis (2..32, default 4)\n"
          "      --incast-window US  at once: each sender's latest request at most US\n"
          "                        old (default 10)\n"
          "\n",
          f);
    fputs(roce_cli_live_usage, f);
    fputs("\n"
          "  -h, --help            this help\n"
          "  -V, --version         version\n"
          "\n"
          "Exit status: 0 success, 1 input problem (the report of what could be read is\n"
          "still written; live: the interface is missing, down or went away), 2 bad\n"
          "usage, 3 output could not be written.\n",
          f);
}

static const struct roce_cli_unit time_units[] = {
    {"", ROCE_NS_PER_SEC},
    {"s", ROCE_NS_PER_SEC},
    {"ms", ROCE_NS_PER_MS},
    {"us", ROCE_NS_PER_US},
    {NULL, 0},
};

/* Apply one option of the diagnoses; 1 when c is none of them, -1 on a bad value. */
/* --dscp-priority D=P[,D=P...]: the priority of untagged frames of DSCP D,
 * over the default map (ANALYSIS.md "Priorities"). 0, or -1 on a bad list
 * (cfg's map is then partly changed: the command line is refused). */
static int parse_dscp_map(const char *arg, struct roce_config *cfg)
{
    const char *at = arg;
    for (;;) {
        char pair[16], *eq;
        uint64_t d, p;
        size_t len = strcspn(at, ",");
        if (len == 0 || len >= sizeof pair)
            return -1;
        memcpy(pair, at, len);
        pair[len] = '\0';
        if ((eq = strchr(pair, '=')) == NULL)
            return -1;
        *eq = '\0';
        if (roce_cli_parse_u64(pair, 0, ROCE_DSCP_VALUES - 1, &d) ||
            roce_cli_parse_u64(eq + 1, 0, ROCE_PRIORITY_MAX, &p))
            return -1;
        cfg->dscp_priority[d] = (uint8_t)p;
        if (at[len] == '\0')
            return 0;
        at += len + 1;
    }
}

static int diag_option(int c, const char *arg, struct roce_config *cfg)
{
    uint64_t v;
    switch (c) {
    case OPT_DCQCN_WINDOW:
        if (roce_cli_parse_u64(arg, 1, DCQCN_US_MAX, &v))
            return roce_cli_bad_value("--dcqcn-window", arg, "microseconds, 1..1000000");
        cfg->dcqcn_window_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    case OPT_DCQCN_DELAY:
        if (roce_cli_parse_u64(arg, 0, DCQCN_US_MAX, &v))
            return roce_cli_bad_value("--dcqcn-delay", arg, "microseconds, 0..1000000");
        cfg->dcqcn_delay_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    case OPT_DCQCN_PACKETS:
        if (roce_cli_parse_u64(arg, 1, COUNT_MAX, &v))
            return roce_cli_bad_value("--dcqcn-packets", arg, "a number 1..1000000");
        cfg->dcqcn_min_packets = (uint32_t)v;
        return 0;
    case OPT_DCQCN_CNPS:
        if (roce_cli_parse_u64(arg, 1, COUNT_MAX, &v))
            return roce_cli_bad_value("--dcqcn-cnps", arg, "a number 1..1000000");
        cfg->dcqcn_min_cnps = (uint32_t)v;
        return 0;
    case OPT_DCQCN_REACTED:
    case OPT_DCQCN_IGNORED:
        if (roce_cli_parse_u64(arg, 0, DCQCN_PCT_MAX, &v))
            return roce_cli_bad_value(c == OPT_DCQCN_REACTED ? "--dcqcn-reacted"
                                                             : "--dcqcn-ignored",
                                      arg, "a percentage 0..1000");
        *(c == OPT_DCQCN_REACTED ? &cfg->dcqcn_reacted_pct : &cfg->dcqcn_ignored_pct) = (uint32_t)v;
        return 0;
    case OPT_CE_UNANSWERED:
        if (roce_cli_parse_u64(arg, 1, COUNT_MAX, &v))
            return roce_cli_bad_value("--ce-unanswered", arg, "a number 1..1000000");
        cfg->ce_unanswered_min = (uint32_t)v;
        return 0;
    case OPT_CNP_UNEXPLAINED:
        if (roce_cli_parse_u64(arg, 1, COUNT_MAX, &v))
            return roce_cli_bad_value("--cnp-unexplained", arg, "a number 1..1000000");
        cfg->cnp_unexplained_min = (uint32_t)v;
        return 0;
    case OPT_PAUSED_SHARE:
        if (roce_cli_parse_u64(arg, 1, 100, &v))
            return roce_cli_bad_value("--paused-share", arg, "a percentage 1..100");
        cfg->pfc_paused_pct = (uint32_t)v;
        return 0;
    case OPT_DSCP_PRIORITY:
        if (parse_dscp_map(arg, cfg))
            return roce_cli_bad_value("--dscp-priority", arg,
                                      "DSCP=PRIORITY pairs (0..63 = 0..7), separated by commas");
        return 0;
    case OPT_VICTIM_WINDOW:
        if (roce_cli_parse_u64(arg, 1, CNP_WINDOW_MAX_US, &v))
            return roce_cli_bad_value("--victim-window", arg, "microseconds, 1..10000000");
        cfg->victim_window_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    case OPT_CNP_PACING:
        if (roce_cli_parse_u64(arg, 1, CNP_WINDOW_MAX_US, &v))
            return roce_cli_bad_value("--cnp-pacing", arg, "microseconds, 1..10000000");
        cfg->cnp_pacing_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    case OPT_NAK_RTT:
        if (roce_cli_parse_u64(arg, 1, CNP_WINDOW_MAX_US, &v))
            return roce_cli_bad_value("--nak-rtt", arg, "microseconds, 1..10000000");
        cfg->nak_rtt_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    case OPT_INCAST_SENDERS:
        if (roce_cli_parse_u64(arg, 2, INCAST_SENDERS_MAX, &v))
            return roce_cli_bad_value("--incast-senders", arg, "a number 2..32");
        cfg->incast_senders = (uint32_t)v;
        return 0;
    case OPT_INCAST_WINDOW:
        if (roce_cli_parse_u64(arg, 1, CNP_WINDOW_MAX_US, &v))
            return roce_cli_bad_value("--incast-window", arg, "microseconds, 1..10000000");
        cfg->incast_window_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    default:
        return 1;
    }
}

/* Apply one option with an argument; -1 on a bad value. */
static int numeric_option(int c, const char *arg, struct roce_cli_options *o)
{
    uint64_t v;
    int rc = diag_option(c, arg, &o->cfg);
    if (rc != 1)
        return rc;
    switch (c) {
    case OPT_UDP_PORT:
        return roce_cli_udp_port(arg, &o->cfg.udp_port);
    case OPT_CNP_WINDOW:
        if (roce_cli_parse_u64(arg, 1, CNP_WINDOW_MAX_US, &v))
            return roce_cli_bad_value("--cnp-window", arg, "microseconds, 1..10000000");
        o->cfg.cnp_window_ns = (int64_t)v * ROCE_NS_PER_US;
        return 0;
    case OPT_PMTU:
        if (roce_cli_parse_u64(arg, 256, 4096, &v) || (v & (v - 1)) != 0)
            return roce_cli_bad_value("--pmtu", arg, "256, 512, 1024, 2048 or 4096");
        o->cfg.pmtu = (uint32_t)v;
        return 0;
    case OPT_MAX_FLOWS:
        return roce_cli_max_flows(arg, &o->cfg.max_flows);
    case OPT_LINK_SPEED:
        return roce_cli_link_speed(arg, &o->cfg.link_speed_mbps);
    case OPT_INTERVAL:
        if (roce_cli_parse_unit(arg, time_units, INTERVAL_MIN_NS, INTERVAL_MAX_NS, &v))
            return roce_cli_bad_value("--interval", arg, "a duration like 1s, 500ms or 250us");
        o->cfg.pfc_window_ns = (int64_t)v;
        o->interval_ns = (int64_t)v;
        return 0;
    case OPT_STORM_SHARE:
        if (roce_cli_parse_u64(arg, 1, 100, &v))
            return roce_cli_bad_value("--storm-share", arg, "a percentage 1..100");
        o->cfg.pfc_storm_pct = (uint32_t)v;
        return 0;
    case 'j':
        if (roce_cli_parse_u64(arg, 1, JOBS_MAX, &v))
            return roce_cli_bad_value("-j", arg, "a number of jobs 1..1024; JSON output is --json");
        o->jobs = (unsigned)v;
        return 0;
    case 'T':
        if (roce_cli_parse_u64(arg, 1, THREADS_MAX, &v))
            return roce_cli_bad_value("-T", arg, "a number of threads 1..256");
        o->threads = (unsigned)v;
        o->threads_given = 1;
        return 0;
    default:
        return -1;
    }
}

/* One of the analysis' own options (the output options are read by
 * roce_cli_getopt): 0, -1 on a bad value, ROCE_CLI_EXIT_OK after --help or
 * --version. */
static int analysis_option(int c, const char *arg, void *ctx)
{
    struct roce_cli_options *o = ctx;
    switch (c) {
    case OPT_NO_ICRC:
        o->cfg.check_icrc = 0;
        return 0;
    case 'h':
        usage(stdout);
        return ROCE_CLI_EXIT_OK;
    case 'V':
        printf("rocescope %s\n", ROCESCOPE_VERSION);
        return ROCE_CLI_EXIT_OK;
    default: {
        int rc = roce_cli_live_option(c, arg, o);
        return rc == 1 ? numeric_option(c, arg, o) : rc;
    }
    }
}

static const struct roce_cli_command analysis_command = {
    "", ":j:T:o:hVi:f:s:B:pqc:w:C:W:Z:", long_opts, ROCE_CLI_WRITERS_ALL, analysis_option,
};

enum roce_cli_parse_result roce_cli_parse(int argc, char **argv, struct roce_cli_options *o)
{
    memset(o, 0, sizeof *o);
    roce_config_default(&o->cfg);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus < 1 ? 1 : cpus > (long)THREADS_MAX ? (unsigned)THREADS_MAX : (unsigned)cpus;
    o->interval_ns = INTERVAL_DEFAULT_NS;
    roce_cli_live_defaults(&o->live);
    enum roce_cli_parse_result rc = roce_cli_getopt(&analysis_command, argc, argv, &o->out, o);
    if (rc != ROCE_CLI_RUN)
        return rc;
    if (roce_cli_outputs_writers(&o->out) != 0)
        goto usage_error;
    if (o->cfg.dcqcn_reacted_pct > o->cfg.dcqcn_ignored_pct) {
        fprintf(stderr, "rocescope: --dcqcn-reacted: %u is above --dcqcn-ignored (%u)\n",
                (unsigned)o->cfg.dcqcn_reacted_pct, (unsigned)o->cfg.dcqcn_ignored_pct);
        goto usage_error;
    }
    if (roce_cli_outputs_paths(&o->out) != 0)
        goto usage_error;
    o->files = argv + optind;
    o->n_files = argc - optind;
    for (int i = 0; i < o->n_files; i++) /* never written onto; a stream read once */
        if (roce_output_input(o->files[i]) != 0)
            goto usage_error;
    if (roce_cli_outputs_reread(&o->out, o->files, o->n_files, o->live.iface != NULL) != 0)
        goto usage_error;
    if (roce_cli_live_check(o) != 0)
        goto usage_error;
    if (o->jobs && o->live.iface != NULL) {
        fputs("rocescope: -j needs capture files (not -i)\n", stderr);
        goto usage_error;
    }
    if (o->threads_given && o->live.iface != NULL) {
        fputs("rocescope: -T needs capture files (not -i)\n", stderr);
        goto usage_error;
    }
    if (o->n_files == 0 && o->live.iface == NULL) {
        fputs("rocescope: no capture file given\n", stderr);
        goto usage_error;
    }
    return ROCE_CLI_RUN;
usage_error:
    return (enum roce_cli_parse_result)roce_cli_usage_error(&analysis_command);
}
