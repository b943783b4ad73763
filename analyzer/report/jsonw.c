/*
 * jsonw.c - the streaming JSON writer (see jsonw.h). The layout is that of
 * json-c 0.13 to 0.17's printer with PRETTY | SPACED | NOSLASHESCAPE
 * (json_object_object_to_json_string, json_object_array_to_json_string,
 * json_escape_str) in json-c 0.16, the version the golden files were made
 * with: a member or element is preceded by "," after the first, a newline
 * and two spaces per level; a container closes on a line of its own, even
 * an empty one ("[", newline, indentation, "]").
 */
#include "jsonw.h"

#include <string.h>

#include "fmt.h"

#define U64_DIGITS   20
#define INDENT_WIDTH 2
#define HEX_LOW      0x0Fu
#define NIBBLE_BITS  4u
#define CONTROL_END  0x20u /* below: escaped as \u00XX */
#define KEY_EXTRA    4     /* a key's quotes, colon and space */

void roce_jw_init(struct roce_jw *w, FILE *out, unsigned level)
{
    w->out = out;
    w->err = 0;
    w->level = level - 1; /* the next value opened is at level (0: wraps, then back) */
    w->members = 0;
    w->n = 0;
}

int roce_jw_flush(struct roce_jw *w)
{
    if (!w->err && w->n > 0 && fwrite(w->buf, 1, w->n, w->out) != w->n)
        w->err = 1;
    w->n = 0;
    return w->err ? -1 : 0;
}

void roce_jw_raw(struct roce_jw *w, const char *s, size_t len)
{
    if (len > sizeof w->buf - w->n) {
        roce_jw_flush(w);
        if (len > sizeof w->buf) {
            if (!w->err && fwrite(s, 1, len, w->out) != len)
                w->err = 1;
            return;
        }
    }
    memcpy(w->buf + w->n, s, len);
    w->n += len;
}

static void put(struct roce_jw *w, const char *s)
{
    roce_jw_raw(w, s, strlen(s));
}

/* A newline and the indentation of level. */
static void newline(struct roce_jw *w, unsigned level)
{
    static const char spaces[] =
        "\n                                                                ";
    size_t width = (size_t)level * INDENT_WIDTH;
    if (width < sizeof spaces - 1) {
        roce_jw_raw(w, spaces, width + 1);
        return;
    }
    roce_jw_raw(w, "\n", 1);
    for (size_t i = 0; i < width; i++)
        roce_jw_raw(w, " ", 1);
}

/* The separator of the next member or element of the innermost container,
 * a newline and its indentation. */
static void next(struct roce_jw *w)
{
    uint64_t bit = UINT64_C(1) << (w->level % ROCE_JW_DEPTH);
    if (w->members & bit)
        roce_jw_raw(w, ",", 1);
    w->members |= bit;
    newline(w, w->level + 1);
}

/* Whether json-c escapes c (a control character, a quote or a backslash). */
static int needs_escape(unsigned char c)
{
    return c < CONTROL_END || c == '"' || c == '\\';
}

/* s escaped as json-c escapes a string or key (without the quotes). */
static void escaped(struct roce_jw *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        if (!needs_escape(c))
            continue;
        switch (c) {
        case '\b':
            esc = "\\b";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        default: /* the other control characters */
            memcpy(u, "\\u00", 4);
            u[4] = hex[c >> NIBBLE_BITS];
            u[5] = hex[c & HEX_LOW];
            u[6] = '\0';
            esc = u;
            break;
        }
        roce_jw_raw(w, s + start, i - start);
        put(w, esc);
        start = i + 1;
    }
    roce_jw_raw(w, s + start, len - start);
}

static void quoted(struct roce_jw *w, const char *s, size_t len)
{
    roce_jw_raw(w, "\"", 1);
    escaped(w, s, len);
    roce_jw_raw(w, "\"", 1);
}

/* Nonzero when s needs no escaping (no control character, quote or
 * backslash). */
static int plain(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (needs_escape((unsigned char)s[i]))
            return 0;
    return 1;
}

