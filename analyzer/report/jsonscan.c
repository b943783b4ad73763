/*
 * jsonscan.c - a strict JSON reader over a document in memory (see
 * jsonscan.h).
 *
 * Every container, whether skipped, built or walked by the caller, goes
 * through container(): the place of the value being read is the stack of
 * member names (pointers into the document, as written) and element indexes
 * it keeps, rendered only for a problem. Strings are checked in one pass
 * and, when kept, decoded in a second into memory of their final size.
 */
#define _DEFAULT_SOURCE
#include "jsonscan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GIVE_BACK   (8u << 20) /* pages of a mapped document given back in steps of 8 MiB */
#define NUMBER_MAX  64         /* characters of a number that is not an integer */
#define WHERE_LEN   160
#define WHY_LEN     224
#define HEX_DIGITS  4
#define HEX_BASE    16
#define DEC_BASE    10
#define SURR_HI     0xD800u /* UTF-16 surrogates: high D800-DBFF, low DC00-DFFF */
#define SURR_LO     0xDC00u
#define SURR_END    0xE000u
#define SURR_SHIFT  10
#define SURR_BASE   0x10000u
#define UTF8_1      0x80u /* code points below take 1 byte, 2, 3, else 4 */
#define UTF8_2      0x800u
#define UTF8_3      0x10000u
#define UTF8_CONT   0x80u
#define UTF8_LEAD2  0xC0u
#define UTF8_LEAD3  0xE0u
#define UTF8_LEAD4  0xF0u
#define UTF8_BITS   6
#define UTF8_MASK   0x3Fu
#define CTRL_MAX    0x1F
#define PRINT_FIRST 0x20
#define PRINT_LAST  0x7E

void roce_jscan_init(struct roce_jscan *s, const char *buf, size_t len, struct roce_jget *g,
                     int mapped)
{
    memset(s, 0, sizeof *s);
    s->buf = buf;
    s->len = len;
    s->g = g;
    s->mapped = mapped;
}

/* The place being read, "flows[3].packets" (names as written, their bytes
 * outside printable ASCII as '?', cut at the end of buf). */
static void place(const struct roce_jscan *s, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned d = 1; d <= s->depth && n + 1 < len; d++) {
        const struct roce_jscan_level *l = &s->at[d];
        if (l->key == NULL) {
            int k = snprintf(buf + n, len - n, "[%zu]", l->index);
            n = k < 0 ? n : n + (size_t)k < len ? n + (size_t)k : len - 1;
            continue;
        }
        if (n > 0)
            buf[n++] = '.';
        for (size_t i = 0; i < l->key_len && n + 1 < len; i++) {
            char c = l->key[i];
            buf[n++] = c >= PRINT_FIRST && c <= PRINT_LAST ? c : '?';
        }
        buf[n] = '\0';
    }
}

int roce_jscan_fail(struct roce_jscan *s, const char *why)
{
    char where[WHERE_LEN], text[WHY_LEN];
    place(s, where, sizeof where);
    snprintf(text, sizeof text, "%s (offset %zu)", why, s->pos);
    roce_jget_fail(s->g, where, "", text);
    return -1;
}

/* Give back the pages of a mapped document that are behind the reading
 * position (they are read again from the file if ever touched). */
static void give_back(struct roce_jscan *s)
{
    if (!s->mapped || s->pos - s->given_back < GIVE_BACK)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), upto = s->pos / page * page;
    if (upto > s->given_back && madvise((void *)(uintptr_t)(s->buf + s->given_back),
                                        upto - s->given_back, MADV_DONTNEED) == 0)
        s->given_back = upto;
}

/* Past the blanks at the reading position; the character there, 0 at the end. */
static char next(struct roce_jscan *s)
{
    while (s->pos < s->len && (s->buf[s->pos] == ' ' || s->buf[s->pos] == '\t' ||
                               s->buf[s->pos] == '\r' || s->buf[s->pos] == '\n'))
        s->pos++;
    give_back(s);
    return s->pos < s->len ? s->buf[s->pos] : 0;
}

