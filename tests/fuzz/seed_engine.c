/*
 * seed_engine.c - turn capture files into seed inputs of the engine fuzz
 * target (fuzz_format.h), so that fuzzing starts from real RoCE
 * conversations instead of random bytes.
 *
 *   seed_engine OUTDIR CAPTURE...
 *
 * Each capture gives two seeds, OUTDIR/NAME.wide (64 flows, 16 open
 * verdicts, 16 listed episodes, defaults otherwise) and OUTDIR/NAME.tight
 * (4 flows, 1 open verdict, 1 listed episode, ICRC checks off, a 1 us CNP
 * window, PMTU 256, a 10 Mb/s link, 1 ms PFC storm windows with a 49 %
 * share), with the frames and their time steps. Time steps the
 * format cannot hold are clamped (63 ms at most). Captures with a link
 * type the fuzz format does not list are skipped with a message.
 * Exit status: 0 success, 1 an error (reported), 2 usage.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "fuzz_format.h"
#include "roce_engine.h"

#define EXIT_USAGE   2
#define ERR_LEN      512
#define PATH_LEN     4096
#define WIDE_FLOWS   60u   /* FZ_FLOWS_MIN + 60 = 64 flows */
#define WIDE_BOUNDS  0xFFu /* 16 open verdicts, 16 episodes */
#define TIGHT_FLOWS  0u    /* 4 flows */
#define TIGHT_BOUNDS 0x00u /* 1 open verdict, 1 episode */
#define WINDOW_1US   1u
#define WINDOW_100US 2u
#define PMTU_256     1u
#define TIGHT_PFC    0x7Du /* 10 Mb/s, 1 ms windows, 7 x 7 = 49 % */
#define MAX_FRAME    0xFFFFu

enum seed_kind { SEED_WIDE = 0, SEED_TIGHT = 1, SEED_KINDS = 2 };

/* Index of linktype in FZ_LINKTYPES, or -1. */
static int link_index(int linktype)
{
    static const int linktypes[] = FZ_LINKTYPES;
    for (int i = 0; i < FZ_N_LINKTYPES; i++)
        if (linktypes[i] == linktype)
            return i;
    return -1;
}

/* The time byte closest to a step of delta ns. */
static uint8_t time_byte(int64_t delta)
{
    int64_t mag;
    unsigned unit;
    if (delta < 0) {
        unit = FZ_T_US_BACK;
        mag = -delta / ROCE_NS_PER_US;
    } else if (delta <= (int64_t)FZ_T_MAG_MASK) {
        unit = FZ_T_NS;
        mag = delta;
    } else if (delta <= (int64_t)FZ_T_MAG_MASK * ROCE_NS_PER_US) {
        unit = FZ_T_US;
        mag = (delta + ROCE_NS_PER_US / 2) / ROCE_NS_PER_US;
    } else {
        unit = FZ_T_MS;
        mag = (delta + ROCE_NS_PER_MS / 2) / ROCE_NS_PER_MS;
    }
    if (mag > (int64_t)FZ_T_MAG_MASK)
        mag = FZ_T_MAG_MASK;
    return (uint8_t)(unit << FZ_T_UNIT_SHIFT | (uint64_t)mag);
}

/* Write the header bytes of a seed of kind k for link type index li. */
static int put_header(FILE *f, int li, enum seed_kind k)
{
    uint8_t h[FZ_HEADER_LEN];
    h[0] = (uint8_t)li;
    if (k == SEED_WIDE) {
        h[1] = (uint8_t)(WINDOW_100US << FZ_F_WINDOW_SHIFT);
        h[2] = WIDE_FLOWS;
        h[3] = WIDE_BOUNDS;
        h[4] = 0;
    } else {
        h[1] =
            (uint8_t)(FZ_F_NO_ICRC | PMTU_256 << FZ_F_PMTU_SHIFT | WINDOW_1US << FZ_F_WINDOW_SHIFT);
        h[2] = TIGHT_FLOWS;
        h[3] = TIGHT_BOUNDS;
        h[4] = TIGHT_PFC;
    }
    return fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : -1;
}

