/*
 * names.c - names with their control characters escaped (see names.h).
 */
#include "names.h"

#include <stdint.h>
#include <string.h>

#define C0_END       0x20u /* below: C0 controls */
#define DEL          0x7fu
#define C1_FIRST     0x80u /* U+0080..U+009F: C1 controls */
#define C1_LAST      0x9fu
#define CONT_MASK    0xc0u /* a continuation byte is 10xxxxxx */
#define CONT_BITS    0x80u
#define CONT_PAYLOAD 0x3fu
#define SURROGATE_LO 0xd800u
#define SURROGATE_HI 0xdfffu
#define UNICODE_MAX  0x10ffffu

/* The length of the valid UTF-8 character at s (1..4) when it is printable
 * text, or 0 when its first byte must be escaped. */
static size_t printable_len(const unsigned char *s)
{
    static const struct {
        unsigned char mask, lead; /* first byte & mask == lead */
        size_t len;
        uint32_t min; /* smallest code point: below, an overlong form */
    } forms[] = {
        {0xe0u, 0xc0u, 2, 0x80u},
        {0xf0u, 0xe0u, 3, 0x800u},
        {0xf8u, 0xf0u, 4, 0x10000u},
    };
    if (s[0] < C1_FIRST)
        return s[0] < C0_END || s[0] == DEL ? 0 : 1;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        if ((s[0] & forms[f].mask) != forms[f].lead)
            continue;
        uint32_t cp = s[0] & (unsigned char)~forms[f].mask;
        for (size_t i = 1; i < forms[f].len; i++) {
            if ((s[i] & CONT_MASK) != CONT_BITS) /* also stops at the NUL */
                return 0;
            cp = cp << 6 | (s[i] & CONT_PAYLOAD);
        }
        if (cp < forms[f].min || cp > UNICODE_MAX || (cp >= SURROGATE_LO && cp <= SURROGATE_HI) ||
            (cp >= C1_FIRST && cp <= C1_LAST))
            return 0;
        return forms[f].len;
    }
    return 0;
}

/* The escaped form of byte c ("\xHH") into out (ROCE_NAME_ESC_MAX + 1). */
static void escape_byte(unsigned char c, char *out)
{
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 0xfu];
    out[4] = '\0';
}

int roce_name_fputs(const char *s, FILE *f)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[ROCE_NAME_ESC_MAX + 1];
    while (*p != '\0') {
        size_t n = printable_len(p);
        if (n == 0) {
            escape_byte(*p, esc);
            if (fputs(esc, f) == EOF)
                return EOF;
            p++;
            continue;
        }
        if (fwrite(p, 1, n, f) != n)
            return EOF;
        p += n;
    }
    return 0;
}

const char *roce_name_escape(const char *s, char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t used = 0;
    if (len == 0)
        return buf;
    while (*p != '\0') {
        size_t n = printable_len(p);
        char esc[ROCE_NAME_ESC_MAX + 1];
        const char *piece = (const char *)p;
        if (n == 0) {
            escape_byte(*p, esc);
            piece = esc;
        }
        size_t w = n == 0 ? ROCE_NAME_ESC_MAX : n;
        if (used + w >= len)
            break;
        memcpy(buf + used, piece, w);
        used += w;
        p += n == 0 ? 1 : n;
    }
    buf[used] = '\0';
    return buf;
}
