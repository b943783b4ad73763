/*
 * jsonscan.h - a strict JSON reader (RFC 8259) over a document in memory,
 * for the report parser: the document is walked member by member and
 * element by element, and each value is skipped (checked, nothing kept),
 * built into a json-c value (within a budget of text), or walked further,
 * so that a document of any size is read in memory bounded by what the
 * caller keeps.
 *
 * Strict: numbers by the RFC's grammar (an optional '-', digits without a
 * leading zero, a '.' only with digits after it, an exponent only with
 * digits; no '+', NaN or Infinity; at most 64 characters unless an
 * integer) and, when built, an integer (no fraction, no exponent) within
 * [-2^63, 2^63 - 1], any other number finite (what is skipped is not
 * read: its grammar alone is checked); strings without raw
 * control characters, with valid escapes, \u surrogates in pairs and no
 * \u0000 (bytes above 0x7f are taken as they are: file names need not be
 * UTF-8); the literals true, false and null; an object with each member
 * once (in what is built); nesting at most ROCE_JSCAN_DEPTH deep; nothing
 * after the document but blanks. The first problem is recorded (jsonget.h)
 * with the place of the value it is in ("flows[3].packets") and its offset.
 *
 * A document mapped from a file (roce_jscan_init, mapped) has the pages
 * behind the reading position given back as it goes (madvise), so that
 * reading it does not keep it in memory either.
 */
#ifndef ROCE_JSONSCAN_H
#define ROCE_JSONSCAN_H

#include <json-c/json.h>
#include <stddef.h>

#include "jsonget.h"

#define ROCE_JSCAN_DEPTH 64  /* arrays and objects inside one another */
#define ROCE_JSCAN_KEY   256 /* bytes of a member name in a walked object, with its NUL */

/* One level of the place of the value being read. */
struct roce_jscan_level {
    const char *key; /* the member's name as written (NULL: an element) */
    size_t key_len, index;
};

struct roce_jscan {
    const char *buf;
    size_t len, pos;
    struct roce_jget *g;
    size_t budget;     /* bytes of text roce_jscan_build may still take */
    size_t build_end;  /* while building: the offset it may not pass */
    int mapped;        /* buf is a mapping of a file: pages behind pos are given back */
    size_t given_back; /* up to there */
    unsigned depth;
    struct roce_jscan_level at[ROCE_JSCAN_DEPTH + 1];
};

/* Read len bytes at buf (mapped: a page-aligned private mapping of a file,
 * of which the pages already read may be dropped), problems into g. */
void roce_jscan_init(struct roce_jscan *s, const char *buf, size_t len, struct roce_jget *g,
                     int mapped);

/* The first character of the value at the reading position (after
 * blanks: '{', '[', '"', '-' or a digit, 't', 'f', 'n'), 0 at the end. */
char roce_jscan_peek(struct roce_jscan *s);

/* Check the value at the reading position and move past it, keeping
 * nothing. 0, or -1 (recorded). */
int roce_jscan_skip(struct roce_jscan *s);

/* Build the value at the reading position into *out (NULL for null; the
 * caller puts it), taking at most s->budget bytes of its text, which the
 * budget then loses. 0, or -1 (recorded; also when over the budget or out
 * of memory). */
int roce_jscan_build(struct roce_jscan *s, json_object **out);

/* Walk the object at the reading position: on_member is called with each
 * member's name (NUL-terminated; at most ROCE_JSCAN_KEY - 1 bytes) and must
 * take its value (skip, build or walk it). 0, or -1 (recorded, or
 * on_member's -1). */
int roce_jscan_object(struct roce_jscan *s,
                      int (*on_member)(struct roce_jscan *s, const char *key, void *ctx),
                      void *ctx);

/* Walk the array at the reading position: on_element is called for each
 * element (its index) and must take it. 0, or -1 (recorded, or
 * on_element's -1). */
int roce_jscan_array(struct roce_jscan *s,
                     int (*on_element)(struct roce_jscan *s, size_t i, void *ctx), void *ctx);

/* The end of the document: nothing but blanks left. 0, or -1 (recorded). */
int roce_jscan_end(struct roce_jscan *s);

/* Record a problem at the place and offset being read. Returns -1. */
int roce_jscan_fail(struct roce_jscan *s, const char *why);

#endif
