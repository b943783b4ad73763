/*
 * savefile.h - `-w FILE`: the live monitor saves what it captured, as
 * tcpdump does, with size rotation.
 *
 * Without a size limit everything goes to FILE. With a size limit (-C, in
 * millions of bytes) a new file is started once the current one holds more
 * than the limit: FILE, FILE1, FILE2, ... With a file count as well (-W N)
 * the names are FILE0 .. FILE(N-1), zero-padded to the width of N-1, and
 * the oldest is overwritten once N exist (a ring, like tcpdump -C -W).
 * Files are classic pcap with the capture's link type, snapshot length and
 * time stamp precision (the nanosecond magic when it has nanoseconds).
 */
#ifndef ROCE_SAVEFILE_H
#define ROCE_SAVEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"

struct roce_savefile;

struct roce_savefile_config {
    const char *path;
    int dlt; /* DLT_ value of the capture */
    unsigned snaplen;
    int nano;           /* time stamps in nanoseconds */
    uint64_t max_bytes; /* rotate past this size (0: never) */
    unsigned max_files; /* ring of this many files (0: no limit) */
};

/* Create the first file. NULL with the reason in err on failure. */
struct roce_savefile *roce_savefile_open(const struct roce_savefile_config *cfg, char *err,
                                         size_t errlen);
/* Append one frame (rotating first when the file has passed max_bytes, so
 * that a file holds at most max_bytes plus one record). 0, or -1 with the
 * reason in roce_savefile_error (the savefile is then unusable). A write
 * error (a full file system) closes the file cut back to its last whole
 * record. */
int roce_savefile_write(struct roce_savefile *s, const struct roce_capture_frame *f);
/* Push buffered frames to the file. 0, or -1 (write error, as above). */
int roce_savefile_flush(struct roce_savefile *s);
const char *roce_savefile_error(const struct roce_savefile *s);
/* Flush and close. 0, or -1 when the last writes failed. */
int roce_savefile_close(struct roce_savefile *s);

#endif
