"""Capture files built byte by byte for the reader tests (readers.py, inputs.py).

Classic pcap (pcap-savefile(5)) and pcapng (IETF pcapng draft): section
headers, interfaces with if_tsresol / if_tsoffset, Enhanced, Simple and
obsolete Packet Blocks, blocks and options a reader steps over. Frames come
from the project's own captures (frames_of).
"""
import os
import struct

SHB, IDB, PB, SPB, NRB, ISB, EPB = 0x0A0D0D0A, 1, 2, 3, 4, 5, 6
BYTE_ORDER_MAGIC = 0x1A2B3C4D
LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL = 1, 113


def pcap(records, magic=0xA1B23C4D, snaplen=65535, endian="<", linktype=1):
    """A classic pcap file of (data, incl_len) records, one second apart."""
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for i, (data, incl) in enumerate(records):
        out += struct.pack(endian + "IIII", 1700000000 + i, 500 * i, incl, max(incl, len(data)))
        out += data
    return out


def pcap_at(frames, snaplen=65535):
    """A little-endian nanosecond classic pcap file of (ts_ns, data) frames."""
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, snaplen, 1)]
    for ts, data in frames:  # joined once: large files are made too
        out += [struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), len(data)), data]
    return b"".join(out)


def frames_of(path):
    """The frames of a little-endian nanosecond classic pcap file, with their times (ns)."""
    with open(path, "rb") as f:
        data = f.read()
    if struct.unpack_from("<I", data, 0)[0] != 0xA1B23C4D:
        return []
    out, off = [], 24
    while off + 16 <= len(data):
        sec, ns, incl = struct.unpack_from("<III", data, off)
        out.append((sec * 10**9 + ns, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return out


def sample(paths, n, keep=()):
    """n of paths spread evenly over the sorted list, and those whose base
    name is in keep (the files a test names), all of them when n is 0 or not
    smaller: the sanitizer build's share of a long comparison
    (tools/run_tests.sh), the same files on every run."""
    paths = sorted(paths)
    if n <= 0 or n >= len(paths):
        return paths
    chosen = {paths[i * len(paths) // n] for i in range(n)}
    chosen |= {p for p in paths if os.path.basename(p) in keep}
    return sorted(chosen)


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def block(btype, body, e="<", length=None, trailer=None):
    """A pcapng block; length and trailer override the total length written."""
    body = pad4(body)
    n = 12 + len(body)
    return (struct.pack(e + "II", btype, n if length is None else length) + body +
            struct.pack(e + "I", n if trailer is None else trailer))


def opt(code, value, e="<"):
    return struct.pack(e + "HH", code, len(value)) + pad4(value)


def opts_end(e="<"):
    return struct.pack(e + "HH", 0, 0)


def shb(e="<", major=1, minor=0, options=b""):
    return block(SHB, struct.pack(e + "IHHq", BYTE_ORDER_MAGIC, major, minor, -1) + options, e)


def idb(linktype=LINKTYPE_ETHERNET, snaplen=65535, tsresol=None, tsoffset=None, name=None,
        e="<"):
    """An interface; tsresol is the option's byte (9: ns, 0x80|20: 2^-20 s...)."""
    options = b""
    if name is not None:
        options += opt(2, name.encode(), e)
    if tsresol is not None:
        options += opt(9, bytes([tsresol]), e)
    if tsoffset is not None:
        options += opt(14, struct.pack(e + "q", tsoffset), e)
    if options:
        options += opts_end(e)
    return block(IDB, struct.pack(e + "HHI", linktype, 0, snaplen) + options, e)


def units(tsresol):
    """Time stamp units per second of an if_tsresol byte (None: microseconds)."""
    if tsresol is None:
        return 10**6
    return 2 ** (tsresol & 0x7F) if tsresol & 0x80 else 10 ** tsresol


def epb(ifid, ts, data, caplen=None, origlen=None, comment=None, e="<"):
    caplen = len(data) if caplen is None else caplen
    origlen = len(data) if origlen is None else origlen
    options = opt(1, comment.encode(), e) + opts_end(e) if comment else b""
    body = struct.pack(e + "IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF, caplen, origlen)
    return block(EPB, body + pad4(data) + options, e)


def spb(data, origlen=None, e="<"):
    return block(SPB, struct.pack(e + "I", len(data) if origlen is None else origlen) + data, e)


def pb(ifid, ts, data, e="<"):
    body = struct.pack(e + "HHIIII", ifid, 0, ts >> 32, ts & 0xFFFFFFFF, len(data), len(data))
    return block(PB, body + data, e)


def other(btype, payload=b"\x00" * 8, e="<"):
    """A block readers step over (name resolution, interface statistics...)."""
    return block(btype, payload, e)


def sll(frame, outgoing=False):
    """An Ethernet frame as a Linux cooked (v1) capture sees it: the source
    MAC in the address, the EtherType as the protocol."""
    header = struct.pack(">HHH", 4 if outgoing else 0, 1, 6) + frame[6:12] + b"\0\0" + frame[12:14]
    return header + frame[14:]
