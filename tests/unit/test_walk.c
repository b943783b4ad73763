/*
 * test_walk.c - one walk of each frame (analyzer/capture/walk.h): the
 * reader of `rocescope -T N` reads capture files once and hands each part
 * its own frames through a ring. Over files of many address pairs, with
 * rings of every size down to one batch of one frame, the reader in a part
 * of its own or apart, the frames read by the own readers or by libpcap
 * (copied into the batches either way: the reader's buffer moves on):
 *   - every frame reaches exactly one part, the part of its key class
 *     (roce_split_walk_frame), in frame order, with its bytes, lengths and
 *     the input's latest time up to it, numbered on from file to file;
 *   - a part slower than the reader fills its ring: the reader waits
 *     (back-pressure) and nothing is lost.
 */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocegen_build.h"
#include "test_util.h"
#include "walk.h"

#define MAX_FRAMES 24000
#define MAX_PARTS  4
#define T0_NS      1700000000000000000LL

/* The frames of the files, in the order the reader numbers them. */
struct tframe {
    uint8_t b[128];
    uint32_t len;
    int64_t ts;
    int64_t latest; /* the input's latest time up to the frame */
};
static struct tframe frames[MAX_FRAMES];
static size_t n_frames;

/* What the parts were handed. */
struct check {
    struct roce_walk *w;
    const struct roce_config *cfg;
    unsigned parts, part;
    useconds_t slow; /* sleep this long at the first batch */
    uint64_t got, last;
    int bad;         /* a frame of another part, out of order, or not as read */
    uint64_t passed; /* alone: calls of passed (every ROCE_WALK_PASSED-th frame of the others) */
};
static atomic_int seen[MAX_FRAMES + 1];

static void check_frame(struct check *c, const struct roce_frame_in *in, int64_t now)
{
    struct roce_split_walk w;
    int64_t t;
    roce_split_walk_init(&w, c->cfg, c->parts);
    c->got++;
    if (in->frame == 0 || in->frame > n_frames || in->frame <= c->last) {
        c->bad = 1;
        return;
    }
    c->last = in->frame;
    atomic_fetch_add(&seen[in->frame], 1);
    const struct tframe *f = &frames[in->frame - 1];
    if (roce_split_walk_frame(&w, in, &t) != c->part || in->caplen != f->len ||
        in->wirelen != f->len || in->ts_ns != f->ts || now != f->latest ||
        memcmp(in->data, f->b, f->len) != 0)
        c->bad = 1;
}

static void own(void *ctx, const struct roce_frame_in *in, int64_t now)
{
    check_frame(ctx, in, now);
}

static void passed(void *ctx)
{
    ((struct check *)ctx)->passed++;
}

static void *take(void *arg)
{
    struct check *c = arg;
    const struct roce_walk_frame *f;
    size_t n;
    int first = 1;
    while ((n = roce_walk_take(c->w, c->part, &f)) > 0) {
        if (first && c->slow)
            usleep(c->slow);
        first = 0;
        for (size_t i = 0; i < n; i++)
            check_frame(c, &f[i].in, f[i].now_ns);
    }
    return NULL;
}

/* A classic pcap file of frames [from, to) at path. */
static void write_pcap(const char *path, size_t from, size_t to)
{
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    const uint32_t hdr[6] = {0xa1b23c4du, 0x00040002u, 0, 0, 65535, 1}; /* ns, Ethernet */
    fwrite(hdr, sizeof hdr, 1, fp);
    for (size_t k = from; k < to; k++) {
        uint32_t rec[4] = {(uint32_t)(frames[k].ts / 1000000000),
                           (uint32_t)(frames[k].ts % 1000000000), frames[k].len, frames[k].len};
        fwrite(rec, sizeof rec, 1, fp);
        fwrite(frames[k].b, frames[k].len, 1, fp);
    }
    CU_ASSERT_EQUAL(fclose(fp), 0);
}

/* n frames from `pairs` address pairs (1: all of one pair), at times
 * counting up but for every 97th frame, which goes back. */
