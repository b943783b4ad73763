/*
 * report_fields_json.c - the fields of report_fields.c written as JSON
 * (json-c) and read back (jsonget.h), by their types (see report_fields.h).
 *
 * Ownership: json_object_object_add takes the value it is given.
 */
#define _DEFAULT_SOURCE /* open_memstream */
#include "report_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_values.h"
#include "jsonw.h"

#define US_DECIMALS  3 /* microseconds with three decimals: exact nanoseconds */
#define SEC_DECIMALS 9 /* seconds with nine decimals: exact nanoseconds */
#define WHERE_LEN    128

/* The unsigned integer of f's size at base + f->off. */
static uint64_t get_uint(const void *base, const struct roce_field *f)
{
    const char *p = (const char *)base + f->off;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    switch (f->size) {
    case sizeof u8:
        memcpy(&u8, p, sizeof u8);
        return u8;
    case sizeof u16:
        memcpy(&u16, p, sizeof u16);
        return u16;
    case sizeof u32:
        memcpy(&u32, p, sizeof u32);
        return u32;
    default:
        return roce_field_u64(base, f->off);
    }
}

/* Store v (already checked to fit) as the unsigned integer of f's size. */
static void set_uint(void *base, const struct roce_field *f, uint64_t v)
{
    char *p = (char *)base + f->off;
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (f->size) {
    case sizeof u8:
        memcpy(p, &u8, sizeof u8);
        break;
    case sizeof u16:
        memcpy(p, &u16, sizeof u16);
        break;
    case sizeof u32:
        memcpy(p, &u32, sizeof u32);
        break;
    default:
        memcpy(p, &v, sizeof v);
        break;
    }
}

/* The largest value of an unsigned integer of size bytes. */
static uint64_t size_max(uint32_t size)
{
    return size >= sizeof(uint64_t) ? UINT64_MAX : (UINT64_C(1) << (size * 8)) - 1;
}

/* The time (nanoseconds) of f, relative to t0 when it is RELATIVE. */
static int64_t get_time(const void *base, const struct roce_field *f, int64_t t0)
{
    int64_t ns;
    memcpy(&ns, (const char *)base + f->off, sizeof ns);
    return f->flags & ROCE_FF_RELATIVE ? ns - t0 : ns;
}

/* The next part of a dot-separated path, into key; *path moves past it. 0
 * at the end of the path. */
static int next_part(const char **path, char key[WHERE_LEN])
{
    const char *dot = strchr(*path, '.');
    size_t n = dot != NULL ? (size_t)(dot - *path) : strlen(*path);
    if (**path == '\0')
        return 0;
    snprintf(key, WHERE_LEN, "%.*s", (int)n, *path);
    *path += n + (dot != NULL);
    return 1;
}

json_object *roce_fields_holder(json_object *o, const char *path)
{
    char key[WHERE_LEN];
    json_object *h;
    while (next_part(&path, key)) {
        if (!json_object_object_get_ex(o, key, &h)) {
            h = json_object_new_object();
            json_object_object_add(o, key, h);
        }
        o = h;
    }
    return o;
}

/* {name: count, ...} of a COUNTS field added to h. */
static void put_counts(json_object *h, const struct roce_field *f, const void *base)
{
    for (unsigned i = f->names->first; i < f->names->count; i++)
        roce_json_put_u64(h, f->names->name(i),
                          roce_field_u64(base, f->off + i * sizeof(uint64_t)));
}

/* The members of a CALL field that is only streamed (write NULL), added to
 * o: streamed into memory as an object of their own and read back (json-c
 * keeps the text of each number). The summary's latency objects come this
 * way; the flows, where these fields are many, are streamed whole. */
static void call_from_stream(json_object *o, const struct roce_field *f, const void *base,
                             const struct roce_fout *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    struct roce_jw *w = mem != NULL ? malloc(sizeof *w) : NULL;
    json_object *got = NULL;
    if (w != NULL) {
        roce_jw_init(w, mem, 0);
        roce_jw_open(w, '{');
        f->call->stream(w, f, base, c);
        roce_jw_close(w, '}');
        roce_jw_flush(w);
    }
    if (mem != NULL && fclose(mem) == 0 && w != NULL && !w->err)
        got = json_tokener_parse(text);
    if (json_object_is_type(got, json_type_object)) {
        json_object_object_foreach(got, key, val)
            json_object_object_add(o, key, json_object_get(val));
    }
    json_object_put(got);
    free(w);
    free(text);
}

/* roce_field_json, inlined in the loop over a record's fields (flows are
 * many: the call per field counts). */
