/*
 * options_values.c - the values of rocescope's options, shared by every
 * command (the analysis, `merge`, `localize`, the live monitor): strict
 * numbers, numbers with units, the options several commands take, and the
 * one-line messages for bad values and unknown options (see cli_options.h).
 */
#define _DEFAULT_SOURCE
#include "cli_options.h"
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FLOWS_MIN       4ull
#define MAX_FLOWS_MAX       (1ull << 26)
#define TOP_MAX             1000000ull
#define PORT_MAX            65535ull
#define LINK_SPEED_MAX_MBPS 10000000ull /* 10 Tb/s */

int roce_cli_parse_unit(const char *s, const struct roce_cli_unit *units, uint64_t min,
                        uint64_t max, uint64_t *out)
{
    char num[32];
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    for (const struct roce_cli_unit *u = units; u->suffix != NULL; u++) {
        uint64_t v;
        if (strcmp(s + n, u->suffix) != 0 || roce_cli_parse_u64(num, 0, UINT64_MAX / u->factor, &v))
            continue;
        v *= u->factor;
        if (v < min || v > max)
            return -1;
        *out = v;
        return 0;
    }
    return -1;
}

int roce_cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return -1; /* empty, sign or blank */
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int roce_cli_bad_value(const char *opt, const char *val, const char *expect)
{
    roce_complainf("%s: invalid value '%s' (expected %s)", opt, val, expect);
    return -1;
}

int roce_cli_top(const char *arg, unsigned *top)
{
    uint64_t v;
    if (roce_cli_parse_u64(arg, 1, TOP_MAX, &v))
        return roce_cli_bad_value("--top", arg, "a number 1..1000000");
    *top = (unsigned)v;
    return 0;
}

int roce_cli_udp_port(const char *arg, uint16_t *port)
{
    uint64_t v;
    if (roce_cli_parse_u64(arg, 1, PORT_MAX, &v))
        return roce_cli_bad_value("--udp-port", arg, "a port number 1..65535");
    *port = (uint16_t)v;
    return 0;
}

int roce_cli_max_flows(const char *arg, uint32_t *max_flows)
{
    uint64_t v;
    if (roce_cli_parse_u64(arg, MAX_FLOWS_MIN, MAX_FLOWS_MAX, &v))
        return roce_cli_bad_value("--max-flows", arg, "a number 4..67108864");
    *max_flows = (uint32_t)v;
    return 0;
}

int roce_cli_link_speed(const char *arg, uint32_t *mbps)
{
    static const struct roce_cli_unit speed_units[] = {
        {"", 1000}, {"G", 1000}, {"g", 1000}, {"M", 1}, {"m", 1}, {NULL, 0},
    };
    uint64_t v;
    if (roce_cli_parse_unit(arg, speed_units, 1, LINK_SPEED_MAX_MBPS, &v))
        return roce_cli_bad_value("--link-speed", arg, "Gb/s like 100, 25G, 400G or 10000M");
    *mbps = (uint32_t)v;
    return 0;
}

int roce_cli_getopt_error(const char *cmd, int c, const char *opt)
{
    const char *sep = cmd[0] != '\0' ? ": " : "";
    if (c == ':')
        roce_complainf("%s%soption '%s' needs a value", cmd, sep, opt);
    else
        roce_complainf("%s%sunknown option '%s'", cmd, sep, opt);
    return -1;
}
