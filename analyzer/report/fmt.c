/*
 * fmt.c - text forms for the CLI (see fmt.h).
 */
#include "fmt.h"

#include <stdio.h>

#include "roce_time.h"

void roce_fmt_addr(const uint8_t addr[ROCE_ADDR_LEN], int af, char *buf, size_t len)
{
    if (roce_addr_format(addr, af, buf, len) >= len && len > 0)
        buf[0] = '\0'; /* as inet_ntop: nothing rather than a cut address */
}

void roce_fmt_seconds(int64_t ns, char *buf, size_t len)
{
    const char *sign = "";
    uint64_t u = (uint64_t)ns;
    if (ns < 0) {
        sign = "-";
        u = (uint64_t)0 - u;
    }
    snprintf(buf, len, "%s%llu.%09llu", sign, (unsigned long long)(u / ROCE_NS_PER_SEC),
             (unsigned long long)(u % ROCE_NS_PER_SEC));
}

void roce_fmt_flow(const struct roce_flow_key *k, char *buf, size_t len)
{
    char s[ROCE_FMT_ADDR_LEN], d[ROCE_FMT_ADDR_LEN];
    roce_fmt_addr(k->src, k->af, s, sizeof s);
    roce_fmt_addr(k->dst, k->af, d, sizeof d);
    snprintf(buf, len, "%s -> %s QP 0x%06x", s, d, (unsigned)k->dqpn);
}

void roce_fmt_opcode(uint8_t opcode, char *buf, size_t len)
{
    const struct roce_opcode_info *info = roce_opcode_lookup(opcode);
    if (info != NULL)
        snprintf(buf, len, "%s", info->ident);
    else
        snprintf(buf, len, "OP_0x%02x", (unsigned)opcode);
}

double roce_fmt_us(int64_t ns)
{
    return (double)ns / (double)ROCE_NS_PER_US;
}

const char *roce_fmt_us_text(int64_t ns, char buf[ROCE_FMT_US_LEN])
{
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, ROCE_FMT_US_LEN, "%s%llu.%03llu", ns < 0 ? "-" : "",
             (unsigned long long)(u / ROCE_NS_PER_US), (unsigned long long)(u % ROCE_NS_PER_US));
    return buf;
}

const char *roce_fmt_plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}
