/*
 * jsonget.c - typed reads from a parsed JSON document (see jsonget.h).
 */
#define _DEFAULT_SOURCE
#include "jsonget.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_LEN 128
#define QPN_MAX      0xFFFFFFu /* QP numbers are 24 bits */
#define LID_DIGITS   4u        /* "lid:0x0012" */
#define LID_BASE     16

const char *roce_jget_where(char *buf, size_t len, const char *where, const char *key)
{
    snprintf(buf, len, "%s%s%s", where, where[0] && key[0] ? "." : "", key);
    return buf;
}

/* "context: where.key: why", leaving out the parts that are empty (a problem
 * of the whole document has neither context nor place). */
void roce_jget_fail(struct roce_jget *g, const char *where, const char *key, const char *why)
{
    char at[PATH_MAX_LEN];
    if (g->failed++)
        return;
    roce_jget_where(at, sizeof at, where, key);
    snprintf(g->err, g->errlen, "%s%s%s%s%s", g->ctx, g->ctx[0] && at[0] ? ": " : "", at,
             g->ctx[0] || at[0] ? ": " : "", why);
}

/* How a JSON type is named in a problem. */
static const char *type_name(json_type t)
{
    switch (t) {
    case json_type_int:
        return "a number";
    case json_type_double:
        return "a decimal number";
    case json_type_string:
        return "a string";
    case json_type_object:
        return "an object";
    case json_type_array:
        return "an array";
    case json_type_boolean:
        return "true or false";
    default:
        return "null";
    }
}

json_object *roce_jget_member(struct roce_jget *g, json_object *o, const char *where,
                              const char *key, json_type type, int nullable)
{
    json_object *v = NULL;
    char why[64];
    if (o == NULL || !json_object_object_get_ex(o, key, &v)) {
        roce_jget_fail(g, where, key, "missing");
        return NULL;
    }
    if (v == NULL && nullable)
        return NULL;
    /* an exact decimal may have been written without decimals */
    if (v != NULL && (json_object_get_type(v) == type ||
                      (type == json_type_double && json_object_get_type(v) == json_type_int)))
        return v;
    snprintf(why, sizeof why, "not %s", type_name(type));
    roce_jget_fail(g, where, key, why);
    return NULL;
}

uint64_t roce_jget_u64(struct roce_jget *g, json_object *o, const char *where, const char *key)
{
    json_object *v = roce_jget_member(g, o, where, key, json_type_int, 0);
    if (v == NULL)
        return 0;
    if (json_object_get_int64(v) < 0) {
        roce_jget_fail(g, where, key, "negative");
        return 0;
    }
    return json_object_get_uint64(v);
}

/* "[-]DIGITS[.DIGITS]" with at most `decimals` decimals, in units of
 * 10^-decimals (seconds with 9 and microseconds with 3: nanoseconds). 0, or -1 when it is not such
 * a number or does not fit. */