static void add_frames(size_t n, uint32_t pairs)
{
    for (size_t k = 0; k < n; k++) {
        struct rg_spec s;
        struct tframe *f = &frames[n_frames];
        uint32_t i = (uint32_t)(k * 7919u) % pairs;
        rg_spec_init(&s);
        rg_addr_v4(s.src, 0x0A000001u + i);
        rg_addr_v4(s.dst, 0x0A010001u + i * 3u);
        s.psn = (uint32_t)k;
        int len = rg_build(&s, f->b, sizeof f->b, NULL);
        CU_ASSERT_FATAL(len > 0);
        f->len = (uint32_t)len;
        f->ts = T0_NS + (int64_t)n_frames * 1000 - (k % 97 == 96 ? 5000 : 0);
        f->latest = n_frames > 0 && frames[n_frames - 1].latest > f->ts
                        ? frames[n_frames - 1].latest
                        : f->ts;
        n_frames++;
    }
}

struct setup {
    unsigned parts, self, batches, frames;
    const char *reader; /* ROCESCOPE_READER */
    unsigned slow_part; /* a part that sleeps at its first batch (parts: none) */
};

/* Read the files through a walk of s: every check above. Returns the
 * reader's waits for the slow part. */
static uint64_t walk_files(const struct setup *s, const char *const *paths, int n_paths)
{
    struct roce_config cfg;
    atomic_int stop;
    struct check c[MAX_PARTS];
    pthread_t th[MAX_PARTS];
    roce_config_default(&cfg);
    atomic_init(&stop, 0);
    for (size_t k = 0; k <= n_frames; k++)
        atomic_init(&seen[k], 0);
    memset(c, 0, sizeof c);
    struct roce_walk_cfg wc = {&cfg,       s->parts,  s->self, own, &c[s->self % MAX_PARTS],
                               s->batches, s->frames, &stop,   0,   NULL};
    struct roce_walk *w = roce_walk_new(&wc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (unsigned i = 0; i < s->parts; i++) {
        c[i] = (struct check){w, &cfg, s->parts, i, i == s->slow_part ? 20000 : 0, 0, 0, 0, 0};
        if (i != s->self)
            CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, take, &c[i]), 0);
    }
    if (s->reader != NULL)
        setenv("ROCESCOPE_READER", s->reader, 1);
    for (int i = 0; i < n_paths; i++) {
        char msg[ROCE_ANALYSIS_ERR_LEN];
        CU_ASSERT_EQUAL(roce_walk_file(w, paths[i], msg, sizeof msg), 0);
    }
    roce_walk_end(w);
    unsetenv("ROCESCOPE_READER");
    uint64_t got = 0, waits = 0, part_waits;
    for (unsigned i = 0; i < s->parts; i++) {
        if (i != s->self)
            pthread_join(th[i], NULL);
        CU_ASSERT_EQUAL(c[i].bad, 0);
        got += c[i].got;
        if (i == s->slow_part)
            roce_walk_waits(w, i, &waits, &part_waits);
    }
    CU_ASSERT_EQUAL(got, n_frames);
    CU_ASSERT_EQUAL(roce_walk_analysis(w)->frame, n_frames);
    CU_ASSERT_EQUAL(roce_walk_failed(w), 0);
    size_t once = 0;
    for (size_t k = 1; k <= n_frames; k++)
        once += atomic_load(&seen[k]) == 1;
    CU_ASSERT_EQUAL(once, n_frames);
    int64_t now;
    CU_ASSERT(roce_walk_input_time(w, &now) && now == frames[n_frames - 1].latest);
    roce_walk_free(w);
    return waits;
}

static char dir[] = "/tmp/rocescope-walk-XXXXXX";
static char path_a[64], path_b[64], path_one[64];

/* Two files of 40 address pairs (4000 and 6000 frames). */
static void two_files(void)
{
    n_frames = 0;
    add_frames(4000, 40);
    add_frames(6000, 40);
    write_pcap(path_a, 0, 4000);
    write_pcap(path_b, 4000, n_frames);
}

/* Every size of ring, every reader, two and three parts. */
static void test_every_frame_once(void)
{
    const char *paths[] = {path_a, path_b};
    static const struct setup setups[] = {
        {2, 0, 0, 0, NULL, 2},  {2, 2, 0, 0, NULL, 2},      {3, 1, 2, 3, NULL, 3},
        {3, 3, 1, 1, NULL, 3},  {2, 0, 1, 1, "libpcap", 2}, {3, 3, 2, 5, "libpcap", 3},
        {4, 0, 3, 64, NULL, 4},
    };
    two_files();
    for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++)
        walk_files(&setups[i], paths, 2);
}

/* Every frame of one part, which sleeps at its first batch: its ring fills
 * and the reader waits for room, with the own reader and libpcap's. */
