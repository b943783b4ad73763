/*
 * roce_vantage_sample.c - transmission records from the engine's output,
 * split keys of mirrored frames, and the per-point samples of the first
 * reading (see roce_vantage_sample.h).
 *
 * A sample keeps the transmissions whose key hash has its low `level`
 * sample bits zero (consistent hash sampling, as in trajectory sampling):
 * every point keeps the same transmissions at the same level, so samples
 * taken apart still meet. When the table is full the level goes up and the
 * entries that no longer qualify leave; memory stays at max_keys entries
 * whatever the capture's length.
 */
#include "roce_vantage_sample.h"

#include <stdlib.h>
#include <string.h>

#define SAMPLE_SHIFT 32 /* sample bits: the high half of the hash; slots: the low half */
#define MAX_LEVEL    31u
#define MIN_KEYS     16u
#define FLOWS_START  256u
#define COUNT_MAX    UINT32_MAX

/* ---- records ---- */

int roce_vtx_from_frame(const struct roce_frame_out *o, struct roce_vtx *tx)
{
    const struct roce_pkt *p = &o->pkt;
    const struct roce_verdict *v = &o->verdict;
    if (p->cls != ROCE_CLASS_ROCE || !p->bth_captured || p->op == NULL || !v->has_flow)
        return 0;
    if (p->op->kind != ROCE_KIND_REQUEST && p->op->kind != ROCE_KIND_RESPONSE)
        return 0;
    memset(tx, 0, sizeof *tx);
    tx->key = v->key;
    tx->ts_ns = v->ts_ns;
    tx->frame = v->frame;
    tx->psn = p->psn;
    tx->len = p->end_off - p->bth_off;
    tx->opcode = p->opcode;
    if (p->op->kind == ROCE_KIND_REQUEST) {
        enum roce_transport tr = roce_opcode_transport(p->opcode);
        tx->flags |= ROCE_VTX_REQUEST;
        if (tr == ROCE_TRANSPORT_RC || tr == ROCE_TRANSPORT_UC || tr == ROCE_TRANSPORT_XRC)
            tx->flags |= ROCE_VTX_LOCATE;
        if (roce_pkt_congestion_marked(p))
            tx->flags |= ROCE_VTX_CE;
    }
    if (v->flags & ROCE_V_RETRANSMISSION)
        tx->flags |= ROCE_VTX_RETX;
    if ((v->flags & ROCE_V_EPISODE_START) && v->trigger != ROCE_TRIGGER_IMPLIED)
        tx->flags |= ROCE_VTX_EPISODE;
    if (v->flags & ROCE_V_GAP) {
        tx->flags |= ROCE_VTX_GAP;
        tx->gap_first = v->expected_psn;
        tx->gap_count = v->missing_psns;
    }
    return 1;
}

void roce_vantage_split_key(const struct roce_pkt *pkt, enum roce_vantage_split by,
                            struct roce_split_key *k)
{
    memset(k, 0, sizeof *k);
    if (pkt->encap_depth == 0)
        return;
    if (by == ROCE_SPLIT_ERSPAN_SESSION &&
        (pkt->encap == ROCE_ENCAP_ERSPAN2 || pkt->encap == ROCE_ENCAP_ERSPAN3)) {
        k->has = 1;
        k->session = (uint16_t)pkt->encap_id;
    } else if (by == ROCE_SPLIT_OUTER_SOURCE) {
        k->has = 1;
        k->af = pkt->encap_src_af;
        memcpy(k->addr, pkt->encap_src, ROCE_ADDR_LEN);
    }
}

/* ---- hashing ---- */

static uint64_t mix_addr(uint64_t h, const uint8_t addr[ROCE_ADDR_LEN])
{
    uint64_t w[ROCE_ADDR_LEN / sizeof(uint64_t)];
    memcpy(w, addr, sizeof w);
    for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++)
        h = roce_hash_mix(h, w[i]);
    return h;
}

uint64_t roce_vtx_hash(const struct roce_vtx *tx)
{
    uint64_t h = ROCE_HASH_SEED;
    h = mix_addr(h, tx->key.src);
    h = mix_addr(h, tx->key.dst);
    h = roce_hash_mix(h, (uint64_t)tx->key.dqpn << 8 | tx->key.version);
    h = roce_hash_mix(h, (uint64_t)tx->psn << 40 | (uint64_t)tx->opcode << 32 | tx->len);
    h = (h ^ (h >> 29)) * ROCE_HASH_MUL2;
    h ^= h >> 32;
    return h != 0 ? h : 1; /* 0 marks an empty slot */
}

