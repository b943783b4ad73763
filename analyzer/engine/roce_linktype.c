/*
 * roce_linktype.c - link-layer types: the ones the engine decodes and
 * their names, and the link type of what each ERF record type carries (see
 * roce_linktype.h). Both maps are terminated tables.
 */
#include "roce_linktype.h"

#include <stddef.h>

static const struct {
    int linktype;
    const char *name;
} linktype_names[] = {
    {ROCE_LINKTYPE_ETHERNET, "EN10MB"},
    {ROCE_LINKTYPE_DLT_RAW, "RAW"},
    {ROCE_LINKTYPE_DLT_RAW_ALT, "RAW"},
    {ROCE_LINKTYPE_RAW, "RAW"},
    {ROCE_LINKTYPE_LINUX_SLL, "LINUX_SLL"},
    {ROCE_LINKTYPE_LINUX_SLL2, "LINUX_SLL2"},
    {ROCE_LINKTYPE_IPV4, "IPV4"},
    {ROCE_LINKTYPE_IPV6, "IPV6"},
    {ROCE_LINKTYPE_INFINIBAND, "INFINIBAND"},
    {0, NULL},
};

/* ERF record types (Wireshark's wiretap/erf_record.h) and the link type of
 * the frame each carries: Ethernet and its colour, DSM and hash variants,
 * InfiniBand, IPv4, IPv6. */
static const struct {
    unsigned type;
    int linktype;
} erf_types[] = {
    {ROCE_ERF_TYPE_ETH, ROCE_LINKTYPE_ETHERNET},
    {ROCE_ERF_TYPE_COLOR_ETH, ROCE_LINKTYPE_ETHERNET},
    {ROCE_ERF_TYPE_DSM_ETH, ROCE_LINKTYPE_ETHERNET},
    {ROCE_ERF_TYPE_HASH_ETH, ROCE_LINKTYPE_ETHERNET},
    {ROCE_ERF_TYPE_IB, ROCE_LINKTYPE_INFINIBAND},
    {ROCE_ERF_TYPE_IPV4, ROCE_LINKTYPE_IPV4},
    {ROCE_ERF_TYPE_IPV6, ROCE_LINKTYPE_IPV6},
    {0, 0},
};

int roce_linktype_supported(int linktype)
{
    return roce_linktype_name(linktype) != NULL;
}

const char *roce_linktype_name(int linktype)
{
    for (unsigned i = 0; linktype_names[i].name != NULL; i++)
        if (linktype_names[i].linktype == linktype)
            return linktype_names[i].name;
    return NULL;
}

int roce_linktype_readable(int linktype)
{
    return linktype == ROCE_LINKTYPE_ERF || roce_linktype_supported(linktype);
}

int roce_erf_type_linktype(unsigned type)
{
    for (unsigned i = 0; erf_types[i].linktype != 0; i++)
        if (erf_types[i].type == type)
            return erf_types[i].linktype;
    return 0;
}
