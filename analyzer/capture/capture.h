/*
 * capture.h - reading captures frame by frame: pcap and pcapng files,
 * standard input ("-"), compressed captures (gzip, zstd, lz4), with
 * nanosecond time stamps (capture.c says which reader reads what), and raw
 * ERF files; the records of ERF link type are handed out as the frames
 * they carry (erf.h). Frames
 * are only valid until the next call. Errors are reported as text in the
 * reader (roce_capture_error).
 */
#ifndef ROCE_CAPTURE_H
#define ROCE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct roce_capture;

struct roce_capture_frame {
    int64_t ts_ns;
    uint32_t caplen;
    uint32_t wirelen;
    const uint8_t *data;
    int linktype; /* of the frame's interface (pcapng files may mix them), or of
                     what its ERF record carries */
};

enum roce_capture_status {
    ROCE_CAPTURE_FRAME = 1, /* *frame is filled */
    ROCE_CAPTURE_END = 0,   /* end of file */
    ROCE_CAPTURE_ERROR = -1 /* read error (e.g. file cut short): see roce_capture_error */
};

/* Open a capture file ("-": standard input); NULL on failure with the
 * reason in err (errlen bytes). */
struct roce_capture *roce_capture_open(const char *path, char *err, size_t errlen);
/* Nonzero when the input at path is a file that can be read again and
 * again, or cannot be opened (its problem is then the same each time);
 * 0 for standard input, pipes and compressed files. */
int roce_capture_path_reopenable(const char *path);
/* Nonzero when the input is a file that can be read again (not standard
 * input, a pipe or a compressed file). */
int roce_capture_reopenable(const struct roce_capture *c);
/* Link-layer type of the file (of its first interface), as a LINKTYPE_
 * value (DLT mapped back). */
int roce_capture_linktype(const struct roce_capture *c);
/* Nonzero when the engine decodes the file's frames: a link type it
 * supports, or ERF (whose records say what they carry). */
int roce_capture_supported(const struct roce_capture *c);
/* Name of the link-layer type as libpcap knows it (e.g. "EN10MB"). */
const char *roce_capture_linktype_name(const struct roce_capture *c);
enum roce_capture_status roce_capture_next(struct roce_capture *c, struct roce_capture_frame *f);
const char *roce_capture_error(const struct roce_capture *c);
void roce_capture_close(struct roce_capture *c);

#endif
