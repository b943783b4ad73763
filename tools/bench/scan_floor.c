/*
 * scan_floor.c - the floor of reading the file, for benchmarks: map a
 * capture the way rocescope's reader does (MADV_SEQUENTIAL, 1 MiB windows
 * populated ahead with MADV_POPULATE_READ and released behind with
 * MADV_DONTNEED, analyzer/capture/capture_src.c) and walk its records,
 * touching each record header (classic pcap: the 16-byte record header;
 * pcapng: each block's type and length, an enhanced packet block's captured
 * length) and nothing else. No reader of the mapped file is faster.
 *   scan_floor FILE    prints "<packets> <bytes>" (as pcap_floor)
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW (1024u * 1024u)
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
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

struct map {
    const uint8_t *p;
    size_t len, ahead, behind;
};

/* Keep [off, off + WINDOW / 2) populated and release what is 2 windows behind. */
static void window(struct map *m, size_t off)
{
    if (off + WINDOW / 2 >= m->ahead && m->ahead < m->len) {
        size_t n = m->len - m->ahead < WINDOW ? m->len - m->ahead : WINDOW;
        madvise((void *)(m->p + m->ahead), n, MADV_POPULATE_READ);
        m->ahead += n;
    }
    while (off >= m->behind + 2 * WINDOW) {
        madvise((void *)(m->p + m->behind), WINDOW, MADV_DONTNEED);
        m->behind += WINDOW;
    }
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
    if (argc != 2) {
        fprintf(stderr, "usage: scan_floor FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)PCAP_HDR) {
        fprintf(stderr, "scan_floor: %s: cannot read or too short\n", argv[1]);
        return 1;
    }
    struct map m = {NULL, (size_t)st.st_size, 0, 0};
    void *base = mmap(NULL, m.len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
        perror("scan_floor: mmap");
        return 1;
    }
    m.p = base;
    madvise(base, m.len, MADV_SEQUENTIAL);
    window(&m, 0);
    uint32_t magic = rd32(m.p, 0);
    size_t off, next_check = 0;
    if (magic == NG_SHB) {
        int swap = rd32(m.p + 2 * sizeof(uint32_t), 0) != NG_BOM;
        for (off = 0; off + NG_MIN <= m.len;) {
            if (off >= next_check) {
                window(&m, off);
                next_check = off + WINDOW / 4;
            }
            uint32_t type = rd32(m.p + off, swap), len = rd32(m.p + off + 4, swap);
            if (type == NG_SHB)
                swap = rd32(m.p + off + 2 * sizeof(uint32_t), 0) != NG_BOM;
            len = type == NG_SHB ? rd32(m.p + off + 4, swap) : len;
            if (len < NG_MIN || len > m.len - off)
                break;
            if (type == NG_EPB && len >= EPB_CAPLEN + 4) {
                packets++;
                bytes += rd32(m.p + off + EPB_CAPLEN, swap);
            } else if (type == NG_SPB) {
                packets++;
            }
            off += len;
        }
    } else {
        int swap = magic != PCAP_US && magic != PCAP_NS;
        if (swap && rd32(m.p, 1) != PCAP_US && rd32(m.p, 1) != PCAP_NS) {
            fprintf(stderr, "scan_floor: %s: not a pcap or pcapng file\n", argv[1]);
            return 1;
        }
        for (off = PCAP_HDR; off + PCAP_REC <= m.len;) {
            if (off >= next_check) {
                window(&m, off);
                next_check = off + WINDOW / 4;
            }
            uint32_t caplen = rd32(m.p + off + 2 * sizeof(uint32_t), swap);
            if (caplen > m.len - off - PCAP_REC)
                break;
            packets++;
            bytes += caplen;
            off += PCAP_REC + caplen;
        }
    }
    munmap(base, m.len);
    close(fd);
    printf("%llu %llu\n", packets, bytes);
    return 0;
}
