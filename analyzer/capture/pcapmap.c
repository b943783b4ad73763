/*
 * pcapmap.c - a classic pcap reader that parses records straight from the
 * mapped file (see pcapmap.h).
 *
 * File format (https://www.tcpdump.org/manpages/pcap-savefile.5.html):
 *   file header (24): magic(4) version major(2) minor(2) thiszone(4)
 *                     sigfigs(4) snaplen(4) linktype(4)
 *   record header (16): ts_sec(4) ts_frac(4) incl_len(4) orig_len(4), then
 *                       incl_len bytes
 * magic 0xa1b2c3d4 (microseconds) or 0xa1b23c4d (nanoseconds), written in
 * the byte order of the machine that made the file: both orders are read.
 * Only version 2.4 files with a snapshot length in (0, 256 KiB] and no
 * link-type extension bits are mapped; a record longer than the snapshot
 * length or running past the end of the file stops this reader (libpcap
 * then reads it, and reports the problem in its own words).
 */
#define _DEFAULT_SOURCE
#include "pcapmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roce_time.h"

#define FILE_HDR_LEN       24
#define REC_HDR_LEN        16
#define MAGIC_US           0xA1B2C3D4u
#define MAGIC_NS           0xA1B23C4Du
#define MAGIC_US_SWAPPED   0xD4C3B2A1u
#define MAGIC_NS_SWAPPED   0x4D3CB2A1u
#define LINKTYPE_MASK      0x03FFFFFFu /* bits 26..31 carry FCS information */
#define PCAPMAP_MAX_RECORD (256u * 1024u) /* libpcap's largest snapshot length */
#define VERSION_MAJOR      2
#define VERSION_MINOR      4
#define VERSION_OFF        4
#define SNAPLEN_OFF        16
#define LINKTYPE_OFF       20
#define WINDOW             (1024u * 1024u) /* mapped bytes kept resident ahead / behind */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

struct roce_pcapmap {
    const uint8_t *base;
    size_t size;
    size_t off;
    size_t ahead;  /* populated up to here */
    size_t behind; /* released below here */
    uint32_t snaplen;
    int swapped;
    int64_t frac_ns; /* nanoseconds per unit of ts_frac */
    int linktype;
    char err[160];
};

static uint32_t rd32(const struct roce_pcapmap *m, size_t off)
{
    uint32_t v;
    memcpy(&v, m->base + off, sizeof v);
    return m->swapped ? __builtin_bswap32(v) : v;
}

/* Keep the resident part of the mapping bounded: populate the next window
 * in one call (fewer page faults), release what lies a window behind. */
static void window(struct roce_pcapmap *m)
{
    if (m->off + WINDOW / 2 >= m->ahead && m->ahead < m->size) {
        size_t len = m->size - m->ahead < WINDOW ? m->size - m->ahead : WINDOW;
        madvise((void *)(m->base + m->ahead), len, MADV_POPULATE_READ);
        m->ahead += len;
    }
    if (m->off >= m->behind + 2 * WINDOW) {
        madvise((void *)(m->base + m->behind), WINDOW, MADV_DONTNEED);
        m->behind += WINDOW;
    }
}

int roce_pcapmap_probe(const void *head, size_t len)
{
    uint32_t magic;
    if (len < sizeof magic)
        return 0;
    memcpy(&magic, head, sizeof magic);
    return magic == MAGIC_US || magic == MAGIC_NS || magic == MAGIC_US_SWAPPED ||
           magic == MAGIC_NS_SWAPPED;
}

struct roce_pcapmap *roce_pcapmap_open(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct roce_pcapmap *m;

    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < FILE_HDR_LEN) {
        snprintf(err, errlen, "not a regular capture file");
        close(fd);
        return NULL;
    }
    m = calloc(1, sizeof *m);
    if (m == NULL) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return NULL;
    }
    m->size = (size_t)st.st_size;
    void *base = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        snprintf(err, errlen, "%s", strerror(errno));
        free(m);
        return NULL;
    }
    m->base = base;
    madvise(base, m->size, MADV_SEQUENTIAL);
    window(m);
    uint32_t magic;
    memcpy(&magic, m->base, sizeof magic);
    m->swapped = magic == MAGIC_US_SWAPPED || magic == MAGIC_NS_SWAPPED;
    if (magic == MAGIC_US || magic == MAGIC_US_SWAPPED) {
        m->frac_ns = ROCE_NS_PER_US;
    } else if (magic == MAGIC_NS || magic == MAGIC_NS_SWAPPED) {
        m->frac_ns = 1;
    } else {
        snprintf(err, errlen, "not a classic pcap file");
        roce_pcapmap_close(m);
        return NULL;
    }
    uint16_t ver[2];
    memcpy(ver, m->base + VERSION_OFF, sizeof ver);
    if (m->swapped) {
        ver[0] = __builtin_bswap16(ver[0]);
        ver[1] = __builtin_bswap16(ver[1]);
    }
    uint32_t lt = rd32(m, LINKTYPE_OFF);
    m->snaplen = rd32(m, SNAPLEN_OFF);
    if (ver[0] != VERSION_MAJOR || ver[1] != VERSION_MINOR || (lt & ~LINKTYPE_MASK) != 0 ||
        m->snaplen == 0 || m->snaplen > PCAPMAP_MAX_RECORD) {
        snprintf(err, errlen, "pcap header left to libpcap");
        roce_pcapmap_close(m);
        return NULL;
    }
    m->linktype = (int)lt;
    m->off = FILE_HDR_LEN;
    return m;
}

int roce_pcapmap_linktype(const struct roce_pcapmap *m)
{
    return m->linktype;
}

int roce_pcapmap_next(struct roce_pcapmap *m, struct roce_capture_frame *f)
{
    if (m->off == m->size)
        return ROCE_CAPTURE_END;
    if (m->size - m->off < REC_HDR_LEN) {
        snprintf(m->err, sizeof m->err, "record header cut short");
        return ROCE_CAPTURE_ERROR;
    }
    uint32_t sec = rd32(m, m->off), frac = rd32(m, m->off + 4);
    uint32_t incl = rd32(m, m->off + 8), orig = rd32(m, m->off + 12);
    size_t data = m->off + REC_HDR_LEN;
    if (incl > m->snaplen || m->size - data < incl) {
        snprintf(m->err, sizeof m->err, "record longer than the snapshot length or the file");
        return ROCE_CAPTURE_ERROR;
    }
    f->ts_ns = (int64_t)sec * ROCE_NS_PER_SEC + (int64_t)frac * m->frac_ns;
    f->caplen = incl;
    f->wirelen = orig < incl ? incl : orig;
    f->data = m->base + data;
    m->off = data + incl;
    if (m->off >= m->ahead - WINDOW / 2 || m->off >= m->behind + 2 * WINDOW)
        window(m);
    return ROCE_CAPTURE_FRAME;
}

const char *roce_pcapmap_error(const struct roce_pcapmap *m)
{
    return m->err;
}

void roce_pcapmap_close(struct roce_pcapmap *m)
{
    if (m == NULL)
        return;
    if (m->base != NULL)
        munmap((void *)m->base, m->size);
    free(m);
}