static int parse_decimal(const char *s, unsigned decimals, int64_t *out)
{
    int neg = *s == '-';
    uint64_t v = 0;
    unsigned frac = 0;
    s += neg;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++, frac++) {
            if (frac == decimals || v > (UINT64_MAX - 9) / 10)
                return -1; /* more decimals than exact */
            v = v * 10 + (uint64_t)(*s - '0');
        }
    for (; frac < decimals; frac++) {
        if (v > UINT64_MAX / 10)
            return -1;
        v *= 10;
    }
    if (*s != '\0' || v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int roce_jget_ns(struct roce_jget *g, json_object *o, const char *where, const char *key,
                 unsigned decimals, int nullable, int64_t *out)
{
    json_object *v = roce_jget_member(g, o, where, key, json_type_double, nullable);
    int64_t units;
    *out = 0;
    if (v == NULL)
        return 0;
    if (parse_decimal(json_object_get_string(v), decimals, &units) != 0) {
        roce_jget_fail(g, where, key, "not an exact decimal number");
        return 0;
    }
    *out = units;
    return 1;
}

const char *roce_jget_str(struct roce_jget *g, json_object *o, const char *where, const char *key)
{
    json_object *v = roce_jget_member(g, o, where, key, json_type_string, 0);
    return v != NULL ? json_object_get_string(v) : "";
}

unsigned roce_jget_name(struct roce_jget *g, json_object *o, const char *where, const char *key,
                        const char *(*name)(unsigned), unsigned n)
{
    const char *s = roce_jget_str(g, o, where, key);
    for (unsigned i = n; i-- > 0;)
        if (strcmp(s, name(i)) == 0)
            return i;
    if (!g->failed)
        roce_jget_fail(g, where, key, "unknown name");
    return 0;
}

/* A LID as roce_fmt_addr writes it: "lid:0x" and four hex digits. 0, or -1. */
static int parse_lid(const char *s, uint8_t addr[ROCE_ADDR_LEN])
{
    const char *digits = s + sizeof ROCE_ADDR_LID_TEXT - 1;
    if (strlen(digits) != LID_DIGITS || strspn(digits, "0123456789abcdefABCDEF") != LID_DIGITS)
        return -1;
    roce_addr_set_lid(addr, (uint16_t)strtoul(digits, NULL, LID_BASE));
    return 0;
}

/* An address as roce_fmt_addr writes it: IPv4 dotted (stored IPv4-mapped),
 * a LID ("lid:0x0012"), anything else with a colon IPv6 or a GID; *af its
 * enum roce_af. 0, or -1. */
static int parse_addr(const char *s, uint8_t addr[ROCE_ADDR_LEN], uint8_t *af)
{
    if (strncmp(s, ROCE_ADDR_LID_TEXT, sizeof ROCE_ADDR_LID_TEXT - 1) == 0) {
        *af = ROCE_AF_LID;
        return parse_lid(s, addr);
    }
    *af = strchr(s, ':') != NULL ? ROCE_AF_IPV6 : ROCE_AF_IPV4;
    if (*af == ROCE_AF_IPV6)
        return inet_pton(AF_INET6, s, addr) == 1 ? 0 : -1;
    uint8_t v4[ROCE_ADDR_V4_LEN];
    if (inet_pton(AF_INET, s, v4) != 1)
        return -1;
    roce_addr_set_v4(addr, v4);
    return 0;
}

void roce_jget_addr(struct roce_jget *g, json_object *o, const char *where, const char *key,
                    uint8_t addr[ROCE_ADDR_LEN], uint8_t *af)
{
    if (parse_addr(roce_jget_str(g, o, where, key), addr, af) != 0)
        roce_jget_fail(g, where, key, "not an address");
}

void roce_jget_addr_at(struct roce_jget *g, json_object *a, size_t i, const char *where,
                       const char *key, uint8_t addr[ROCE_ADDR_LEN], uint8_t *af)
{
    json_object *v = json_object_array_get_idx(a, i);
    if (json_object_get_type(v) != json_type_string ||
        parse_addr(json_object_get_string(v), addr, af) != 0)
        roce_jget_fail(g, where, key, "not a list of addresses");
}

void roce_jget_mac(struct roce_jget *g, json_object *o, const char *where, const char *key,
                   uint8_t mac[ROCE_MAC_LEN])
{
    const char *s = roce_jget_str(g, o, where, key);
    unsigned b[ROCE_MAC_LEN];
    char end;
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &end) !=
            ROCE_MAC_LEN ||
        strlen(s) != ROCE_MAC_TEXT_LEN - 1) {
        roce_jget_fail(g, where, key, "not a MAC address");
        return;
    }
    for (unsigned i = 0; i < ROCE_MAC_LEN; i++)
        mac[i] = (uint8_t)b[i];
}

unsigned roce_jget_frames(struct roce_jget *g, json_object *o, const char *where, const char *key,
                          uint64_t *frames, unsigned max)
{
    json_object *a = roce_jget_member(g, o, where, key, json_type_array, 0);
    unsigned n = 0;
    if (a == NULL)
        return 0;
    if (json_object_array_length(a) > max) {
        roce_jget_fail(g, where, key, "too many frames");
        return 0;
    }
    for (size_t i = 0; i < json_object_array_length(a); i++) {
        json_object *v = json_object_array_get_idx(a, i);
        if (json_object_get_type(v) != json_type_int || json_object_get_int64(v) <= 0 ||
            (n > 0 && json_object_get_uint64(v) <= frames[n - 1])) {
            roce_jget_fail(g, where, key, "not ascending frame numbers");
            return 0;
        }
        frames[n++] = json_object_get_uint64(v);
    }
    return n;
}

void roce_jget_endpoint(struct roce_jget *g, json_object *o, const char *where,
                        struct roce_flow_key *k)
{
    uint8_t af_src = 0, af_dst = 0;
    if (parse_addr(roce_jget_str(g, o, where, "src"), k->src, &af_src) != 0 ||
        parse_addr(roce_jget_str(g, o, where, "dst"), k->dst, &af_dst) != 0 || af_src != af_dst) {
        roce_jget_fail(g, where, "src", "not a pair of addresses");
        return;
    }
    k->af = af_src;
    uint64_t qp = roce_jget_u64(g, o, where, "dest_qp");
    k->dqpn = (uint32_t)qp;
    if (qp > QPN_MAX)
        roce_jget_fail(g, where, "dest_qp", "not a 24-bit QP number");
}

json_object *roce_jget_list(struct roce_jget *g, json_object *o, const char *where, const char *key,
                            size_t max, const char *too_many, char *at, size_t len)
{
    json_object *a = roce_jget_member(g, o, where, key, json_type_array, 0);
    roce_jget_where(at, len, where, key);
    if (a != NULL && json_object_array_length(a) > max) {
        roce_jget_fail(g, at, "", too_many);
        return NULL;
    }
    return a;
}
