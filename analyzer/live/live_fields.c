/*
 * live_fields.c - the order of the live monitor's counters (see
 * live_fields.h).
 */
#include "live_fields.h"

#include <string.h>

#define CAPTURE_SECTION "capture"

/* The kinds of members of an object of the interval lines, in their order. */
enum live_rank { RANK_COUNT, RANK_LAST, RANK_GAUGE, RANK_NESTED, RANKS };

static enum live_rank rank(const struct roce_field *f)
{
    if (f->type == ROCE_FT_COUNTS || f->type == ROCE_FT_OBJECT || f->type == ROCE_FT_CALL)
        return RANK_NESTED;
    if (f->flags & ROCE_FF_GAUGE)
        return RANK_GAUGE;
    return f->flags & ROCE_FF_LIVE_LAST ? RANK_LAST : RANK_COUNT;
}

const char *roce_live_path(const struct roce_field *f)
{
    size_t n = strlen(CAPTURE_SECTION);
    if (strncmp(f->path, CAPTURE_SECTION, n) != 0 || (f->path[n] != '\0' && f->path[n] != '.'))
        return f->path;
    return f->path + n + (f->path[n] == '.');
}

/* The member of the counters object that f is, or is in: its name in *len bytes. */
static const char *top(const struct roce_field *f, size_t *len)
{
    const char *p = roce_live_path(f);
    if (*p == '\0') {
        *len = strlen(f->key);
        return f->key;
    }
    *len = strcspn(p, ".");
    return p;
}

static int same_top(const struct roce_field *a, const struct roce_field *b)
{
    size_t la, lb;
    const char *ta = top(a, &la), *tb = top(b, &lb);
    return la == lb && strncmp(ta, tb, la) == 0;
}

size_t roce_live_fields(const struct roce_field **out, size_t cap)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    const struct roce_field *seq[ROCE_REPORT_FIELDS_MAX];
    unsigned char placed[ROCE_REPORT_FIELDS_MAX] = {0};
    size_t n = 0, m = 0;
    /* the order in which the members are added to the objects ... */
    for (unsigned r = 0; r < RANKS; r++)
        for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
            if ((f->flags & ROCE_FF_LIVE) && rank(f) == r && n < ROCE_REPORT_FIELDS_MAX)
                seq[n++] = f;
    /* ... and the counters object's members, each with all it holds */
    for (size_t i = 0; i < n; i++) {
        if (placed[i])
            continue;
        for (size_t j = i; j < n; j++)
            if (!placed[j] && same_top(seq[i], seq[j])) {
                if (m < cap)
                    out[m] = seq[j];
                m++;
                placed[j] = 1;
            }
    }
    return m;
}
