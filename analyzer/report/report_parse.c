/*
 * report_parse.c - a JSON report written by rocescope --json, read back into
 * the report model (see report.h), for `rocescope merge`.
 *
 * The file is mapped and walked one top-level member at a time with
 * json-c's tokener; the long arrays ("flows", "connections") one element at
 * a time, each turned into the model and put at once: memory holds the
 * model and one element, not the document. The members are read by the
 * table of the report's fields (report_fields.c). Every value is checked
 * (type, range, the latency distributions against the percentiles written);
 * the first problem is the error.
 */
#define _DEFAULT_SOURCE
#include <json-c/json.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonget.h"
#include "report.h"
#include "report_fields.h"

/* The document being walked. */
struct walk {
    const char *buf;
    size_t len, pos;
    json_tokener *tok;
    struct roce_jget *g;
};

/* JSON white space. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Past the white space at the current position. */
static void skip_ws(struct walk *w)
{
    while (w->pos < w->len && is_blank(w->buf[w->pos]))
        w->pos++;
}

/* The next character after blanks, consumed when it is one of accept; 0
 * (not consumed) otherwise. */
static char next_char(struct walk *w, const char *accept)
{
    skip_ws(w);
    if (w->pos < w->len && w->buf[w->pos] && strchr(accept, w->buf[w->pos]) != NULL)
        return w->buf[w->pos++];
    return 0;
}

/* The JSON value at the current position. 0 with *out (NULL for null), or
 * -1 on a syntax error (recorded). */
static int next_value(struct walk *w, json_object **out)
{
    skip_ws(w);
    size_t left = w->len - w->pos; /* after the blanks: the tokener reads no further */
    json_tokener_reset(w->tok);
    *out = json_tokener_parse_ex(w->tok, w->buf + w->pos, left > INT_MAX ? INT_MAX : (int)left);
    enum json_tokener_error err = json_tokener_get_error(w->tok);
    if (err != json_tokener_success) {
        char where[48];
        snprintf(where, sizeof where, "offset %zu", w->pos + json_tokener_get_parse_end(w->tok));
        /* json_tokener_continue: the document ended inside the value */
        roce_jget_fail(w->g, where, "",
                       err == json_tokener_continue ? "the report is cut short"
                                                    : json_tokener_error_desc(err));
        return -1;
    }
    w->pos += json_tokener_get_parse_end(w->tok);
    return 0;
}

/* Record a problem at the current position. */
static void syntax_error(struct walk *w, const char *why)
{
    char where[48];
    snprintf(where, sizeof where, "offset %zu", w->pos);
    roce_jget_fail(w->g, where, "", why);
}

/* An element of "connections". 0, or -1 when out of memory. */
static int parse_conn(struct roce_jget *g, json_object *o, struct roce_report *r)
{
    struct roce_report_conn *c = roce_report_add_conn(r);
    const struct roce_fin in = {r, NULL, NULL};
    return c != NULL ? roce_fields_parse(g, o, "", &roce_conn_fields, c, &in) : -1;
}

/* An element of "flows", its episodes appended to r's (in flow order; the
 * caller puts them back in start order). Times stay relative to the
 * report's first_time (the caller adds it). 0, or -1 when out of memory. */
static int parse_flow(struct roce_jget *g, json_object *o, struct roce_report *r)
{
    struct roce_flow_report *f = roce_report_add_flow(r);
    if (f == NULL)
        return -1;
    struct roce_report_flow *fx = &r->flow_x[r->n_flows - 1];
    const struct roce_fin in = {r, fx->lat, fx};
    snprintf(g->ctx, sizeof g->ctx, "flows[%zu]", r->n_flows - 1);
    int rc = roce_fields_parse(g, o, "", &roce_flow_fields, f, &in);
    if (!g->failed)
        g->ctx[0] = '\0';
    return rc;
}

/* The opening bracket of an array or object: 1 when it closes at once
 * (empty), 0 when elements follow, -1 (recorded) when it is not there. */
