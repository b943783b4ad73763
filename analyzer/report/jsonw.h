/*
 * jsonw.h - a JSON writer that streams: each value is written as it is
 * given, in the layout of json-c's JSON_C_TO_STRING_PRETTY |
 * JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE, byte for byte
 * (two spaces a level, "key": value, a container's closing bracket on a
 * line of its own even when empty, strings escaped as json-c escapes them), so that the report
 * written this way is the one json-c's tree wrote. No value is kept once written: the JSON report's
 * flows are written without building them (report_json.c).
 *
 * Errors are sticky: after a failed write the writer writes nothing more
 * and roce_jw_flush returns -1.
 */
#ifndef ROCESCOPE_JSONW_H
#define ROCESCOPE_JSONW_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#define ROCE_JW_BUF   65536 /* bytes buffered before a write to the stream */
#define ROCE_JW_DEPTH 64    /* nesting levels (json-c nests at most 1000; the reports use 8) */

struct roce_jw {
    FILE *out;
    int err;
    unsigned level;   /* json-c's level of the innermost open container */
    uint64_t members; /* bit L: the container at level L has a member already */
    size_t n;         /* bytes in buf */
    char buf[ROCE_JW_BUF];
};

/* Start writing to out; values opened at level `level` (json-c's level: 2
 * for an element of the report's top-level arrays). */
void roce_jw_init(struct roce_jw *w, FILE *out, unsigned level);
/* Write what is buffered: 0, or -1 when a write failed (now or before). */
int roce_jw_flush(struct roce_jw *w);

/* Text as it is (an element separator, an already formatted number). */
void roce_jw_raw(struct roce_jw *w, const char *s, size_t len);
/* The next member of the innermost object: its separator, indentation and
 * "key": (key escaped). */
void roce_jw_key(struct roce_jw *w, const char *key);
/* The next element of the innermost array: its separator and indentation. */
void roce_jw_item(struct roce_jw *w);
/* Open and close an object ('{', '}') or an array ('[', ']'). */
void roce_jw_open(struct roce_jw *w, char c);
void roce_jw_close(struct roce_jw *w, char c);

/* Values. */
void roce_jw_null(struct roce_jw *w);
void roce_jw_bool(struct roce_jw *w, int v);
void roce_jw_u64(struct roce_jw *w, uint64_t v);
void roce_jw_i64(struct roce_jw *w, int64_t v);
void roce_jw_str(struct roce_jw *w, const char *s);
/* Microseconds with three exact decimals, seconds with nine (as
 * roce_json_us and roce_json_seconds). */
void roce_jw_us(struct roce_jw *w, int64_t ns);
void roce_jw_seconds(struct roce_jw *w, int64_t ns);
/* A json-c value (NULL: null), as json-c writes it at this place. */
void roce_jw_json(struct roce_jw *w, json_object *v);

/* key: value, for the common cases. */
void roce_jw_key_u64(struct roce_jw *w, const char *key, uint64_t v);
void roce_jw_key_str(struct roce_jw *w, const char *key, const char *s);

#endif