static inline void field_json(json_object *o, const struct roce_field *f, const void *base,
                              const struct roce_fout *c)
{
    json_object *v = NULL;
    if ((f->flags & ROCE_FF_NULL0) && roce_field_u64(base, f->when) == 0) {
        json_object_object_add(o, f->key, NULL);
        return;
    }
    switch ((enum roce_ftype)f->type) {
    case ROCE_FT_UINT:
        v = json_object_new_uint64(get_uint(base, f));
        break;
    case ROCE_FT_BOOL:
        v = json_object_new_boolean(get_uint(base, f) != 0);
        break;
    case ROCE_FT_US:
        v = roce_json_us(get_time(base, f, c->t0));
        break;
    case ROCE_FT_SECONDS:
        v = roce_json_seconds(get_time(base, f, c->t0));
        break;
    case ROCE_FT_NAME:
        v = json_object_new_string(f->names->name((unsigned)get_uint(base, f)));
        break;
    case ROCE_FT_COUNTS:
        if (f->key[0] == '\0') { /* members of the holder itself */
            put_counts(o, f, base);
            return;
        }
        v = json_object_new_object();
        put_counts(v, f, base);
        break;
    case ROCE_FT_OBJECT:
        v = json_object_new_object();
        roce_fields_json(v, f->sub, (const char *)base + f->off, c);
        break;
    case ROCE_FT_CALL:
        if (f->call->write != NULL)
            f->call->write(o, f, base, c);
        else
            call_from_stream(o, f, base, c);
        return;
    }
    json_object_object_add(o, f->key, v);
}

void roce_field_json(json_object *o, const struct roce_field *f, const void *base,
                     const struct roce_fout *c)
{
    field_json(o, f, base, c);
}

void roce_fields_json(json_object *o, const struct roce_fieldset *fs, const void *base,
                      const struct roce_fout *c)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        if (f->key != NULL && !(f->flags & ROCE_FF_LIVE_ONLY))
            field_json(f->path[0] ? roce_fields_holder(o, f->path) : o, f, base, c);
}

/* {name: count, ...} of a COUNTS field, members of the object open in w. */
static void stream_counts(struct roce_jw *w, const struct roce_field *f, const void *base)
{
    for (unsigned i = f->names->first; i < f->names->count; i++)
        roce_jw_key_u64(w, f->names->name(i), roce_field_u64(base, f->off + i * sizeof(uint64_t)));
}

/* The members a CALL field without a stream callback adds (json-c), written. */
static void stream_call_members(struct roce_jw *w, const struct roce_field *f, const void *base,
                                const struct roce_fout *c)
{
    json_object *o = json_object_new_object();
    f->call->write(o, f, base, c);
    json_object_object_foreach(o, key, val)
    {
        roce_jw_key(w, key);
        roce_jw_json(w, val);
    }
    json_object_put(o);
}

/* field_json, streamed. */
static void field_stream(struct roce_jw *w, const struct roce_field *f, const void *base,
                         const struct roce_fout *c)
{
    if ((f->flags & ROCE_FF_NULL0) && roce_field_u64(base, f->when) == 0) {
        roce_jw_key(w, f->key);
        roce_jw_null(w);
        return;
    }
    if (f->type == ROCE_FT_CALL) {
        if (f->call->stream != NULL)
            f->call->stream(w, f, base, c);
        else
            stream_call_members(w, f, base, c);
        return;
    }
    if (f->type == ROCE_FT_COUNTS && f->key[0] == '\0') {
        stream_counts(w, f, base);
        return;
    }
    roce_jw_key(w, f->key);
    switch ((enum roce_ftype)f->type) {
    case ROCE_FT_UINT:
        roce_jw_u64(w, get_uint(base, f));
        break;
    case ROCE_FT_BOOL:
        roce_jw_bool(w, get_uint(base, f) != 0);
        break;
    case ROCE_FT_US:
        roce_jw_us(w, get_time(base, f, c->t0));
        break;
    case ROCE_FT_SECONDS:
        roce_jw_seconds(w, get_time(base, f, c->t0));
        break;
    case ROCE_FT_NAME:
        roce_jw_str(w, f->names->name((unsigned)get_uint(base, f)));
        break;
    case ROCE_FT_COUNTS:
        roce_jw_open(w, '{');
        stream_counts(w, f, base);
        roce_jw_close(w, '}');
        break;
    case ROCE_FT_OBJECT:
        roce_fields_stream(w, f->sub, (const char *)base + f->off, c);
        break;
    case ROCE_FT_CALL:
        break;
    }
}