char roce_jscan_peek(struct roce_jscan *s)
{
    return next(s);
}

static int cut_short(struct roce_jscan *s)
{
    return roce_jscan_fail(s, "the report is cut short");
}

/* Record why (or that the document is cut short, at its end). -1. */
static int expected(struct roce_jscan *s, const char *why)
{
    return s->pos >= s->len ? cut_short(s) : roce_jscan_fail(s, why);
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + DEC_BASE
           : c >= 'A' && c <= 'F' ? c - 'A' + DEC_BASE
                                  : -1;
}

/* The 4 hex digits at p (below len), or -1. */
static long hex4(const char *b, size_t p, size_t len)
{
    long v = 0;
    if (len - p < HEX_DIGITS)
        return -1;
    for (unsigned i = 0; i < HEX_DIGITS; i++) {
        int h = hex_value(b[p + i]);
        if (h < 0)
            return -1;
        v = v * HEX_BASE + h;
    }
    return v;
}

/* Check the string whose opening quote is at the reading position and move
 * past its closing quote. 0, or -1 (recorded). */
static int string_check(struct roce_jscan *s)
{
    const char *b = s->buf;
    size_t p = s->pos + 1;
    for (;;) {
        if (p >= s->len)
            return s->pos = p, cut_short(s);
        unsigned char c = (unsigned char)b[p];
        if (c == '"')
            break;
        if (c <= CTRL_MAX)
            return s->pos = p, roce_jscan_fail(s, "a control character in a string");
        if (c != '\\') {
            p++;
            continue;
        }
        if (p + 1 >= s->len)
            return s->pos = p, cut_short(s);
        char e = b[p + 1];
        if (e != 'u') {
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0')
                return s->pos = p, roce_jscan_fail(s, "not a JSON escape in a string");
            p += 2;
            continue;
        }
        long u = hex4(b, p + 2, s->len);
        if (u == 0)
            return s->pos = p, roce_jscan_fail(s, "a NUL character (\\u0000) in a string");
        if (u >= (long)SURR_HI && u < (long)SURR_LO) { /* a high surrogate: a low one follows */
            long lo = p + 8 <= s->len && b[p + 6] == '\\' && b[p + 7] == 'u'
                          ? hex4(b, p + 8, s->len)
                          : -1;
            if (lo < (long)SURR_LO || lo >= (long)SURR_END)
                return s->pos = p, roce_jscan_fail(s, "a \\u surrogate not in a pair");
            p += 2 * (2 + HEX_DIGITS);
            continue;
        }
        if (u < 0 || (u >= (long)SURR_LO && u < (long)SURR_END))
            return s->pos = p, roce_jscan_fail(s, "not a JSON \\u escape in a string");
        p += 2 + HEX_DIGITS;
    }
    s->pos = p + 1;
    return 0;
}

/* code as UTF-8 at out; the bytes written. */
static size_t utf8(unsigned long code, char *out)
{
    if (code < UTF8_1) {
        out[0] = (char)code;
        return 1;
    }
    size_t n = code < UTF8_2 ? 2 : code < UTF8_3 ? 3 : 4;
    static const unsigned lead[] = {0, 0, UTF8_LEAD2, UTF8_LEAD3, UTF8_LEAD4};
    for (size_t i = n - 1; i > 0; i--, code >>= UTF8_BITS)
        out[i] = (char)(UTF8_CONT | (code & UTF8_MASK));
    out[0] = (char)(lead[n] | code);
    return n;
}

/* The checked string text b[from..to) (without its quotes) decoded into
 * out, which has room for to - from + 1 bytes; its length. */
static size_t decode(const char *b, size_t from, size_t to, char *out)
{
    size_t n = 0;
    for (size_t p = from; p < to;) {
        if (b[p] != '\\') {
            out[n++] = b[p++];
            continue;
        }
        char e = b[p + 1];
        static const char plain[] = "\"\\/bfnrt", real[] = "\"\\/\b\f\n\r\t";
        if (e != 'u') {
            out[n++] = real[strchr(plain, e) - plain];
            p += 2;
            continue;
        }
        unsigned long code = (unsigned long)hex4(b, p + 2, to);
        p += 2 + HEX_DIGITS;
        if (code >= SURR_HI && code < SURR_LO) {
            code = SURR_BASE + ((code - SURR_HI) << SURR_SHIFT) +
                   ((unsigned long)hex4(b, p + 2, to) - SURR_LO);
            p += 2 + HEX_DIGITS;
        }
        n += utf8(code, out + n);
    }
    out[n] = '\0';
    return n;
}

