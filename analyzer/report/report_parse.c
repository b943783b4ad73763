/*
 * report_parse.c - a JSON report written by rocescope --json, read back into
 * the report model (see report.h), for `rocescope merge`.
 *
 * The file is mapped and read by the strict reader of jsonscan.c, never
 * held whole: its long lists ("flows" and each flow's "episodes",
 * "connections", "host_macs", "fabric_macs", "capture"."files") element by
 * element, each turned into the model and let go at once; "diagnoses"
 * (computed again from the rest) and members this version does not know
 * checked and skipped; every other member built whole, within
 * VALUE_MAX bytes of text each. A list read element by element is left in
 * the document's tree as an empty list, so that the table of the report's
 * fields (report_fields.c), which reads the members, finds it. Memory holds
 * the model and one element, not the document. Every value is checked
 * (type, range, times not negative and within the capture, the latency
 * distributions against the percentiles written, each MAC listed once); the
 * first problem is the error.
 */
#define _DEFAULT_SOURCE
#include <json-c/json.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonscan.h"
#include "report.h"
#include "report_fields.h"

#define VALUE_MAX ROCE_REPORT_VALUE_MAX
#define WHERE_LEN 64
#define MAC_LISTS 2

/* The document being read into the report. */
struct parse {
    struct roce_jscan s;
    struct roce_jget *g;
    struct roce_report *r;
    json_object *root; /* the members built whole (and the lists, emptied) */
};

/* An object being walked: its members built into holder (within one
 * budget), but the list named list, read element by element by each. */
struct walked {
    struct parse *p;
    json_object *holder;
    const char *list;
    int (*each)(struct roce_jscan *s, size_t i, void *ctx);
};

/* Record that the model could not grow. -1. */
static int no_memory(struct parse *p)
{
    return roce_jscan_fail(&p->s, "out of memory");
}

/* A member not seen before in holder (else a problem). 0, or -1. */
static int first_time(struct parse *p, json_object *holder, const char *key)
{
    return json_object_object_get_ex(holder, key, NULL)
               ? roce_jscan_fail(&p->s, "a member given twice")
               : 0;
}

/* The value of member key built into holder, within what is left of the
 * budget. 0, or -1. */
static int build_into(struct parse *p, json_object *holder, const char *key)
{
    json_object *v;
    if (first_time(p, holder, key) != 0 || roce_jscan_build(&p->s, &v) != 0)
        return -1;
    return json_object_object_add(holder, key, v) == 0 ? 0 : no_memory(p);
}

/* The list member key of holder read element by element by fn, then left
 * in holder as an empty list. 0, or -1. */
static int stream_into(struct parse *p, json_object *holder, const char *key,
                       int (*fn)(struct roce_jscan *s, size_t i, void *ctx))
{
    if (first_time(p, holder, key) != 0 || roce_jscan_array(&p->s, fn, p) != 0)
        return -1;
    return json_object_object_add(holder, key, json_object_new_array()) == 0 ? 0 : no_memory(p);
}

/* An element of a list built whole (within VALUE_MAX): an object (a
 * string with want_string). NULL (recorded) when it is not, or on a problem. */
static json_object *element(struct parse *p, int want_string)
{
    json_object *e;
    p->s.budget = VALUE_MAX;
    if (roce_jscan_peek(&p->s) != (want_string ? '"' : '{')) {
        roce_jscan_fail(&p->s, want_string ? "not a list of names" : "an object expected");
        return NULL;
    }
    return roce_jscan_build(&p->s, &e) == 0 ? e : NULL;
}

/* ---- the lists ---- */

