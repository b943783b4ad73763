/*
 * test_names.c - names printed for people (analyzer/common/names.h): every
 * control character escaped as \xHH, printable text (UTF-8 included) as it
 * is, and bytes that are not UTF-8 escaped; the buffer form cut at a whole
 * character. Expectations from the code charts (ECMA-48's C0 and C1 sets,
 * RFC 3629's UTF-8), not from the code.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "test_util.h"

/* s through roce_name_fputs, as a string (owned by the caller). */
static char *through_fputs(const char *s)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(roce_name_fputs(s, f), 0);
    fclose(f);
    return out;
}

/* Both forms give want. */
static void check(const char *s, const char *want)
{
    char buf[256];
    char *got = through_fputs(s);
    CU_ASSERT_STRING_EQUAL(got, want);
    CU_ASSERT_STRING_EQUAL(roce_name_escape(s, buf, sizeof buf), want);
    free(got);
}

static void test_printable_kept(void)
{
    check("captures/loss_receiver.pcap", "captures/loss_receiver.pcap");
    check("tap a=b 'q' \\ ~", "tap a=b 'q' \\ ~");
    check("caf\xc3\xa9", "caf\xc3\xa9");                     /* U+00E9: 2 bytes */
    check("\xe2\x86\x92", "\xe2\x86\x92");                   /* U+2192 (->): 3 bytes */
    check("\xf0\x9f\x93\xa6.pcap", "\xf0\x9f\x93\xa6.pcap"); /* U+1F4E6: 4 bytes */
    check("\xc2\xa0", "\xc2\xa0");                           /* U+00A0, the first after C1 */
    check("", "");
}

static void test_c0_and_del(void)
{
    check("a\x1b[31mb", "a\\x1b[31mb"); /* ESC: a colour */
    check("\x1b]0;title\x07", "\\x1b]0;title\\x07");
    check("tab\there", "tab\\x09here");
    check("line\nbreak\r", "line\\x0abreak\\x0d");
    check("\x01\x1f\x7f", "\\x01\\x1f\\x7f");
    check(" ~", " ~"); /* 0x20 and 0x7e are printable */
}

static void test_c1_and_not_utf8(void)
{
    check("\xc2\x9b"
          "31m",
          "\\xc2\\x9b31m");          /* U+009B (CSI) in UTF-8 */
    check("\xc2\x80", "\\xc2\\x80"); /* U+0080, the first of C1 */
    check("\x9b"
          "31m",
          "\\x9b31m");                                 /* a lone 8-bit CSI */
    check("\xc0\xaf", "\\xc0\\xaf");                   /* an overlong '/' */
    check("\xe0\x80\xaf", "\\xe0\\x80\\xaf");          /* an overlong '/' in 3 bytes */
    check("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate, U+D800 */
    check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
    check("\xc3", "\\xc3");                            /* cut short at the end */
    check("\xe2\x86", "\\xe2\\x86");
    check("\xff\xfe", "\\xff\\xfe");
}

static void test_buffer_cut(void)
{
    char buf[8];
    /* whole characters only: "ab" then a 4-byte escape does not fit in 8
     * with "cde" (ab\x1b = 6, then c = 7, then the NUL) */
    CU_ASSERT_STRING_EQUAL(roce_name_escape("ab\x1b"
                                            "cde",
                                            buf, sizeof buf),
                           "ab\\x1bc");
    CU_ASSERT_STRING_EQUAL(roce_name_escape("a\x1b", buf, 4), "a");
    CU_ASSERT_STRING_EQUAL(roce_name_escape("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", buf, 6),
                           "\xc3\xa9\xc3\xa9");
    CU_ASSERT_STRING_EQUAL(roce_name_escape("xyz", buf, 1), "");
}

static const struct tu_test tests[] = {
    {"printable_kept", test_printable_kept},
    {"c0_and_del", test_c0_and_del},
    {"c1_and_not_utf8", test_c1_and_not_utf8},
    {"buffer_cut", test_buffer_cut},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "names", tests);
}