/* Append one frame record to f. */
static int put_frame(FILE *f, const struct roce_frame_in *fr, int64_t delta)
{
    uint8_t r[FZ_RECORD_LEN];
    uint32_t caplen = fr->caplen > MAX_FRAME ? MAX_FRAME : fr->caplen;
    uint32_t extra = fr->wirelen - fr->caplen;
    if (extra >= FZ_WIRE_MAX)
        extra = FZ_WIRE_MAX - 1;
    r[0] = time_byte(delta);
    r[1] = 0;
    r[2] = (uint8_t)caplen;
    r[3] = (uint8_t)(caplen >> 8);
    r[4] = (uint8_t)extra;
    r[5] = (uint8_t)(extra >> 8);
    return fwrite(r, 1, sizeof r, f) == sizeof r && fwrite(fr->data, 1, caplen, f) == caplen ? 0
                                                                                             : -1;
}

/* Write both seeds of one capture; 0, or -1 (reported). */
static int seed_capture(const char *outdir, const char *path)
{
    static const char *const suffix[SEED_KINDS] = {"wide", "tight"};
    char err[ERR_LEN], out[SEED_KINDS][PATH_LEN], base[PATH_LEN];
    FILE *f[SEED_KINDS] = {NULL, NULL};
    struct roce_capture_frame cf;
    struct roce_frame_in fr;
    int rc = -1;

    struct roce_capture *c = roce_capture_open(path, err, sizeof err);
    if (c == NULL) {
        fprintf(stderr, "seed_engine: %s: %s\n", path, err);
        return -1;
    }
    /* ERF records (ibdump) carry InfiniBand; records of other types are left out */
    int lt = roce_capture_linktype(c);
    if (lt == ROCE_LINKTYPE_ERF)
        lt = ROCE_LINKTYPE_INFINIBAND;
    int li = link_index(lt);
    if (li < 0) {
        fprintf(stderr, "seed_engine: %s: link type %d not in the fuzz format, skipped\n", path,
                lt);
        roce_capture_close(c);
        return 0;
    }
    snprintf(base, sizeof base, "%s", path);
    for (int k = 0; k < SEED_KINDS; k++) {
        snprintf(out[k], sizeof out[k], "%s/%s.%s", outdir, basename(base), suffix[k]);
        f[k] = fopen(out[k], "wb");
        if (f[k] == NULL || put_header(f[k], li, (enum seed_kind)k) != 0)
            goto out;
    }
    int64_t prev = 0;
    int first = 1;
    while (roce_capture_next(c, &cf) == ROCE_CAPTURE_FRAME) {
        roce_capture_frame_in(&cf, 0, &fr);
        if (fr.linktype != lt)
            continue;
        int64_t delta = first ? 0 : fr.ts_ns - prev;
        prev = fr.ts_ns;
        first = 0;
        for (int k = 0; k < SEED_KINDS; k++)
            if (put_frame(f[k], &fr, delta) != 0)
                goto out;
    }
    rc = 0;
out:
    for (int k = 0; k < SEED_KINDS; k++)
        if (f[k] != NULL && fclose(f[k]) != 0)
            rc = -1;
    if (rc != 0)
        fprintf(stderr, "seed_engine: cannot write the seeds of %s\n", path);
    roce_capture_close(c);
    return rc;
}

int main(int argc, char **argv)
{
    int status = EXIT_SUCCESS;
    if (argc < 3) {
        fprintf(stderr, "usage: seed_engine OUTDIR CAPTURE...\n");
        return EXIT_USAGE;
    }
    for (int i = 2; i < argc; i++)
        if (seed_capture(argv[1], argv[i]) != 0)
            status = EXIT_FAILURE;
    return status;
}