void roce_fields_stream(struct roce_jw *w, const struct roce_fieldset *fs, const void *base,
                        const struct roce_fout *c)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        if (f->key != NULL && f->path[0] != '\0') { /* objects of their own: built */
            json_object *o = json_object_new_object();
            roce_fields_json(o, fs, base, c);
            roce_jw_json(w, o);
            json_object_put(o);
            return;
        }
    roce_jw_open(w, '{');
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        if (f->key != NULL && !(f->flags & ROCE_FF_LIVE_ONLY))
            field_stream(w, f, base, c);
    roce_jw_close(w, '}');
}

/* The object at path from o (o at where), each missing or mistyped object
 * on the way a problem; *at gets the path from the document. */
static json_object *holder_get(struct roce_jget *g, json_object *o, const char *where,
                               const char *path, char *at, size_t len)
{
    char key[WHERE_LEN];
    snprintf(at, len, "%s", where);
    while (next_part(&path, key)) {
        size_t used = strlen(at);
        o = roce_jget_member(g, o, at, key, json_type_object, 0);
        /* "." and key after it; a path too long for at is cut there (the
         * messages show its start) */
        size_t room = len - used, k = strlen(key);
        if (used && room > 1) {
            at[used++] = '.';
            room--;
        }
        if (k >= room)
            k = room - 1;
        memcpy(at + used, key, k);
        at[used + k] = '\0';
    }
    return o;
}

/* Read the counts of a COUNTS field from h (at where). */
static void get_counts(struct roce_jget *g, json_object *h, const char *where,
                       const struct roce_field *f, void *base)
{
    for (unsigned i = f->names->first; i < f->names->count; i++) {
        uint64_t v = roce_jget_u64(g, h, where, f->names->name(i));
        memcpy((char *)base + f->off + i * sizeof v, &v, sizeof v);
    }
}

/* Read field f from h, the object that holds it (at where). 0, or -1 when
 * out of memory. */
static int parse_field(struct roce_jget *g, json_object *h, const char *where,
                       const struct roce_field *f, void *base, const struct roce_fin *c)
{
    const int nullable = (f->flags & ROCE_FF_NULL0) != 0;
    char buf[WHERE_LEN];
    int64_t ns;
    switch ((enum roce_ftype)f->type) {
    case ROCE_FT_UINT: {
        uint64_t v = 0, max = f->max ? f->max : size_max(f->size);
        if (!nullable || roce_jget_member(g, h, where, f->key, json_type_int, 1) != NULL)
            v = roce_jget_u64(g, h, where, f->key);
        if (v < f->min || v > max)
            roce_jget_fail(g, where, f->key, f->why ? f->why : "a value out of range");
        set_uint(base, f, v);
        return 0;
    }
    case ROCE_FT_BOOL: {
        json_object *v = roce_jget_member(g, h, where, f->key, json_type_boolean, 0);
        set_uint(base, f, v != NULL && json_object_get_boolean(v));
        return 0;
    }
    case ROCE_FT_US:
    case ROCE_FT_SECONDS:
        roce_jget_ns(g, h, where, f->key, f->type == ROCE_FT_US ? US_DECIMALS : SEC_DECIMALS,
                     nullable, &ns);
        if (ns < 0 && !(f->flags & ROCE_FF_SIGNED))
            roce_jget_fail(g, where, f->key, "a negative time");
        memcpy((char *)base + f->off, &ns, sizeof ns);
        return 0;
    case ROCE_FT_NAME:
        set_uint(base, f, roce_jget_name(g, h, where, f->key, f->names->name, f->names->count));
        return 0;
    case ROCE_FT_COUNTS:
        if (f->key[0] == '\0')
            get_counts(g, h, where, f, base);
        else
            get_counts(g, roce_jget_member(g, h, where, f->key, json_type_object, 0),
                       roce_jget_where(buf, sizeof buf, where, f->key), f, base);
        return 0;
    case ROCE_FT_OBJECT:
        return roce_fields_parse(g, roce_jget_member(g, h, where, f->key, json_type_object, 0),
                                 roce_jget_where(buf, sizeof buf, where, f->key), f->sub,
                                 (char *)base + f->off, c);
    case ROCE_FT_CALL:
        return f->call->parse != NULL ? f->call->parse(g, h, where, f, base, c) : 0;
    }
    return 0;
}

int roce_fields_parse(struct roce_jget *g, json_object *o, const char *where,
                      const struct roce_fieldset *fs, void *base, const struct roce_fin *c)
{
    char at[WHERE_LEN];
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        if (f->key == NULL || (f->flags & (ROCE_FF_ALIAS | ROCE_FF_LIVE_ONLY)))
            continue;
        json_object *h = f->path[0] ? holder_get(g, o, where, f->path, at, sizeof at) : o;
        if (parse_field(g, h, f->path[0] ? at : where, f, base, c) != 0)
            return -1;
    }
    return 0;
}