/* Fail when a build has gone past its budget. */
static int over_budget(struct roce_jscan *s, size_t end)
{
    char why[WHY_LEN];
    if (end <= s->build_end)
        return 0;
    snprintf(why, sizeof why, "a value of more than %zu bytes (larger than any rocescope writes)",
             s->budget);
    return roce_jscan_fail(s, why);
}

/* The string at the reading position, as a json-c string into *out (NULL:
 * checked only). */
static int string_value(struct roce_jscan *s, json_object **out)
{
    size_t from = s->pos + 1;
    if (string_check(s) != 0)
        return -1;
    if (out == NULL)
        return 0;
    if (over_budget(s, s->pos) != 0)
        return -1;
    char *text = malloc(s->pos - from);
    if (text == NULL)
        return roce_jscan_fail(s, "out of memory");
    size_t n = decode(s->buf, from, s->pos - 1, text);
    *out = json_object_new_string_len(text, (int)n);
    free(text);
    return *out != NULL ? 0 : roce_jscan_fail(s, "out of memory");
}

static int is_digit(const struct roce_jscan *s, size_t p)
{
    return p < s->len && s->buf[p] >= '0' && s->buf[p] <= '9';
}

/* The number at the reading position, as a json-c integer or decimal (with
 * its text) into *out (NULL: checked only). */
static int number_value(struct roce_jscan *s, json_object **out)
{
    const size_t start = s->pos;
    size_t p = start;
    uint64_t mag = 0;
    int neg = 0, integer = 1, over = 0;
    if (s->buf[p] == '-')
        neg = 1, p++;
    if (!is_digit(s, p))
        return s->pos = p, expected(s, "not a JSON number: no digit");
    if (s->buf[p] == '0' && is_digit(s, p + 1))
        return s->pos = p, roce_jscan_fail(s, "not a JSON number: a leading zero");
    for (; is_digit(s, p); p++) {
        unsigned d = (unsigned)(s->buf[p] - '0');
        over |= mag > (UINT64_MAX - d) / DEC_BASE;
        mag = mag * DEC_BASE + d;
    }
    if (p < s->len && s->buf[p] == '.') {
        integer = 0;
        if (!is_digit(s, ++p))
            return s->pos = p, expected(s, "not a JSON number: no digit after the decimal point");
        while (is_digit(s, p))
            p++;
    }
    if (p < s->len && (s->buf[p] == 'e' || s->buf[p] == 'E')) {
        integer = 0;
        p += p + 1 < s->len && (s->buf[p + 1] == '+' || s->buf[p + 1] == '-') ? 2 : 1;
        if (!is_digit(s, p))
            return s->pos = p, expected(s, "not a JSON number: no digit in the exponent");
        while (is_digit(s, p))
            p++;
    }
    if (integer) {
        const uint64_t limit = (uint64_t)INT64_MAX + (uint64_t)neg;
        if (out != NULL && (over || mag > limit)) /* (what is skipped is not read) */
            return roce_jscan_fail(s, "an integer out of range (at most 9223372036854775807)");
        s->pos = p;
        if (out != NULL &&
            (*out = json_object_new_int64(neg ? (mag == limit ? INT64_MIN : -(int64_t)mag)
                                              : (int64_t)mag)) == NULL)
            return roce_jscan_fail(s, "out of memory");
        return 0;
    }
    char text[NUMBER_MAX + 1];
    if (p - start > NUMBER_MAX)
        return roce_jscan_fail(s, "a number of more than 64 characters");
    memcpy(text, s->buf + start, p - start);
    text[p - start] = '\0';
    double d = strtod(text, NULL);
    if (out != NULL && !isfinite(d))
        return roce_jscan_fail(s, "a number out of range");
    s->pos = p;
    if (out != NULL && (*out = json_object_new_double_s(d, text)) == NULL)
        return roce_jscan_fail(s, "out of memory");
    return 0;
}