/* An element of "connections". */
static int conn_element(struct roce_jscan *s, size_t i, void *ctx)
{
    struct parse *p = ctx;
    json_object *e = element(p, 0);
    struct roce_report_conn *c = e != NULL ? roce_report_add_conn(p->r) : NULL;
    const struct roce_fin in = {p->r, NULL, NULL};
    int rc = e == NULL                                                        ? -1
             : c == NULL                                                      ? no_memory(p)
             : roce_fields_parse(p->g, e, "", &roce_conn_fields, c, &in) != 0 ? no_memory(p)
                                                                              : 0;
    (void)s;
    (void)i;
    json_object_put(e);
    return rc != 0 || p->g->failed ? -1 : 0;
}

/* An element of "host_macs" (host) or "fabric_macs". */
static int mac_element(struct parse *p, size_t i, int host)
{
    char where[WHERE_LEN];
    json_object *e = element(p, 0);
    snprintf(where, sizeof where, "%s[%zu]", host ? "host_macs" : "fabric_macs", i);
    int rc = e == NULL                                                ? -1
             : roce_fields_parse_mac(p->g, e, where, p->r, host) != 0 ? no_memory(p)
                                                                      : 0;
    json_object_put(e);
    return rc != 0 || p->g->failed ? -1 : 0;
}

static int host_mac_element(struct roce_jscan *s, size_t i, void *ctx)
{
    (void)s;
    return mac_element(ctx, i, 1);
}

static int fabric_mac_element(struct roce_jscan *s, size_t i, void *ctx)
{
    (void)s;
    return mac_element(ctx, i, 0);
}

/* An element of "capture"."files". */
static int file_element(struct roce_jscan *s, size_t i, void *ctx)
{
    struct parse *p = ctx;
    json_object *e = element(p, 1);
    int rc = e == NULL                                                    ? -1
             : roce_report_add_file(p->r, json_object_get_string(e)) != 0 ? no_memory(p)
                                                                          : 0;
    (void)s;
    (void)i;
    json_object_put(e);
    return rc;
}

/* An element of a flow's "episodes", appended to the report's (in flow
 * order: finish() puts them back in start order; the flow's id is set
 * once the flow is read). */
static int episode_element(struct roce_jscan *s, size_t i, void *ctx)
{
    struct parse *p = ctx;
    char where[WHERE_LEN];
    const struct roce_fin in = {p->r, NULL, NULL};
    if (p->r->n_episodes >= p->r->cfg->max_episodes) { /* the model stays a report's size */
        snprintf(where, sizeof where, "more than %u episodes listed", p->r->cfg->max_episodes);
        return roce_jscan_fail(s, where);
    }
    json_object *e = element(p, 0);
    struct roce_episode *ep = e != NULL ? roce_report_add_episode(p->r) : NULL;
    (void)s;
    snprintf(where, sizeof where, "episodes[%zu]", i);
    snprintf(p->g->ctx, sizeof p->g->ctx, "flows[%zu]", p->r->n_flows);
    int rc = e == NULL                                                               ? -1
             : ep == NULL                                                            ? no_memory(p)
             : roce_fields_parse(p->g, e, where, &roce_episode_fields, ep, &in) != 0 ? no_memory(p)
                                                                                     : 0;
    if (!p->g->failed)
        p->g->ctx[0] = '\0';
    json_object_put(e);
    return rc != 0 || p->g->failed ? -1 : 0;
}

/* A member of an object being walked. */
static int walked_member(struct roce_jscan *s, const char *key, void *ctx)
{
    struct walked *w = ctx;
    size_t budget = s->budget; /* what is left of the object's, after the list */
    if (strcmp(key, w->list) != 0)
        return build_into(w->p, w->holder, key);
    int rc = stream_into(w->p, w->holder, key, w->each);
    s->budget = budget;
    return rc;
}

/* An element of "flows": the flow without its episodes built whole, then
 * put into the model. Times stay relative to the report's first_time
 * (finish() adds it). */
