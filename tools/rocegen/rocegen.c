/*
 * rocegen.c - write RoCE test captures: small deterministic scenarios, or
 * bulk traffic for benchmarks.
 *
 *   rocegen --list
 *   rocegen SCENARIO -o FILE [--pcapng | --erf] [--as-ib] [--snaplen N]
 *   rocegen bulk -o FILE --packets N --qps Q [--snaplen N | --full-size]
 *                [--loss P] [--ce P] [--bad-icrc P] [--seed S] [--pcapng] [--stats]
 *   rocegen hostile -o FILE [--pcapng]
 *   rocegen flood -o FILE --packets N --qps Q [--hosts H] [--stray-acks] [--gaps] [--ce P]
 *                 [--seed S] [--snaplen N] [--pcapng] [--stats]
 *
 * Exit status: 0 success, 1 the file could not be written, 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocegen_adversarial.h"
#include "rocegen_build.h"
#include "rocegen_bulk.h"
#include "rocegen_localize.h"
#include "rocegen_scen.h"
#include "roce_time.h"

#define EXIT_USAGE        2
#define BULK_SNAPLEN      256u /* header-only, as RoCE mirrors often are; CM REQs still fit */
#define BULK_DEFAULT_LOSS 0.0001
#define BULK_DEFAULT_CE   0.001
#define BULK_DEFAULT_SEED 1u
#define SNAPLEN_MAX       262144u
#define DECIMAL           10

static const char usage_text[] =
    "usage: rocegen --list\n"
    "       rocegen SCENARIO -o FILE [--pcapng | --erf] [--as-ib] [--snaplen N]\n"
    "       rocegen bulk -o FILE --packets N --qps Q [--snaplen N | --full-size]\n"
    "                    [--loss P] [--ce P] [--bad-icrc P] [--seed S] [--pcapng] [--stats]\n"
    "       rocegen hostile -o FILE [--pcapng]\n"
    "       rocegen localize [--tap-a FILE] [--tap-b FILE] [--mirror FILE] [--truth]\n"
    "       rocegen localize --pause upstream|cycle [--tap1 FILE] [--tap2 FILE] [--tap3 FILE]\n"
    "       rocegen flood -o FILE --packets N --qps Q [--hosts H] [--stray-acks] [--gaps]\n"
    "                     [--ce P] [--seed S] [--snaplen N] [--pcapng] [--stats]\n"
    "       rocegen --help\n";