void roce_jw_key(struct roce_jw *w, const char *key)
{
    size_t len = strlen(key);
    next(w);
    /* the keys are plain words: "key": at once when the buffer has room */
    if (len + KEY_EXTRA <= sizeof w->buf - w->n && plain(key, len)) {
        char *o = w->buf + w->n;
        o[0] = '"';
        memcpy(o + 1, key, len);
        memcpy(o + 1 + len, "\": ", KEY_EXTRA - 1);
        w->n += len + KEY_EXTRA;
        return;
    }
    quoted(w, key, len);
    roce_jw_raw(w, ": ", 2);
}

void roce_jw_item(struct roce_jw *w)
{
    next(w);
}

void roce_jw_open(struct roce_jw *w, char c)
{
    roce_jw_raw(w, &c, 1);
    w->level++;
    w->members &= ~(UINT64_C(1) << (w->level % ROCE_JW_DEPTH));
}

void roce_jw_close(struct roce_jw *w, char c)
{
    newline(w, w->level); /* also when empty: "[", newline, indentation, "]" */
    w->level--;
    roce_jw_raw(w, &c, 1);
}

void roce_jw_null(struct roce_jw *w)
{
    roce_jw_raw(w, "null", 4);
}

void roce_jw_bool(struct roce_jw *w, int v)
{
    put(w, v ? "true" : "false");
}

void roce_jw_u64(struct roce_jw *w, uint64_t v)
{
    char d[U64_DIGITS];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    roce_jw_raw(w, d + i, sizeof d - i);
}

void roce_jw_i64(struct roce_jw *w, int64_t v)
{
    if (v < 0) {
        roce_jw_raw(w, "-", 1);
        roce_jw_u64(w, (uint64_t)0 - (uint64_t)v);
        return;
    }
    roce_jw_u64(w, (uint64_t)v);
}

void roce_jw_str(struct roce_jw *w, const char *s)
{
    quoted(w, s, strlen(s));
}

void roce_jw_us(struct roce_jw *w, int64_t ns)
{
    char buf[ROCE_FMT_US_LEN];
    put(w, roce_fmt_us_text(ns, buf));
}

void roce_jw_seconds(struct roce_jw *w, int64_t ns)
{
    char buf[ROCE_FMT_TIME_LEN];
    roce_fmt_seconds(ns, buf, sizeof buf);
    put(w, buf);
}

void roce_jw_json(struct roce_jw *w, json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        roce_jw_null(w);
        return;
    case json_type_object:
        roce_jw_open(w, '{');
        json_object_object_foreach(v, key, val)
        {
            roce_jw_key(w, key);
            roce_jw_json(w, val);
        }
        roce_jw_close(w, '}');
        return;
    case json_type_array:
        roce_jw_open(w, '[');
        for (size_t i = 0, n = json_object_array_length(v); i < n; i++) {
            roce_jw_item(w);
            roce_jw_json(w, json_object_array_get_idx(v, i));
        }
        roce_jw_close(w, ']');
        return;
    case json_type_string:
        quoted(w, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        return;
    case json_type_boolean:
        roce_jw_bool(w, json_object_get_boolean(v));
        return;
    case json_type_int: {
        int64_t i = json_object_get_int64(v); /* a uint64_t above INT64_MAX reads as INT64_MAX */
        if (i == INT64_MAX)
            roce_jw_u64(w, json_object_get_uint64(v));
        else
            roce_jw_i64(w, i);
        return;
    }
    default: /* a double: the text it was made with (json_object_new_double_s), else json-c's */
        put(w, json_object_get_userdata(v) != NULL
                   ? (const char *)json_object_get_userdata(v)
                   : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        return;
    }
}

void roce_jw_key_u64(struct roce_jw *w, const char *key, uint64_t v)
{
    roce_jw_key(w, key);
    roce_jw_u64(w, v);
}

void roce_jw_key_str(struct roce_jw *w, const char *key, const char *s)
{
    roce_jw_key(w, key);
    roce_jw_str(w, s);
}
