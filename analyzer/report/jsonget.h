/*
 * jsonget.h - typed reads from a parsed JSON document (json-c) for the
 * report parser: each read checks the member's presence and type and, on
 * the first problem, records "WHERE.KEY: WHY"; later reads then return
 * zeros, so a parser reads on and checks once at the end.
 */
#ifndef ROCE_JSONGET_H
#define ROCE_JSONGET_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"

struct roce_jget {
    char *err; /* the first problem */
    size_t errlen;
    int failed;
    char ctx[64]; /* prefix of the problem's place (e.g. "flow 3"), "" for none */
};

/* Record a problem (only the first is kept): "CTX: WHERE.KEY: WHY". */
void roce_jget_fail(struct roce_jget *g, const char *where, const char *key, const char *why);

/* "WHERE.KEY" (either may be "") into buf: the place of a member. Returns buf. */
const char *roce_jget_where(char *buf, size_t len, const char *where, const char *key);

/* The member key of object o, of the given type; NULL (and a problem) when
 * it is missing or of another type. A nullable member that is null gives
 * NULL without a problem. */
json_object *roce_jget_member(struct roce_jget *g, json_object *o, const char *where,
                              const char *key, json_type type, int nullable);
/* The array member key of o (at where, its place written to at) of at
 * most max elements; NULL when missing, or with the problem too_many when
 * longer. */
json_object *roce_jget_list(struct roce_jget *g, json_object *o, const char *where, const char *key,
                            size_t max, const char *too_many, char *at, size_t len);
/* A non-negative integer member (0 on a problem). */
uint64_t roce_jget_u64(struct roce_jget *g, json_object *o, const char *where, const char *key);
/* A decimal member with at most `decimals` decimals, in units of its last
 * decimal: seconds with 9 decimals or microseconds with 3, as an exact count
 * of nanoseconds. 1 when read, 0 when
 * null (nullable) or on a problem. */
int roce_jget_ns(struct roce_jget *g, json_object *o, const char *where, const char *key,
                 unsigned decimals, int nullable, int64_t *out);
/* A string member ("" on a problem). */
const char *roce_jget_str(struct roce_jget *g, json_object *o, const char *where, const char *key);
/* A string member that must be one of name(0..n-1): its index (the last
 * where two share a name), 0 on a problem. */
unsigned roce_jget_name(struct roce_jget *g, json_object *o, const char *where, const char *key,
                        const char *(*name)(unsigned), unsigned n);
/* An address member as the writers write it (IPv4, IPv6 / GID, or
 * "lid:0x0012") into addr, its family into *af (enum roce_af); a problem
 * when it is not one. */
void roce_jget_addr(struct roce_jget *g, json_object *o, const char *where, const char *key,
                    uint8_t addr[ROCE_ADDR_LEN], uint8_t *af);
/* Entry i of the array a (the member key of the object at where) as an
 * address, as roce_jget_addr reads one. */
void roce_jget_addr_at(struct roce_jget *g, json_object *a, size_t i, const char *where,
                       const char *key, uint8_t addr[ROCE_ADDR_LEN], uint8_t *af);
/* A MAC address member ("aa:bb:cc:dd:ee:ff"). */
void roce_jget_mac(struct roce_jget *g, json_object *o, const char *where, const char *key,
                   uint8_t mac[ROCE_MAC_LEN]);
/* A list of at most max frame numbers, ascending and nonzero, into
 * frames; returns how many. */
unsigned roce_jget_frames(struct roce_jget *g, json_object *o, const char *where, const char *key,
                          uint64_t *frames, unsigned max);
/* {src, dst, dest_qp} into k (addresses as inet_ntop wrote them; the
 * version is not part of an endpoint and is left alone). */
void roce_jget_endpoint(struct roce_jget *g, json_object *o, const char *where,
                        struct roce_flow_key *k);

#endif