static const char help_text[] =
    "Write RoCE captures for testing rocescope (deterministic: same arguments, same bytes).\n"
    "\n"
    "  --list          list the scenarios\n"
    "  SCENARIO        write that scenario (a few to a few dozen frames);\n"
    "                  see captures/README.md for the verdicts each frame implies\n"
    "  bulk            write benchmark traffic: Q RC connections (CM set-up first) carrying\n"
    "                  RDMA WRITEs at ~100 Gb/s with a 4096-byte PMTU, one ACK per message,\n"
    "                  losses answered by a NAK and a go-back-N resend, CE marks answered by\n"
    "                  CNPs 10-50 us later (at most one per QP per 50 us)\n"
    "  hostile         write the hostile-values capture of the robustness tests: PSN wrap\n"
    "                  edges, zero and maximal lengths, bad pad counts, every opcode, AETH\n"
    "                  reserved types, replies to nothing, CM abuse (tests/robustness/)\n"
    "  localize        write the multi-point captures of `rocescope localize`: one\n"
    "                  exchange as seen by a tap on each host's link (--tap-a, --tap-b)\n"
    "                  and by a mirror collector getting both as ERSPAN sessions\n"
    "                  (--mirror); --truth prints every loss and CE mark and where it\n"
    "                  happened, as JSON (captures/README.md \"localize/\"); --pause:\n"
    "                  three taps on three links where a PFC pause moves upstream\n"
    "                  (upstream) or goes round a cycle (cycle)\n"
    "  flood           write Q distinct queue pairs round-robin, each request (RDMA WRITE\n"
    "                  Only, 0 bytes) followed by its ACK: the flow-table stress test;\n"
    "                  --packets, --ce, --seed, --snaplen, --stats as for bulk, --qps up to\n"
    "                  268435456, CE marks never answered; --hosts H spreads them over\n"
    "                  H host pairs (1..256, default 256); --stray-acks: ACK PSNs half\n"
    "                  the PSN space away, so that no flow pairs; --gaps: N / Q - 1 rounds\n"
    "                  of requests that each skip a PSN, then one ACK per queue pair of\n"
    "                  its last PSN (N / Q - 2 gaps per queue pair wait for it)\n"
    "  -o FILE         output file, '-' for standard output\n"
    "  --pcapng        write pcapng (default: pcap with nanosecond time stamps)\n"
    "  --erf           write a raw ERF file (InfiniBand records; the scenario's frames\n"
    "                  must be InfiniBand: an ib_* scenario, or --as-ib)\n"
    "  --as-ib         write the scenario's traffic as native InfiniBand (link type 247):\n"
    "                  LIDs from the addresses' last two bytes (RoCEv1: a GRH with the\n"
    "                  GIDs), CE marks as FECN, CNPs as InfiniBand CNPs, other frames\n"
    "                  as raw packets; same transport, times and frame numbers\n"
    "  --snaplen N     keep at most N bytes of each frame (original length kept);\n"
    "                  scenarios default to whole frames (truncated: 64), bulk to 256\n"
    "  --full-size     bulk: keep whole frames (same as --snaplen 0)\n"
    "  --packets N     bulk: frames to write, all kinds counted\n"
    "  --qps Q         bulk: connections, 1..65536\n"
    "  --loss P        bulk: probability a new request packet is lost (default 0.0001)\n"
    "  --ce P          bulk: probability a request packet is CE-marked (default 0.001)\n"
    "  --bad-icrc P    bulk: probability a frame captured whole has a wrong ICRC (default 0)\n"
    "  --seed S        bulk: random seed (default 1)\n"
    "  --stats         bulk: print what was generated (ground truth) to standard error\n"
    "\n"
    "Exit status: 0 success, 1 write error, 2 usage error.\n";

struct args {
    const char *cmd;
    const char *out;
    int pcapng, erf, as_ib, full_size, stats, have_snaplen, help, list;
    uint32_t snaplen;
    struct rg_bulk_opts bulk;
    int have_packets, have_qps, have_ce, have_bad_icrc, stray_acks, gaps;
    uint32_t hosts; /* flood --hosts, 0 when not given */
};

/* Print msg and the usage to stderr; returns EXIT_USAGE. */
static int usage_error(const char *msg, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "rocegen: %s: %s\n", msg, arg);
    else
        fprintf(stderr, "rocegen: %s\n", msg);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}

/* Parse a decimal unsigned number in [0, max]; returns 0 or -1. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, DECIMAL);
    if (errno != 0 || *end != '\0' || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Parse a probability in [0, 1]; returns 0 or -1. */
static int parse_prob(const char *s, double *out)
{
    char *end;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !(v >= 0.0 && v <= 1.0))
        return -1;
    *out = v;
    return 0;
}

