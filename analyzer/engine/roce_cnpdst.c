/*
 * roce_cnpdst.c - the latest CNP sent to each destination address
 * (ANALYSIS.md "CNP pacing"): the third of the three scopes a NIC may pace
 * its CNPs by (per destination QP and per pair of hosts are kept on the
 * flows and their address pairs, roce_ecn.c).
 *
 * A set-associative table of ROCE_CNPDST_SETS x ROCE_CNPDST_WAYS
 * destinations (32 KB, allocated at the first CNP); a destination of a full
 * set takes the place of the one that got a CNP least recently, counted in
 * cnp_dsts_evicted. Destinations never leave otherwise, so that
 * roce_split_exact can tell from the parts' tables whether one engine's
 * would have kept them all.
 */
#include "roce_cnpdst.h"

#include <stdlib.h>
#include <string.h>

#include "roce_internal.h"

struct cnpdst {
    uint8_t addr[ROCE_ADDR_LEN];
    uint8_t version, used;
    int64_t last; /* its latest CNP */
};

struct roce_cnpdst {
    struct cnpdst d[ROCE_CNPDST_SETS * ROCE_CNPDST_WAYS];
};

static unsigned set_of(const uint8_t addr[ROCE_ADDR_LEN])
{
    return (roce_addr_hash(addr) >> 8) % ROCE_CNPDST_SETS;
}

static struct cnpdst *find(const struct roce_cnpdst *t, const uint8_t addr[ROCE_ADDR_LEN],
                           uint8_t version)
{
    struct cnpdst *set = (struct cnpdst *)&t->d[set_of(addr) * ROCE_CNPDST_WAYS];
    for (unsigned w = 0; w < ROCE_CNPDST_WAYS; w++)
        if (set[w].used && set[w].version == version &&
            memcmp(set[w].addr, addr, ROCE_ADDR_LEN) == 0)
            return &set[w];
    return NULL;
}

int64_t roce_cnpdst_gap(struct roce_engine *e, const uint8_t dst[ROCE_ADDR_LEN], uint8_t version,
                        int64_t ts)
{
    if (e->cnpdst == NULL && (e->cnpdst = calloc(1, sizeof *e->cnpdst)) == NULL) {
        e->alloc_failures++;
        return -1;
    }
    struct cnpdst *d = find(e->cnpdst, dst, version);
    if (d != NULL) {
        int64_t gap = ts - d->last;
        d->last = ts;
        return gap;
    }
    struct cnpdst *set = &e->cnpdst->d[set_of(dst) * ROCE_CNPDST_WAYS];
    d = &set[0];
    for (unsigned w = 0; w < ROCE_CNPDST_WAYS && d->used; w++)
        if (!set[w].used || set[w].last < d->last)
            d = &set[w];
    if (d->used)
        e->totals.cnp_dsts_evicted++;
    memcpy(d->addr, dst, ROCE_ADDR_LEN);
    d->version = version;
    d->used = 1;
    d->last = ts;
    return -1;
}

void roce_cnpdst_free(struct roce_engine *e)
{
    free(e->cnpdst);
    e->cnpdst = NULL;
}

int roce_cnpdst_has(const struct roce_engine *e, const uint8_t dst[ROCE_ADDR_LEN], uint8_t version)
{
    return e->cnpdst != NULL && find(e->cnpdst, dst, version) != NULL;
}

unsigned roce_cnpdst_set_use(const struct roce_engine *e, unsigned s)
{
    unsigned n = 0;
    for (unsigned w = 0; e->cnpdst != NULL && w < ROCE_CNPDST_WAYS; w++)
        n += e->cnpdst->d[s * ROCE_CNPDST_WAYS + w].used;
    return n;
}

void roce_cnpdst_each(const struct roce_engine *e,
                      void (*fn)(const uint8_t dst[ROCE_ADDR_LEN], uint8_t version, void *ctx),
                      void *ctx)
{
    for (unsigned i = 0; e->cnpdst != NULL && i < ROCE_CNPDST_SETS * ROCE_CNPDST_WAYS; i++)
        if (e->cnpdst->d[i].used)
            fn(e->cnpdst->d[i].addr, e->cnpdst->d[i].version, ctx);
}
