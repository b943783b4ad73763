/*
 * test_filter.c - the default capture filter (roce_filter.c).
 *
 * The text is pinned byte for byte: it is what the live monitor has always
 * compiled (tests/live checks what it lets through), so a change to it
 * must be deliberate.
 */
#include <string.h>

#include "roce_engine.h"
#include "test_util.h"

#define BASE_DEFAULT                                                                               \
    "udp dst port 4791 or udp dst port 4789 or ether proto 0x8915 or ether proto 0x8808 or ip "    \
    "proto 47 or ip6 proto 47"

static void test_default_text(void)
{
    struct roce_config cfg;
    char buf[ROCE_CAPTURE_FILTER_LEN];
    roce_config_default(&cfg);
    size_t n = roce_capture_filter(&cfg, buf, sizeof buf);
    const char *want =
        "(" BASE_DEFAULT ") or (vlan and ((" BASE_DEFAULT ") or (vlan and (" BASE_DEFAULT "))))";
    CU_ASSERT_STRING_EQUAL(buf, want);
    CU_ASSERT_EQUAL(n, strlen(want));
}

static void test_ports(void)
{
    struct roce_config cfg;
    char buf[ROCE_CAPTURE_FILTER_LEN];
    roce_config_default(&cfg);
    cfg.udp_port = 4792;
    cfg.vxlan_port = 0; /* no VXLAN: no second port */
    roce_capture_filter(&cfg, buf, sizeof buf);
    const char *base = "udp dst port 4792 or ether proto 0x8915 or ether proto 0x8808 or ip proto "
                       "47 or ip6 proto 47";
    CU_ASSERT_EQUAL(strncmp(buf + 1, base, strlen(base)), 0);
    CU_ASSERT_PTR_NULL(strstr(buf, "4789"));
    CU_ASSERT_PTR_NULL(strstr(buf, "4791"));
}

/* The longest text (two 5-digit ports) fits ROCE_CAPTURE_FILTER_LEN; a
 * smaller buffer gets a cut, terminated text and the full length. */
static void test_bounds(void)
{
    struct roce_config cfg;
    char buf[ROCE_CAPTURE_FILTER_LEN], small[40];
    roce_config_default(&cfg);
    cfg.udp_port = 65535;
    cfg.vxlan_port = 65534;
    size_t n = roce_capture_filter(&cfg, buf, sizeof buf);
    CU_ASSERT(n < sizeof buf);
    CU_ASSERT_EQUAL(strlen(buf), n);
    memset(small, 'x', sizeof small);
    CU_ASSERT_EQUAL(roce_capture_filter(&cfg, small, sizeof small), n);
    CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
    CU_ASSERT_EQUAL(strncmp(small, buf, sizeof small - 1), 0);
    CU_ASSERT_EQUAL(roce_capture_filter(&cfg, small, 0), n); /* nothing written */
    CU_ASSERT_EQUAL(small[0], '(');
}

static const struct tu_test tests[] = {
    {"default_text", test_default_text},
    {"ports", test_ports},
    {"bounds", test_bounds},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "filter", tests);
}
