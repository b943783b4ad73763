/*
 * capture_frame.c - which link types an analysis of captures takes (see
 * capture.h; the conversion of a capture frame into the engine's,
 * roce_capture_frame_in, is inline there).
 */
#include "capture.h"

#include <stdio.h>

int roce_capture_linktype_check(int linktype, const char *name, char *msg, size_t msglen)
{
    if (roce_linktype_readable(linktype))
        return 0;
    snprintf(msg, msglen, "unsupported link type %s (%d)", name, linktype);
    return -1;
}
