/*
 * scan_floor.c - the floor of reading the file, for benchmarks: read a
 * capture the way rocescope's reader does (read(2) into a buffer of 1 MiB
 * whose unread tail moves to its start before the next read,
 * analyzer/capture/capture_src.c) and walk its records, touching each
 * record header (classic pcap: the 16-byte record header; pcapng: each
 * block's type and length, an enhanced packet block's captured length) and
 * nothing else. No reader of the file through such a buffer is faster.
 *
 * With --map, the file is mapped instead, as rocescope read it before
 * (MADV_SEQUENTIAL, 1 MiB windows populated ahead with MADV_POPULATE_READ
 * and released behind with MADV_DONTNEED), and walked the same way: the
 * floor of reading a mapped file, kept to compare the two readings.
 *   scan_floor [--map] FILE    prints "<packets> <bytes>" (as pcap_floor)
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW (1024u * 1024u) /* the read buffer; the mapped window */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
#define MAX_RECORD (256u * 1024u * 1024u) /* a longer one: the end (a corrupt file) */
#define PCAP_HDR   24u
#define PCAP_REC   16u
#define NG_SHB     0x0A0D0D0Au
#define NG_EPB     6u
#define NG_SPB     3u
#define NG_BOM     0x1A2B3C4Du
#define NG_MIN     12u
#define EPB_CAPLEN 20u /* offset of the captured length in an enhanced packet block */
#define PCAP_US    0xA1B2C3D4u
#define PCAP_NS    0xA1B23C4Du
#define BYTE_BITS  8u
#define BYTE_MASK  0xFFu
#define SHIFT_HI   24u
#define SHIFT_MID  16u

/* The input: p[off .. len) are the next bytes. */
struct in {
    const uint8_t *p;
    size_t len, off;
    int fd;
    uint8_t *buf; /* read(2): the buffer, cap bytes */
    size_t cap;
    size_t ahead, behind, check; /* --map: populated up to, released below, next look */
};

/* --map: keep [off, off + WINDOW / 2) populated and release what is 2 windows behind. */
static void window(struct in *m)
{
    if (m->off + WINDOW / 2 >= m->ahead && m->ahead < m->len) {
        size_t n = m->len - m->ahead < WINDOW ? m->len - m->ahead : WINDOW;
        madvise((void *)(m->p + m->ahead), n, MADV_POPULATE_READ);
        m->ahead += n;
    }
    while (m->off >= m->behind + 2 * WINDOW) {
        madvise((void *)(m->p + m->behind), WINDOW, MADV_DONTNEED);
        m->behind += WINDOW;
    }
    m->check = m->off + WINDOW / 4;
}

/* At least n bytes at p + off: 1, or 0 at the end of the file. */
static int need(struct in *s, size_t n)
{
    if (s->len - s->off >= n)
        return 1;
    if (s->buf == NULL || n > MAX_RECORD)
        return 0;
    size_t left = s->len - s->off;
    if (n > s->cap) {
        uint8_t *b = realloc(s->buf, n);
        if (b == NULL)
            return 0;
        s->buf = b;
        s->cap = n;
    }
    memmove(s->buf, s->buf + s->off, left);
    s->off = 0;
    s->len = left;
    while (s->len < n) {
        ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);
        if (r <= 0)
            return 0;
        s->len += (size_t)r;
    }
    s->p = s->buf;
    return 1;
}

static void skip(struct in *s, size_t n)
{
    s->off += n;
    if (s->buf == NULL && s->off >= s->check)
        window(s);
}

static uint32_t rd32(const uint8_t *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swap ? (v >> SHIFT_HI) | ((v >> BYTE_BITS) & (BYTE_MASK << BYTE_BITS)) |
                      ((v << BYTE_BITS) & (BYTE_MASK << SHIFT_MID)) | (v << SHIFT_HI)
                : v;
}

int main(int argc, char **argv)
{
    struct stat st;
    unsigned long long packets = 0, bytes = 0;
    int map = argc == 3 && strcmp(argv[1], "--map") == 0;
    if (argc != 2 + map) {
        fprintf(stderr, "usage: scan_floor [--map] FILE\n");
        return 2;
    }
    const char *path = argv[1 + map];
    struct in s = {0};
    s.fd = open(path, O_RDONLY);
    if (s.fd < 0 || fstat(s.fd, &st) != 0 || st.st_size < (off_t)PCAP_HDR) {
        fprintf(stderr, "scan_floor: %s: cannot read or too short\n", path);
        return 1;
    }
    void *base = MAP_FAILED;
    if (map) {
        s.len = (size_t)st.st_size;
        base = mmap(NULL, s.len, PROT_READ, MAP_PRIVATE, s.fd, 0);
        if (base == MAP_FAILED) {
            perror("scan_floor: mmap");
            return 1;
        }
        s.p = base;
        madvise(base, s.len, MADV_SEQUENTIAL);
        window(&s);
    } else if ((s.buf = malloc(WINDOW)) == NULL) {
        perror("scan_floor: malloc");
        return 1;
    } else {
        s.cap = WINDOW;
        s.p = s.buf;
        posix_fadvise(s.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    if (!need(&s, PCAP_HDR)) {
        fprintf(stderr, "scan_floor: %s: cannot read\n", path);
        return 1;
    }
    uint32_t magic = rd32(s.p, 0);
    if (magic == NG_SHB) {
        int swap = rd32(s.p + 2 * sizeof(uint32_t), 0) != NG_BOM;
        while (need(&s, NG_MIN)) {
            const uint8_t *b = s.p + s.off;
            uint32_t type = rd32(b, swap);
            if (type == NG_SHB)
                swap = rd32(b + 2 * sizeof(uint32_t), 0) != NG_BOM;
            uint32_t len = rd32(b + 4, swap);
            if (len < NG_MIN || !need(&s, len))
                break;
            b = s.p + s.off;
            if (type == NG_EPB && len >= EPB_CAPLEN + 4) {
                packets++;
                bytes += rd32(b + EPB_CAPLEN, swap);
            } else if (type == NG_SPB) {
                packets++;
            }
            skip(&s, len);
        }
    } else {
        int swap = magic != PCAP_US && magic != PCAP_NS;
        if (swap && rd32(s.p, 1) != PCAP_US && rd32(s.p, 1) != PCAP_NS) {
            fprintf(stderr, "scan_floor: %s: not a pcap or pcapng file\n", path);
            return 1;
        }
        skip(&s, PCAP_HDR);
        while (need(&s, PCAP_REC)) {
            uint32_t caplen = rd32(s.p + s.off + 2 * sizeof(uint32_t), swap);
            if (!need(&s, PCAP_REC + (size_t)caplen))
                break;
            packets++;
            bytes += caplen;
            skip(&s, PCAP_REC + caplen);
        }
    }
    if (map)
        munmap(base, s.len);
    free(s.buf);
    close(s.fd);
    printf("%llu %llu\n", packets, bytes);
    return 0;
}
