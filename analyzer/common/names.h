/*
 * names.h - names printed for people (file names, vantage point names,
 * values given on the command line) with their control characters escaped,
 * so that a name can never drive the terminal it is printed on: every
 * error line (roce_complainf) and every name a summary prints goes through
 * roce_name_fputs or roce_name_escape.
 */
#ifndef ROCE_NAMES_H
#define ROCE_NAMES_H

#include <stddef.h>
#include <stdio.h>

/* Bytes one byte of a name can take once escaped ("\xHH"). */
#define ROCE_NAME_ESC_MAX 4

/*
 * Write s to f with every control character escaped as \xHH: the C0 set
 * (0x00-0x1f, with tab and newline), DEL (0x7f), the C1 set written in
 * UTF-8 (U+0080-U+009F), and every byte that is not part of valid UTF-8 (a
 * lone 0x9b is CSI to some terminals). Printable text, UTF-8 included, is
 * written as it is. 0, or EOF on a write error.
 */
int roce_name_fputs(const char *s, FILE *f);

/* The same into buf (len bytes, NUL-terminated, cut short at a whole
 * character when it does not fit); returns buf. */
const char *roce_name_escape(const char *s, char *buf, size_t len);

#endif