static int flow_element(struct roce_jscan *s, size_t i, void *ctx)
{
    struct parse *p = ctx;
    struct walked w = {p, json_object_new_object(), "episodes", episode_element};
    size_t first_episode = p->r->n_episodes;
    s->budget = VALUE_MAX; /* for the whole flow but its episodes */
    int rc = w.holder == NULL ? no_memory(p) : roce_jscan_object(s, walked_member, &w);
    (void)i;
    if (rc == 0) {
        struct roce_flow_report *f = roce_report_add_flow(p->r);
        if (f == NULL) {
            rc = no_memory(p);
        } else {
            struct roce_report_flow *fx = &p->r->flow_x[p->r->n_flows - 1];
            const struct roce_fin in = {p->r, fx->lat, fx};
            snprintf(p->g->ctx, sizeof p->g->ctx, "flows[%zu]", p->r->n_flows - 1);
            if (roce_fields_parse(p->g, w.holder, "", &roce_flow_fields, f, &in) != 0)
                rc = no_memory(p);
            if (!p->g->failed)
                p->g->ctx[0] = '\0';
            for (size_t e = first_episode; e < p->r->n_episodes; e++)
                p->r->episodes[e].flow_id = f->id;
        }
    }
    json_object_put(w.holder);
    return rc != 0 || p->g->failed ? -1 : 0;
}

/* ---- the document ---- */

/* "capture", walked into an object of root. */
static int walk_capture(struct parse *p, const char *key)
{
    struct walked w = {p, json_object_new_object(), "files", file_element};
    if (w.holder == NULL)
        return no_memory(p);
    p->s.budget = VALUE_MAX; /* for the whole of it but its files */
    if (first_time(p, p->root, key) != 0 || roce_jscan_object(&p->s, walked_member, &w) != 0) {
        json_object_put(w.holder);
        return -1;
    }
    return json_object_object_add(p->root, key, w.holder) == 0 ? 0 : no_memory(p);
}

/* Nonzero when key is a member of the report this version reads: "tool",
 * or the first part of a field's place in the table. */
static int known(const char *key)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    if (strcmp(key, "tool") == 0)
        return 1;
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        const char *top = f->path[0] ? f->path : f->key;
        size_t n = top != NULL ? strcspn(top, ".") : 0;
        if (top != NULL && strlen(key) == n && strncmp(top, key, n) == 0)
            return 1;
    }
    return 0;
}

/* A member of the report. */
static int report_member(struct roce_jscan *s, const char *key, void *ctx)
{
    struct parse *p = ctx;
    if (strcmp(key, "flows") == 0)
        return stream_into(p, p->root, key, flow_element);
    if (strcmp(key, "connections") == 0)
        return stream_into(p, p->root, key, conn_element);
    if (strcmp(key, "host_macs") == 0)
        return stream_into(p, p->root, key, host_mac_element);
    if (strcmp(key, "fabric_macs") == 0)
        return stream_into(p, p->root, key, fabric_mac_element);
    if (strcmp(key, "capture") == 0)
        return walk_capture(p, key);
    /* the diagnoses are computed again; a newer version's members are not read */
    if (strcmp(key, "diagnoses") == 0 || !known(key))
        return roce_jscan_skip(s);
    s->budget = VALUE_MAX;
    return build_into(p, p->root, key);
}

/* Episodes by their first frame: the order they started in. */
static int cmp_episode_start(const void *a, const void *b)
{
    const struct roce_episode *x = a, *y = b;
    return (x->first_frame > y->first_frame) - (x->first_frame < y->first_frame);
}

/* MACs by address. */
static int cmp_mac(const void *a, const void *b)
{
    const struct roce_host_mac *const *x = a, *const *y = b;
    return memcmp((*x)->mac, (*y)->mac, sizeof(*x)->mac);
}

/* A problem when a MAC is listed twice (in either list). 0, or -1 when out
 * of memory. */