static int open_container(struct walk *w, const char *open, const char *close, const char *what)
{
    if (!next_char(w, open)) {
        syntax_error(w, what);
        return -1;
    }
    return next_char(w, close) ? 1 : 0;
}

/* The elements of a top-level array, each turned into the model by fn and
 * put. 0, or -1 (recorded). */
static int walk_array(struct walk *w, struct roce_report *r,
                      int (*fn)(struct roce_jget *, json_object *, struct roce_report *))
{
    int st = open_container(w, "[", "]", "an array expected");
    if (st != 0)
        return st < 0 ? -1 : 0;
    do {
        json_object *e;
        if (next_value(w, &e) != 0)
            return -1;
        int rc = json_object_get_type(e) == json_type_object ? fn(w->g, e, r) : 0;
        if (json_object_get_type(e) != json_type_object)
            syntax_error(w, "an object expected");
        json_object_put(e);
        if (rc != 0)
            roce_jget_fail(w->g, "report", "", "out of memory");
        if (w->g->failed)
            return -1;
    } while (next_char(w, ","));
    if (!next_char(w, "]")) {
        syntax_error(w, "',' or ']' expected");
        return -1;
    }
    return 0;
}

/* The top-level object: "flows" and "connections" element by element into
 * r, the other members into root. 0, or -1 (recorded). */
static int walk_report(struct walk *w, json_object *root, struct roce_report *r)
{
    int st = open_container(w, "{", "}", "not a JSON object");
    if (st != 0)
        return st < 0 ? -1 : 0;
    do {
        json_object *k, *v = NULL;
        if (next_value(w, &k) != 0)
            return -1;
        if (json_object_get_type(k) != json_type_string || !next_char(w, ":")) {
            json_object_put(k);
            syntax_error(w, "a member expected");
            return -1;
        }
        const char *key = json_object_get_string(k);
        int rc = strcmp(key, "flows") == 0         ? walk_array(w, r, parse_flow)
                 : strcmp(key, "connections") == 0 ? walk_array(w, r, parse_conn)
                                                   : next_value(w, &v);
        if (rc == 0 && strcmp(key, "flows") != 0 && strcmp(key, "connections") != 0)
            json_object_object_add(root, key, v);
        json_object_put(k);
        if (rc != 0)
            return -1;
    } while (next_char(w, ","));
    if (!next_char(w, "}") || (skip_ws(w), w->pos != w->len)) {
        syntax_error(w, "',' or '}' expected, or data after the report");
        return -1;
    }
    return 0;
}

/* Episodes by their first frame: the order they started in. */
static int cmp_episode_start(const void *a, const void *b)
{
    const struct roce_episode *x = a, *y = b;
    return (x->first_frame > y->first_frame) - (x->first_frame < y->first_frame);
}

/* The summary members (all but flows and connections), then what the
 * element-by-element walk left: absolute flow times, the flows in id order,
 * the episodes in the order they started. 0, or -1 when out of memory. */
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
    if (roce_fields_parse(g, root, "", &roce_report_fields, &r->t, &in) != 0)
        return -1;
    r->t.connections = r->n_conns;
    for (size_t i = 0; i < r->n_flows; i++) {
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
    struct walk w = {NULL, 0, 0, json_tokener_new(), &g};
    json_object *root = json_object_new_object();
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
    } else if (w.tok == NULL || root == NULL) {
        snprintf(err, errlen, "out of memory");
        g.failed = 1;
    } else {
        w.buf = map;
        w.len = (size_t)st.st_size;
        if (walk_report(&w, root, r) == 0 && finish(&g, root, r) != 0)
            roce_jget_fail(&g, "report", "", "out of memory");
    }
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    json_object_put(root);
    if (w.tok != NULL)
        json_tokener_free(w.tok);
    if (g.failed)
        roce_report_free(r);
    return g.failed ? -1 : 0;
}