static void test_ring_fills(void)
{
    const char *paths[] = {path_one};
    struct roce_config cfg;
    struct roce_split_walk w;
    int64_t now;
    roce_config_default(&cfg);
    n_frames = 0;
    add_frames(20000, 1);
    write_pcap(path_one, 0, n_frames);
    struct roce_frame_in in = {1, frames[0].ts, 1, frames[0].b, frames[0].len, frames[0].len};
    roce_split_walk_init(&w, &cfg, 2);
    unsigned part = roce_split_walk_frame(&w, &in, &now);
    const struct setup own = {2, 1 - part, 2, 8, NULL, part};
    const struct setup copied = {2, 2, 4, 16, "libpcap", part};
    const struct setup defaults = {2, 2, 0, 0, NULL, part};
    /* the reader waits for room (the file's end is no longer a wait: the
     * parts have their copies) */
    CU_ASSERT(walk_files(&own, paths, 1) >= 1);
    CU_ASSERT(walk_files(&copied, paths, 1) >= 1);
    CU_ASSERT(walk_files(&defaults, paths, 1) >= 1);
}

/* Every part reading the files itself (alone): each gets exactly its own
 * frames, in order, with their bytes and the input's latest time; every
 * frame is one part's; each walk numbers every frame and ends at the
 * input's latest time. With the own reader and libpcap's, two to four
 * parts. */
static void test_alone(void)
{
    const char *paths[] = {path_a, path_b};
    static const char *const readers[] = {NULL, "libpcap"};
    struct roce_config cfg;
    roce_config_default(&cfg);
    two_files();
    for (unsigned parts = 2; parts <= MAX_PARTS; parts++)
        for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++) {
            struct check c[MAX_PARTS];
            atomic_int stop;
            atomic_init(&stop, 0);
            memset(c, 0, sizeof c);
            for (size_t k = 0; k <= n_frames; k++)
                atomic_init(&seen[k], 0);
            if (readers[r] != NULL)
                setenv("ROCESCOPE_READER", readers[r], 1);
            for (unsigned i = 0; i < parts; i++) {
                struct roce_walk_cfg wc = {&cfg, parts, i, own, &c[i], 0, 0, &stop, 1, passed};
                c[i] = (struct check){NULL, &cfg, parts, i, 0, 0, 0, 0, 0};
                struct roce_walk *w = roce_walk_new(&wc);
                CU_ASSERT_PTR_NOT_NULL_FATAL(w);
                for (int f = 0; f < 2; f++) {
                    char msg[ROCE_ANALYSIS_ERR_LEN];
                    CU_ASSERT_EQUAL(roce_walk_file(w, paths[f], msg, sizeof msg), 0);
                }
                roce_walk_end(w);
                int64_t now;
                CU_ASSERT_EQUAL(roce_walk_analysis(w)->frame, n_frames);
                CU_ASSERT(roce_walk_input_time(w, &now) && now == frames[n_frames - 1].latest);
                CU_ASSERT_EQUAL(roce_walk_failed(w), 0);
                CU_ASSERT_EQUAL(c[i].bad, 0);
                CU_ASSERT(c[i].got > 0);
                roce_walk_free(w);
            }
            unsetenv("ROCESCOPE_READER");
            size_t once = 0;
            for (size_t k = 1; k <= n_frames; k++)
                once += atomic_load(&seen[k]) == 1;
            CU_ASSERT_EQUAL(once, n_frames);
            /* each ROCE_WALK_PASSED-th frame is passed by every part but
             * the one it is of */
            uint64_t calls = 0;
            for (unsigned i = 0; i < parts; i++)
                calls += c[i].passed;
            CU_ASSERT(n_frames >= 2 * ROCE_WALK_PASSED);
            CU_ASSERT_EQUAL(calls, (uint64_t)(parts - 1) * (n_frames / ROCE_WALK_PASSED));
        }
}

static const struct tu_test tests[] = {
    {"every_frame_once", test_every_frame_once},
    {"ring_fills", test_ring_fills},
    {"alone", test_alone},
    TU_END,
};

int main(int argc, char **argv)
{
    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(path_a, sizeof path_a, "%s/a.pcap", dir);
    snprintf(path_b, sizeof path_b, "%s/b.pcap", dir);
    snprintf(path_one, sizeof path_one, "%s/one.pcap", dir);
    int rc = tu_main1(argc, argv, "walk", tests);
    unlink(path_a);
    unlink(path_b);
    unlink(path_one);
    rmdir(dir);
    return rc;
}