int roce_vsample_keeps(uint64_t h, unsigned level)
{
    uint32_t bits = (uint32_t)(h >> SAMPLE_SHIFT);
    return level == 0 || (bits & ((UINT32_C(1) << level) - 1)) == 0;
}

/* ---- the sample ---- */

static int flow_eq(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_vsample *s = ctx;
    return roce_vflow_key_eq(&s->flows[val - 1], key);
}

struct roce_vsample *roce_vsample_new(uint32_t max_keys, uint32_t max_flows)
{
    struct roce_vsample *s = calloc(1, sizeof *s);
    uint32_t slots = 1;
    if (s == NULL)
        return NULL;
    if (max_keys < MIN_KEYS)
        max_keys = MIN_KEYS;
    while (slots < 2 * (uint64_t)max_keys && slots < (UINT32_C(1) << 31))
        slots <<= 1;
    s->max_keys = max_keys < slots / 2 ? max_keys : slots / 2;
    s->mask = slots - 1;
    s->max_flows = max_flows;
    s->tab = calloc(slots, sizeof *s->tab);
    s->flows = calloc(max_flows ? max_flows : 1, sizeof *s->flows);
    if (s->tab == NULL || s->flows == NULL || roce_index_init(&s->flow_index, FLOWS_START) != 0) {
        roce_vsample_free(s);
        return NULL;
    }
    return s;
}

void roce_vsample_free(struct roce_vsample *s)
{
    if (s == NULL)
        return;
    free(s->tab);
    free(s->flows);
    roce_index_free(&s->flow_index);
    free(s);
}

uint64_t roce_vsample_count(const struct roce_vsample *s)
{
    return s->count;
}

/* The slot of h: its entry, or the empty slot where it would go. */
static struct vs_entry *slot_of(struct vs_entry *tab, uint32_t mask, uint64_t h)
{
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask)
        if (tab[i].h == h || tab[i].h == 0)
            return &tab[i];
}

const struct vs_entry *roce_vsample_find(const struct roce_vsample *s, uint64_t h)
{
    const struct vs_entry *e = slot_of(s->tab, s->mask, h);
    return e->h == h ? e : NULL;
}

/* Raise the level by one: keep the entries that still qualify. 0, or -1
 * when out of memory (the sample then stops growing). */
static int raise_level(struct roce_vsample *s)
{
    struct vs_entry *nt = calloc((size_t)s->mask + 1, sizeof *nt);
    if (nt == NULL || s->level >= MAX_LEVEL) {
        free(nt);
        return -1;
    }
    s->level++;
    s->n = 0;
    for (uint32_t i = 0; i <= s->mask; i++)
        if (s->tab[i].h != 0 && roce_vsample_keeps(s->tab[i].h, s->level)) {
            *slot_of(nt, s->mask, s->tab[i].h) = s->tab[i];
            s->n++;
        }
    free(s->tab);
    s->tab = nt;
    return 0;
}

/* Remember a request flow the point saw. */
static void note_flow(struct roce_vsample *s, const struct roce_flow_key *k)
{
    uint32_t h = roce_vflow_key_hash(k);
    if (roce_index_find(&s->flow_index, h, flow_eq, k, s) != 0 || s->n_flows >= s->max_flows)
        return;
    s->flows[s->n_flows] = *k;
    if (roce_index_insert(&s->flow_index, h, s->n_flows + 1) == 0)
        s->n_flows++;
}

void roce_vsample_add(struct roce_vsample *s, const struct roce_vtx *tx)
{
    s->count++;
    if (tx->flags & ROCE_VTX_LOCATE)
        note_flow(s, &tx->key);
    uint64_t h = roce_vtx_hash(tx);
    if (!roce_vsample_keeps(h, s->level))
        return;
    struct vs_entry *e = slot_of(s->tab, s->mask, h);
    if (e->h == h) {
        if (e->count < COUNT_MAX)
            e->count++; /* seen again (a resend, a duplicate ACK): not used */
        return;
    }
    while (s->n >= s->max_keys) {
        if (raise_level(s) != 0 || !roce_vsample_keeps(h, s->level))
            return;
        e = slot_of(s->tab, s->mask, h);
    }
    e->h = h;
    e->ts = tx->ts_ns;
    e->count = 1;
    memcpy(e->src, tx->key.src, ROCE_ADDR_LEN);
    memcpy(e->dst, tx->key.dst, ROCE_ADDR_LEN);
    s->n++;
}