/* true, false or null at the reading position, into *out (NULL: checked only). */
static int literal_value(struct roce_jscan *s, json_object **out)
{
    static const char *const words[] = {"true", "false", "null"};
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]), left = s->len - s->pos;
        if (left < n && memcmp(s->buf + s->pos, words[i], left) == 0)
            return s->pos = s->len, cut_short(s); /* "nu" at the end of a cut report */
        if (left < n || memcmp(s->buf + s->pos, words[i], n) != 0)
            continue;
        s->pos += n;
        if (out == NULL || i == 2) /* null is NULL */
            return 0;
        *out = json_object_new_boolean(i == 0);
        return *out != NULL ? 0 : roce_jscan_fail(s, "out of memory");
    }
    return roce_jscan_fail(s, "not a JSON value");
}

/* Each member (open '{': key is its name as written, key_len bytes) or
 * element of the container at the reading position, handed to fn with its
 * index. 0, or -1 (recorded). */
static int container(struct roce_jscan *s, char open,
                     int (*fn)(struct roce_jscan *s, const char *key, size_t key_len, size_t i,
                               void *ctx),
                     void *ctx)
{
    const char close = open == '{' ? '}' : ']';
    if (s->depth == ROCE_JSCAN_DEPTH)
        return roce_jscan_fail(s, "nested more than 64 deep");
    s->pos++;
    struct roce_jscan_level *l = &s->at[++s->depth];
    *l = (struct roce_jscan_level){NULL, 0, 0};
    int rc = 0;
    if (next(s) == close) {
        s->pos++;
        s->depth--;
        return 0;
    }
    for (size_t i = 0; rc == 0; i++) {
        l->index = i;
        if (open == '{') {
            char c = next(s);
            size_t from = s->pos + 1;
            if (c != '"') {
                rc = expected(s, "a member name expected");
                break;
            }
            if (string_check(s) != 0) {
                rc = -1;
                break;
            }
            l->key = s->buf + from;
            l->key_len = s->pos - 1 - from;
            if ((c = next(s)) != ':') {
                rc = expected(s, "':' expected");
                break;
            }
            s->pos++;
        }
        if (fn(s, l->key, l->key_len, i, ctx) != 0) {
            rc = -1;
            break;
        }
        char c = next(s);
        if (c == ',') {
            s->pos++;
            continue;
        }
        if (c == close) {
            s->pos++;
            break;
        }
        rc = expected(s, open == '{' ? "',' or '}' expected" : "',' or ']' expected");
    }
    s->depth--;
    return rc;
}

static int value(struct roce_jscan *s, json_object **out);

/* A member or element skipped. */
static int skip_one(struct roce_jscan *s, const char *key, size_t key_len, size_t i, void *ctx)
{
    (void)key;
    (void)key_len;
    (void)i;
    (void)ctx;
    return value(s, NULL);
}

/* A member added to the object being built (ctx), once. */
static int build_member(struct roce_jscan *s, const char *key, size_t key_len, size_t i, void *ctx)
{
    json_object *o = ctx, *v = NULL;
    char *name = malloc(key_len + 1);
    int rc = -1;
    (void)i;
    if (name == NULL)
        return roce_jscan_fail(s, "out of memory");
    decode(key, 0, key_len, name);
    if (json_object_object_get_ex(o, name, NULL))
        roce_jscan_fail(s, "a member given twice");
    else if (value(s, &v) == 0)
        rc = json_object_object_add(o, name, v) == 0 ? 0 : roce_jscan_fail(s, "out of memory");
    if (rc != 0)
        json_object_put(v);
    free(name);
    return rc;
}