/* Parse argv into a; returns 0, or an exit status for a usage error. */
static int parse_args(int argc, char **argv, struct args *a)
{
    memset(a, 0, sizeof *a);
    a->bulk.loss = BULK_DEFAULT_LOSS;
    a->bulk.ce = BULK_DEFAULT_CE;
    a->bulk.seed = BULK_DEFAULT_SEED;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(o, "-o") == 0 || strcmp(o, "--output") == 0) {
            if (v == NULL)
                return usage_error("missing file after", o);
            a->out = v;
            i++;
        } else if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            a->help = 1;
        } else if (strcmp(o, "--list") == 0) {
            a->list = 1;
        } else if (strcmp(o, "--pcapng") == 0) {
            a->pcapng = 1;
        } else if (strcmp(o, "--erf") == 0) {
            a->erf = 1;
        } else if (strcmp(o, "--as-ib") == 0) {
            a->as_ib = 1;
        } else if (strcmp(o, "--full-size") == 0) {
            a->full_size = 1;
        } else if (strcmp(o, "--stray-acks") == 0) {
            a->stray_acks = 1;
        } else if (strcmp(o, "--gaps") == 0) {
            a->gaps = 1;
        } else if (strcmp(o, "--stats") == 0) {
            a->stats = 1;
        } else if (strcmp(o, "--snaplen") == 0) {
            if (parse_u64(v, SNAPLEN_MAX, &n) != 0)
                return usage_error("--snaplen needs a number 0..262144, got", v ? v : "nothing");
            a->snaplen = (uint32_t)n;
            a->have_snaplen = 1;
            i++;
        } else if (strcmp(o, "--packets") == 0) {
            if (parse_u64(v, UINT64_MAX, &n) != 0 || n == 0)
                return usage_error("--packets needs a positive number, got", v ? v : "nothing");
            a->bulk.packets = n;
            a->have_packets = 1;
            i++;
        } else if (strcmp(o, "--qps") == 0) {
            if (parse_u64(v, RG_FLOOD_MAX_QPS, &n) != 0 || n == 0)
                return usage_error("--qps needs a number 1..268435456, got", v ? v : "nothing");
            a->bulk.qps = (uint32_t)n;
            a->have_qps = 1;
            i++;
        } else if (strcmp(o, "--hosts") == 0) {
            if (parse_u64(v, RG_FLOOD_MAX_HOSTS, &n) != 0 || n == 0)
                return usage_error("--hosts needs a number 1..256, got", v ? v : "nothing");
            a->hosts = (uint32_t)n;
            i++;
        } else if (strcmp(o, "--seed") == 0) {
            if (parse_u64(v, UINT64_MAX, &n) != 0)
                return usage_error("--seed needs a number, got", v ? v : "nothing");
            a->bulk.seed = n;
            i++;
        } else if (strcmp(o, "--loss") == 0) {
            if (parse_prob(v, &a->bulk.loss) != 0 || a->bulk.loss >= 1.0)
                return usage_error("--loss needs a probability 0 <= P < 1, got", v ? v : "nothing");
            i++;
        } else if (strcmp(o, "--bad-icrc") == 0) {
            if (parse_prob(v, &a->bulk.bad_icrc) != 0)
                return usage_error("--bad-icrc needs a probability 0 <= P <= 1, got",
                                   v ? v : "nothing");
            a->have_bad_icrc = 1;
            i++;
        } else if (strcmp(o, "--ce") == 0) {
            if (parse_prob(v, &a->bulk.ce) != 0)
                return usage_error("--ce needs a probability 0 <= P <= 1, got", v ? v : "nothing");
            a->have_ce = 1;
            i++;
        } else if (o[0] == '-' && o[1] != '\0') {
            return usage_error("unknown option", o);
        } else if (a->cmd == NULL) {
            a->cmd = o;
        } else {
            return usage_error("unexpected argument", o);
        }
    }
    return 0;
}

/* Open the output named by a (stdout for "-"). NULL on error (reported). */
static struct rg_writer *open_output(const struct args *a, int linktype, uint32_t snaplen)
{
    enum rg_format fmt = a->erf ? RG_FMT_ERF : a->pcapng ? RG_FMT_PCAPNG : RG_FMT_PCAP;
    struct rg_writer *w = strcmp(a->out, "-") == 0 ? rg_writer_fopen(stdout, fmt, linktype, snaplen)
                                                   : rg_writer_open(a->out, fmt, linktype, snaplen);
    if (w == NULL)
        fprintf(stderr, "rocegen: cannot write %s: %s\n", a->out, strerror(errno));
    return w;
}