static int macs_once(struct roce_jget *g, const struct roce_report *r)
{
    const struct roce_host_mac **by = malloc((r->n_macs ? r->n_macs : 1) * sizeof *by);
    if (by == NULL)
        return -1;
    for (size_t i = 0; i < r->n_macs; i++)
        by[i] = &r->macs[i];
    qsort(by, r->n_macs, sizeof *by, cmp_mac);
    for (size_t i = 1; i < r->n_macs && !g->failed; i++)
        if (memcmp(by[i]->mac, by[i - 1]->mac, sizeof by[i]->mac) == 0)
            roce_jget_fail(g, "host_macs", "", "a MAC listed twice (in host_macs or fabric_macs)");
    free(by);
    return 0;
}

/* The flows' times (relative to first_time) within the capture's. */
static void flow_times(struct roce_jget *g, const struct roce_report *r)
{
    const int64_t duration = r->t.last_ts_ns - r->t.first_ts_ns;
    for (size_t i = 0; i < r->n_flows && !g->failed; i++) {
        const struct roce_flow_report *f = &r->flows[i];
        if (f->first_ts_ns > duration || f->last_ts_ns > duration) {
            snprintf(g->ctx, sizeof g->ctx, "flows[%zu]", i);
            roce_jget_fail(g, "", f->first_ts_ns > duration ? "first_time" : "last_time",
                           "after the end of the capture (first_time + duration_s)");
        }
    }
}

/* The summary members (all but the lists), then what the element-by-element
 * walk left: absolute flow times, the flows in id order, the episodes in the
 * order they started. 0, or -1 when out of memory. */
static int finish(struct roce_jget *g, json_object *root, struct roce_report *r)
{
    const char *tool = "";
    json_object *v;
    if (json_object_object_get_ex(root, "tool", &v) && json_object_get_type(v) == json_type_string)
        tool = json_object_get_string(v);
    if (strcmp(tool, "rocescope") != 0) {
        roce_jget_fail(g, "", "", "not a rocescope JSON report (no \"tool\": \"rocescope\")");
        return 0;
    }
    const struct roce_fin in = {r, r->lat, NULL};
    if (roce_fields_parse(g, root, "", &roce_report_fields, &r->t, &in) != 0 ||
        macs_once(g, r) != 0)
        return -1;
    r->t.connections = r->n_conns;
    flow_times(g, r);
    for (size_t i = 0; i < r->n_flows && !g->failed; i++) {
        roce_fields_absolute(&roce_flow_fields, &r->flows[i], r->t.first_ts_ns);
        if (i > 0 && r->flows[i].id <= r->flows[i - 1].id)
            roce_jget_fail(g, "flows", "", "not in id order");
    }
    if (r->n_episodes > 1)
        qsort(r->episodes, r->n_episodes, sizeof *r->episodes, cmp_episode_start);
    return 0;
}

int roce_report_parse(const char *path, struct roce_report *r, char *err, size_t errlen)
{
    struct roce_jget g = {err, errlen, 0, ""};
    struct parse p = {.g = &g, .r = r, .root = json_object_new_object()};
    struct stat st;
    void *map = MAP_FAILED;
    int fd = open(path, O_RDONLY);

    roce_report_init(r);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        g.failed = 1;
    } else if (st.st_size == 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s", st.st_size == 0 ? "empty file" : "not a regular file");
        g.failed = 1;
    } else if ((map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
               MAP_FAILED) {
        snprintf(err, errlen, "%s", strerror(errno));
        g.failed = 1;
    } else if (p.root == NULL) {
        snprintf(err, errlen, "out of memory");
        g.failed = 1;
    } else {
        roce_jscan_init(&p.s, map, (size_t)st.st_size, &g, 1);
        if (roce_jscan_object(&p.s, report_member, &p) == 0 && roce_jscan_end(&p.s) == 0 &&
            finish(&g, p.root, r) != 0)
            roce_jget_fail(&g, "report", "", "out of memory");
    }
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    json_object_put(p.root);
    if (g.failed)
        roce_report_free(r);
    return g.failed ? -1 : 0;
}