/* An element added to the array being built (ctx). */
static int build_element(struct roce_jscan *s, const char *key, size_t key_len, size_t i, void *ctx)
{
    json_object *v = NULL;
    (void)key;
    (void)key_len;
    (void)i;
    if (value(s, &v) != 0)
        return -1;
    if (json_object_array_add(ctx, v) != 0) {
        json_object_put(v);
        return roce_jscan_fail(s, "out of memory");
    }
    return 0;
}

/* The container at the reading position, built into *out or skipped. */
static int container_value(struct roce_jscan *s, char open, json_object **out)
{
    if (out == NULL)
        return container(s, open, skip_one, NULL);
    *out = open == '{' ? json_object_new_object() : json_object_new_array();
    if (*out == NULL)
        return roce_jscan_fail(s, "out of memory");
    if (container(s, open, open == '{' ? build_member : build_element, *out) == 0)
        return 0;
    json_object_put(*out);
    *out = NULL;
    return -1;
}

/* The value at the reading position, built into *out or skipped (out NULL). */
static int value(struct roce_jscan *s, json_object **out)
{
    char c = next(s);
    int rc;
    if (out != NULL)
        *out = NULL;
    if (c == '{' || c == '[')
        rc = container_value(s, c, out);
    else if (c == '"')
        rc = string_value(s, out);
    else if (c == '-' || (c >= '0' && c <= '9'))
        rc = number_value(s, out);
    else if (c == 't' || c == 'f' || c == 'n')
        rc = literal_value(s, out);
    else if (c == '+' || c == '.')
        rc = roce_jscan_fail(s, c == '+' ? "not a JSON number: a leading '+'"
                                         : "not a JSON number: no digit before the decimal point");
    else
        rc = expected(s, "not a JSON value");
    if (rc == 0 && out != NULL && over_budget(s, s->pos) != 0) {
        json_object_put(*out);
        *out = NULL;
        rc = -1;
    }
    return rc;
}

int roce_jscan_skip(struct roce_jscan *s)
{
    return value(s, NULL);
}

int roce_jscan_build(struct roce_jscan *s, json_object **out)
{
    next(s);
    const size_t start = s->pos;
    s->build_end = s->budget > s->len - start ? s->len + 1 : start + s->budget;
    int rc = value(s, out);
    s->budget -= s->pos - start <= s->budget ? s->pos - start : s->budget;
    return rc;
}

/* A member of a walked object handed to the caller's on_member with its
 * name decoded. */
struct walk_object {
    int (*on_member)(struct roce_jscan *s, const char *key, void *ctx);
    void *ctx;
};

static int walk_member(struct roce_jscan *s, const char *key, size_t key_len, size_t i, void *ctx)
{
    const struct walk_object *w = ctx;
    char name[ROCE_JSCAN_KEY];
    (void)i;
    if (key_len >= sizeof name)
        return roce_jscan_fail(s, "a member name too long");
    decode(key, 0, key_len, name);
    return w->on_member(s, name, w->ctx);
}

int roce_jscan_object(struct roce_jscan *s,
                      int (*on_member)(struct roce_jscan *s, const char *key, void *ctx), void *ctx)
{
    struct walk_object w = {on_member, ctx};
    char c = next(s);
    if (c != '{')
        return expected(s, "an object expected");
    return container(s, '{', walk_member, &w);
}

struct walk_array {
    int (*on_element)(struct roce_jscan *s, size_t i, void *ctx);
    void *ctx;
};

static int walk_element(struct roce_jscan *s, const char *key, size_t key_len, size_t i, void *ctx)
{
    const struct walk_array *w = ctx;
    (void)key;
    (void)key_len;
    return w->on_element(s, i, w->ctx);
}

int roce_jscan_array(struct roce_jscan *s,
                     int (*on_element)(struct roce_jscan *s, size_t i, void *ctx), void *ctx)
{
    struct walk_array w = {on_element, ctx};
    char c = next(s);
    if (c != '[')
        return expected(s, "an array expected");
    return container(s, '[', walk_element, &w);
}

int roce_jscan_end(struct roce_jscan *s)
{
    next(s);
    return s->pos == s->len ? 0 : roce_jscan_fail(s, "data after the report");
}
