/*
 * report_fields_access.c - the fields of report_fields.c by offset: values,
 * lookup by JSON path, merging, renumbering (see report_fields.h).
 */
#include "report_fields.h"

#include <stdio.h>
#include <string.h>

#define NAME_LEN 96

uint64_t roce_field_u64(const void *base, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)base + off, sizeof v);
    return v;
}

/* Store v as the uint64_t at base + off. */
static void set_u64(void *base, size_t off, uint64_t v)
{
    memcpy((char *)base + off, &v, sizeof v);
}

void roce_field_add(const struct roce_field *f, void *dst, const void *src, int subtract)
{
    /* int64_t times paused add up the same way, modulo 2^64 */
    for (size_t off = f->off; off < f->off + f->size; off += sizeof(uint64_t)) {
        uint64_t a = roce_field_u64(dst, off), b = roce_field_u64(src, off);
        set_u64(dst, off, subtract ? a - b : a + b);
    }
}

int roce_field_is_count(const struct roce_field *f)
{
    return f->merge == ROCE_MERGE_SUM && !(f->flags & ROCE_FF_GAUGE);
}

const struct roce_field *roce_fields_find(const struct roce_fieldset *fs, const char *path,
                                          size_t *off)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        if (f->key == NULL)
            continue;
        size_t plen = strlen(f->path), klen = strlen(f->key);
        /* path is "PATH.KEY" (or "KEY"), then possibly ".MORE" into an object */
        const char *k = path + plen + (plen != 0);
        if (strncmp(path, f->path, plen) != 0 || (plen != 0 && path[plen] != '.') ||
            strncmp(k, f->key, klen) != 0)
            continue;
        if (k[klen] == '\0' && f->type == ROCE_FT_UINT && f->size == sizeof(uint64_t)) {
            *off = f->off;
            return f;
        }
        if (k[klen] == '.' && f->type == ROCE_FT_OBJECT) {
            const struct roce_field *in = roce_fields_find(f->sub, k + klen + 1, off);
            if (in != NULL) {
                *off += f->off;
                return in;
            }
        }
    }
    return NULL;
}

void roce_fields_merge_totals(struct roce_totals *dst, const struct roce_totals *src)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    /* the times go by the reports' packets: decided before the sums */
    const int dst_empty = dst->packets == 0, src_has = src->packets != 0;
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        switch ((enum roce_fmerge)f->merge) {
        case ROCE_MERGE_SUM:
            roce_field_add(f, dst, src, 0);
            break;
        case ROCE_MERGE_EARLIEST:
        case ROCE_MERGE_LATEST: {
            int64_t a, b;
            memcpy(&a, (const char *)dst + f->off, sizeof a);
            memcpy(&b, (const char *)src + f->off, sizeof b);
            if (src_has && (dst_empty || (f->merge == ROCE_MERGE_EARLIEST ? b < a : b > a)))
                memcpy((char *)dst + f->off, &b, sizeof b);
            break;
        }
        case ROCE_MERGE_MIN:
        case ROCE_MERGE_MAX: {
            uint64_t a = roce_field_u64(dst, f->off), b = roce_field_u64(src, f->off);
            if (f->merge == ROCE_MERGE_MAX ? b > a : b != 0 && (a == 0 || b < a))
                set_u64(dst, f->off, b);
            break;
        }
        default:
            break;
        }
    }
}

/* The name of the count at off in a record of fs, as the document places
 * it ("capture.packets", "naks.psn_sequence_error", "pfc.priorities[3].xoff"),
 * into buf. */
static void count_name(const struct roce_fieldset *fs, size_t off, char *buf, size_t len)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        if (f->merge != ROCE_MERGE_SUM || off < f->off || off >= f->off + f->size)
            continue;
        const char *key = f->key != NULL ? f->key : "(not written)";
        char here[NAME_LEN], in[NAME_LEN];
        const size_t at = off - f->off, prio = sizeof(struct roce_pfc_prio);
        snprintf(here, sizeof here, "%s%s%s", f->path, f->path[0] && key[0] ? "." : "", key);
        if (f->type == ROCE_FT_OBJECT)
            count_name(f->sub, at, in, sizeof in);
        else if (f->type == ROCE_FT_COUNTS)
            snprintf(in, sizeof in, "%s", f->names->name((unsigned)(at / sizeof(uint64_t))));
        else if (f->call == &roce_fcall_priorities)
            count_name(&roce_pfc_prio_fields, at % prio, in, sizeof in);
        else
            in[0] = '\0';
        if (f->call == &roce_fcall_priorities)
            snprintf(buf, len, "%s[%zu].%s", here, at / prio, in);
        else
            snprintf(buf, len, "%s%s%s", here, here[0] && in[0] ? "." : "", in);
        return;
    }
    snprintf(buf, len, "a count");
}

int roce_fields_check_sums(const struct roce_totals *dst, const struct roce_totals *src,
                           uint64_t max, char *why, size_t len)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        if (f->merge != ROCE_MERGE_SUM)
            continue;
        for (size_t off = f->off; off < f->off + f->size; off += sizeof(uint64_t)) {
            uint64_t a = roce_field_u64(dst, off), b = roce_field_u64(src, off);
            if (a > max || b > max - a) {
                count_name(fs, off, why, len);
                return -1;
            }
        }
    }
    return 0;
}

void roce_fields_renumber(const struct roce_fieldset *fs, void *base, uint64_t frame_off,
                          uint64_t id_off)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        if (f->merge != ROCE_MERGE_FRAME && f->merge != ROCE_MERGE_FLOW_ID &&
            f->merge != ROCE_MERGE_FLOW_REF)
            continue;
        uint64_t v = roce_field_u64(base, f->off);
        if (f->merge == ROCE_MERGE_FRAME && v != 0)
            set_u64(base, f->off, v + frame_off);
        else if (f->merge == ROCE_MERGE_FLOW_ID || (f->merge == ROCE_MERGE_FLOW_REF && v != 0))
            set_u64(base, f->off, v + id_off);
    }
}

void roce_fields_map_ids(const struct roce_fieldset *fs, void *base,
                         uint64_t (*map)(uint64_t id, void *ctx), void *ctx)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        uint64_t v = roce_field_u64(base, f->off);
        if (f->merge == ROCE_MERGE_FLOW_ID || (f->merge == ROCE_MERGE_FLOW_REF && v != 0))
            set_u64(base, f->off, map(v, ctx));
    }
}

void roce_fields_absolute(const struct roce_fieldset *fs, void *base, int64_t t0)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        if (f->flags & ROCE_FF_RELATIVE)
            set_u64(base, f->off, roce_field_u64(base, f->off) + (uint64_t)t0);
}