/* Close w; report a failure. Returns the exit status. */
static int close_output(const struct args *a, struct rg_writer *w, int err)
{
    if (rg_writer_close(w) != 0 || err == RG_ERR_IO) {
        fprintf(stderr, "rocegen: write error on %s\n", a->out);
        return EXIT_FAILURE;
    }
    if (err == RG_ERR_AS_IB) {
        fprintf(stderr, "rocegen: %s: %s\n", a->cmd, rg_strerror(err));
        return EXIT_USAGE;
    }
    if (err != 0) {
        fprintf(stderr, "rocegen: %s\n", rg_strerror(err));
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* --list: one line per scenario. */
static int run_list(void)
{
    for (const struct rg_scenario *s = rg_scenarios; s->name != NULL; s++)
        printf("%-14s linktype %3d%s  %s\n", s->name, s->linktype,
               s->snaplen ? " snaplen" : "        ", s->summary);
    return EXIT_SUCCESS;
}

/* Write scenario sc to the output of a; returns the exit status. */
static int run_scenario(const struct args *a, const struct rg_scenario *sc)
{
    struct rg_sc *c;
    int linktype =
        a->as_ib && sc->linktype != RG_LINKTYPE_ERF ? RG_LINKTYPE_INFINIBAND : sc->linktype;
    if (a->full_size || a->have_packets || a->have_qps || a->have_bad_icrc || a->stats)
        return usage_error("bulk options given for scenario", sc->name);
    if (a->erf && a->pcapng)
        return usage_error("--erf and --pcapng disagree", NULL);
    if (a->erf && linktype != RG_LINKTYPE_INFINIBAND && linktype != RG_LINKTYPE_ERF)
        return usage_error("--erf needs InfiniBand frames (an ib_* scenario, or --as-ib):",
                           sc->name);
    struct rg_writer *w = open_output(a, linktype, a->have_snaplen ? a->snaplen : sc->snaplen);
    if (w == NULL)
        return EXIT_FAILURE;
    c = malloc(sizeof *c);
    if (c == NULL) {
        rg_writer_close(w);
        fprintf(stderr, "rocegen: out of memory\n");
        return EXIT_FAILURE;
    }
    rg_sc_init(c, w, linktype);
    /* an InfiniBand scenario is written as it is (its FECN marks are not
     * RoCEv2's CE marks to be turned into FECN) */
    c->as_ib = (uint8_t)(a->as_ib && sc->linktype != RG_LINKTYPE_INFINIBAND &&
                         sc->linktype != RG_LINKTYPE_ERF);
    sc->run(c);
    int err = c->err;
    free(c);
    return close_output(a, w, err);
}

/* --stats: what bulk generated, to stderr. */
static void print_stats(const struct rg_bulk_stats *st)
{
    fprintf(stderr,
            "frames %" PRIu64 " (cm %" PRIu64 ", new requests %" PRIu64 ", retransmitted %" PRIu64
            ", acks %" PRIu64 ", naks %" PRIu64 ", cnps %" PRIu64 ")\nlost %" PRIu64
            ", go-back-N episodes %" PRIu64 ", ce marks %" PRIu64 ", acks left out %" PRIu64
            ", bad icrcs %" PRIu64 "\nspan %" PRId64 ".%09" PRId64 " s\n",
            st->frames, st->cm_frames, st->requests, st->retransmitted, st->acks, st->naks,
            st->cnps, st->lost, st->episodes, st->ce_marks, st->acks_dropped, st->bad_icrcs,
            (st->last_ts_ns - st->first_ts_ns) / ROCE_NS_PER_SEC,
            (st->last_ts_ns - st->first_ts_ns) % ROCE_NS_PER_SEC);
}

/* Write bulk traffic as a asks; returns the exit status. */
static int run_bulk(struct args *a)
{
    struct rg_bulk_stats st;
    if (!a->have_packets || !a->have_qps)
        return usage_error("bulk needs --packets and --qps", NULL);
    if (a->bulk.qps > RG_BULK_MAX_QPS)
        return usage_error("--qps of bulk needs a number 1..65536", NULL);
    if (a->full_size && a->have_snaplen && a->snaplen != 0)
        return usage_error("--full-size and --snaplen disagree", NULL);
    a->bulk.snaplen = a->full_size ? 0 : a->have_snaplen ? a->snaplen : BULK_SNAPLEN;
    struct rg_writer *w = open_output(a, RG_LINKTYPE_ETHERNET, a->bulk.snaplen);
    if (w == NULL)
        return EXIT_FAILURE;
    memset(&st, 0, sizeof st);
    int err = rg_bulk_run(w, &a->bulk, &st);
    if (a->stats)
        print_stats(&st);
    return close_output(a, w, err);
}

/* Write flood traffic as a asks; returns the exit status. */
static int run_flood(struct args *a)
{
    struct rg_flood_stats st;
    struct rg_flood_opts fo;
    if (!a->have_packets || !a->have_qps)
        return usage_error("flood needs --packets and --qps", NULL);
    if (a->have_bad_icrc)
        return usage_error("--bad-icrc is an option of bulk, not of", "flood");
    if (a->full_size && a->have_snaplen && a->snaplen != 0)
        return usage_error("--full-size and --snaplen disagree", NULL);
    memset(&fo, 0, sizeof fo);
    fo.packets = a->bulk.packets;
    fo.qps = a->bulk.qps;
    fo.ce = a->have_ce ? a->bulk.ce : 0;
    fo.seed = a->bulk.seed;
    fo.hosts = a->hosts;
    fo.stray_acks = a->stray_acks;
    fo.gaps = a->gaps;
    fo.snaplen = a->full_size ? 0 : a->snaplen;
    struct rg_writer *w = open_output(a, RG_LINKTYPE_ETHERNET, fo.snaplen);
    if (w == NULL)
        return EXIT_FAILURE;
    int err = rg_flood_run(w, &fo, &st);
    if (a->stats)
        fprintf(stderr,
                "frames %" PRIu64 " (requests %" PRIu64 ", acks %" PRIu64 "), ce marks %" PRIu64
                ", distinct flows %" PRIu64 ", gaps %" PRIu64 "\n",
                st.frames, st.requests, st.acks, st.ce_marks, st.flows, st.gaps);
    return close_output(a, w, err);
}

/* The scenarios that are not golden captures (not in --list). */
static const struct rg_scenario robustness_scenarios[] = {
    {"hostile", "hostile values for the robustness tests", RG_LINKTYPE_ETHERNET, 0,
     rg_scen_hostile},
    {NULL, NULL, 0, 0, NULL},
};

/* Parse the arguments, dispatch to --help, --list, bulk or a scenario. */
int main(int argc, char **argv)
{
    struct args a;
    if (argc > 1 && strcmp(argv[1], "localize") == 0)
        return rg_localize_main(argc - 1, argv + 1);
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc;
    if (a.help) {
        fputs(usage_text, stdout);
        fputs(help_text, stdout);
        return EXIT_SUCCESS;
    }
    if (a.list)
        return run_list();
    if (a.cmd == NULL)
        return usage_error("no scenario given (try --list)", NULL);
    if (a.out == NULL)
        return usage_error("no output file given (-o FILE)", NULL);
    if ((strcmp(a.cmd, "bulk") == 0 || strcmp(a.cmd, "flood") == 0) && (a.erf || a.as_ib))
        return usage_error("--erf and --as-ib are for scenarios, not", a.cmd);
    if (strcmp(a.cmd, "bulk") == 0)
        return run_bulk(&a);
    if (strcmp(a.cmd, "flood") == 0)
        return run_flood(&a);
    const struct rg_scenario *sc = rg_scenario_find(a.cmd);
    for (const struct rg_scenario *r = robustness_scenarios; sc == NULL && r->name != NULL; r++)
        if (strcmp(r->name, a.cmd) == 0)
            sc = r;
    if (sc == NULL)
        return usage_error("unknown scenario (try --list)", a.cmd);
    return run_scenario(&a, sc);
}
