#!/usr/bin/env python3
"""A second vantage point for a capture: what a tap on the other host's
link would have seen, for testing and benchmarking `rocescope localize` on
traffic of any size (captures/localize/ has the small hand-made exchange).

    localize_pair.py TAP_A.pcap TAP_B.pcap [--offset NS] [--loss P] [--ce P] [--seed S]
                     [--a-net 10.0.0.0/24] [--truth FILE]

TAP_A.pcap is taken as seen on the A hosts' links (`rocegen bulk` writes
such traffic: A hosts 10.0.0.x send RDMA WRITEs to B hosts 10.0.1.x, which
answer). TAP_B.pcap gets every frame as a tap on the B side saw it: A>B
frames FABRIC_NS + a slowly varying queueing delay later, B>A frames that
much earlier, in the order each direction's FIFO keeps, stamped with a clock
--offset ns ahead. Between the taps a new A>B request (not a resend) is lost
with probability --loss and CE-marked by the spine with probability --ce.
Deterministic for a seed. Memory stays bounded (a small reorder buffer).

--truth FILE writes what was done, as JSON: the offset, and every loss and
mark between the taps {src, dst, dest_qp, psn}.
Exit status: 0, 1 I/O error, 2 usage.
"""
import argparse
import heapq
import ipaddress
import json
import math
import random
import struct
import sys

PCAP_NS = 0xA1B23C4D
PCAP_US = 0xA1B2C3D4
FABRIC_NS = 4000
QUEUE_NS = 1000       # queueing: QUEUE_NS * (1 - cos): 0 .. 2 us
QUEUE_PERIOD_NS = 5_000_000
REORDER_NS = 50_000   # frames are released once the input is this far past them
ETH_IPV4 = 0x0800
UDP = 17
ROCE_PORT = 4791
ECN_CE = 3
PSN_MASK = 0xFFFFFF


def queueing(t):
    return int(QUEUE_NS * (1 - math.cos(2 * math.pi * (t % QUEUE_PERIOD_NS) / QUEUE_PERIOD_NS)))


def parse(frame):
    """(src, dst, bth offset, ip offset) of an Ethernet/IPv4/UDP 4791 frame, or None."""
    off = 12
    etype = struct.unpack_from("!H", frame, off)[0]
    while etype in (0x8100, 0x88A8):
        off += 4
        etype = struct.unpack_from("!H", frame, off)[0]
    ip = off + 2
    if etype != ETH_IPV4 or len(frame) < ip + 20 or frame[ip + 9] != UDP:
        return None
    ihl = (frame[ip] & 0x0F) * 4
    udp = ip + ihl
    if len(frame) < udp + 8 + 12 or struct.unpack_from("!H", frame, udp + 2)[0] != ROCE_PORT:
        return None
    return frame[ip + 12:ip + 16], frame[ip + 16:ip + 20], udp + 8, ip


def mark_ce(frame, ip):
    """Set ECN CE and fix the IPv4 header checksum (the ICRC masks ECN)."""
    b = bytearray(frame)
    b[ip + 1] |= ECN_CE
    ihl = (b[ip] & 0x0F) * 4
    b[ip + 10:ip + 12] = b"\0\0"
    s = sum(struct.unpack_from("!%dH" % (ihl // 2), b, ip))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    struct.pack_into("!H", b, ip + 10, ~s & 0xFFFF)
    return bytes(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tap_a")
    ap.add_argument("tap_b")
    ap.add_argument("--offset", type=int, default=1234567)
    ap.add_argument("--loss", type=float, default=0.0)
    ap.add_argument("--ce", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--a-net", default="10.0.0.0/24")
    ap.add_argument("--truth")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    a_net = ipaddress.ip_network(a.a_net)
    highest = {}
    truth = {"offset_ns": a.offset, "losses": [], "ce_marks": []}
    heap, seq = [], 0
    last_out = {True: -1, False: -1}  # per direction: keep FIFO order

    with open(a.tap_a, "rb") as fin, open(a.tap_b, "wb") as fout:
        hdr = fin.read(24)
        magic, _, _, _, _, snap, lt = struct.unpack("<IHHiIII", hdr)
        if magic not in (PCAP_NS, PCAP_US) or lt != 1:
            sys.exit("localize_pair.py: need a little-endian Ethernet pcap")
        unit = 1 if magic == PCAP_NS else 1000
        fout.write(struct.pack("<IHHiIII", PCAP_NS, 2, 4, 0, 0, snap, lt))

        def release(upto):
            while heap and heap[0][0] <= upto:
                t, _, frame, orig = heapq.heappop(heap)
                fout.write(struct.pack("<IIII", t // 1_000_000_000, t % 1_000_000_000, len(frame), orig)
                           + frame)

        while True:
            rec = fin.read(16)
            if len(rec) < 16:
                break
            sec, frac, incl, orig = struct.unpack("<IIII", rec)
            frame = fin.read(incl)
            t = sec * 1_000_000_000 + frac * unit
            p = parse(frame)
            from_a = p is not None and ipaddress.ip_address(bytes(p[0])) in a_net
            if p is not None and from_a:
                src, dst, bth, ip = p
                op, dqpn, psn = frame[bth], int.from_bytes(frame[bth + 5:bth + 8], "big"), \
                    int.from_bytes(frame[bth + 9:bth + 12], "big") & PSN_MASK
                key = (bytes(src), bytes(dst), dqpn)
                request = (op >> 5) == 0 and (op & 0x1F) <= 0x0C
                new = request and (key not in highest or 0 < ((psn - highest[key]) & PSN_MASK) < 0x800000)
                if new:
                    highest[key] = psn
                event = {"src": str(ipaddress.ip_address(bytes(src))),
                         "dst": str(ipaddress.ip_address(bytes(dst))), "dest_qp": dqpn, "psn": psn}
                if new and rng.random() < a.loss:
                    truth["losses"].append(event)
                    release(t - REORDER_NS)
                    continue
                if new and rng.random() < a.ce and (frame[ip + 1] & ECN_CE) != ECN_CE:
                    frame = mark_ce(frame, ip)
                    truth["ce_marks"].append(event)
            delay = FABRIC_NS + queueing(t)
            tb = t + delay if from_a or p is None else t - delay
            tb = max(tb, last_out[from_a] + 1)
            last_out[from_a] = tb
            heapq.heappush(heap, (tb + a.offset, seq, frame, orig))
            seq += 1
            release(t + a.offset - REORDER_NS)
        release(float("inf"))
    if a.truth:
        with open(a.truth, "w", encoding="utf-8") as f:
            json.dump(truth, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
