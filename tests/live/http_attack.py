#!/usr/bin/env python3
"""Hostile clients of `rocescope --listen`, and the scraper they must not
lock out (serve.py runs both inside the test's network namespace).

  http_attack.py attack --port P --seconds S
      holds, from several loopback addresses, until S seconds have passed:
        trickle  8 connections from each of 127.0.0.1 (the scraper's own
                 address) and 127.0.0.2-5, each sending a request one byte at a
                 time, every 1, 2 or 5 s (slowloris: each byte would reset an
                 idle timer);
        idle     100 connections from each of 127.0.0.1-5 that send nothing
                 (500, the reproducer of issue 26);
        flood    new connections from 127.0.0.1 and 127.0.0.11 as fast as the
                 loop goes, 50 kept open per address (the oldest dropped);
        greedy   8 connections from 127.0.0.12 that send complete requests
                 and never read the answers.
      A connection the server closes is opened again at once (an attacker
      does). Prints one JSON object: per kind, the connections opened and
      those the server closed, with their lifetimes (the longest, in s).
  http_attack.py scrape --port P --count N --every S [--deadline D]
      N scrapes of /metrics from 127.0.0.1, one every S seconds, each on a
      new connection with a deadline of D s (1); prints one JSON object:
      {"answered": [seconds...], "failed": [reasons...]}.
"""
import argparse
import errno
import json
import selectors
import socket
import sys
import time

REQUEST = b"GET /metrics HTTP/1.1\r\nHost: rocescope\r\nX-Slow: "
SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: rocescope\r\nConnection: close\r\n\r\n"
SCRAPE_DEADLINE = 1.0
TRICKLE_EVERY = (1.0, 2.0, 5.0)  # seconds between bytes, by connection in turn
REOPEN_AFTER = 0.01  # an attacker's own pace after the server closed one of its connections
FLOOD_KEEP = 50
# kind: (source addresses, connections per address)
KINDS = {
    "trickle": (["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"], 8),
    "idle": (["127.0.0.%d" % i for i in range(1, 6)], 100),
    "flood": (["127.0.0.1", "127.0.0.11"], FLOOD_KEEP),
    "greedy": (["127.0.0.12"], 8),
}


class Conn:
    made = 0

    def __init__(self, kind, src, port):
        self.kind, self.src = kind, src
        self.every = TRICKLE_EVERY[Conn.made % len(TRICKLE_EVERY)]
        Conn.made += 1
        self.opened = time.monotonic()
        self.next_byte = self.opened
        self.sent = 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sock.bind((src, 0))
        err = self.sock.connect_ex(("127.0.0.1", port))
        if err not in (0, errno.EINPROGRESS):
            self.sock.close()
            raise OSError(err, "connect")
        if kind == "greedy":
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)


def attack(port, seconds):
    sel = selectors.DefaultSelector()
    stats = {k: {"opened": 0, "closed_by_server": 0, "longest_s": 0.0, "open_at_end": 0}
             for k in KINDS}
    reopen = []  # (time, kind, src)

    def open_one(kind, src):
        try:
            c = Conn(kind, src, port)
        except OSError:
            reopen.append((time.monotonic() + REOPEN_AFTER, kind, src))
            return None
        stats[kind]["opened"] += 1
        sel.register(c.sock, selectors.EVENT_READ, c)
        return c

    def drop(c, by_server):
        sel.unregister(c.sock)
        c.sock.close()
        if by_server:
            s = stats[c.kind]
            s["closed_by_server"] += 1
            s["longest_s"] = max(s["longest_s"], round(time.monotonic() - c.opened, 3))
            if c.kind != "flood":
                reopen.append((time.monotonic() + REOPEN_AFTER, c.kind, c.src))

    flood = {src: [] for src in KINDS["flood"][0]}
    for kind, (srcs, per) in KINDS.items():
        if kind == "flood":
            continue
        for src in srcs:
            for _ in range(per):
                open_one(kind, src)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = time.monotonic()
        for src, held in flood.items():  # a few new ones a turn, the oldest dropped
            for _ in range(4):
                c = open_one("flood", src)
                if c is not None:
                    held.append(c)
            while len(held) > FLOOD_KEEP:
                c = held.pop(0)
                if c.sock.fileno() >= 0:
                    drop(c, False)
        due = [r for r in reopen if r[0] <= now]
        reopen[:] = [r for r in reopen if r[0] > now]
        for _, kind, src in due:
            open_one(kind, src)
        for key in list(sel.get_map().values()):
            c = key.data
            try:
                if c.kind == "trickle" and now >= c.next_byte:
                    data = (REQUEST + b"a" * 4096)[c.sent:c.sent + 1]
                    c.sent += c.sock.send(data)
                    c.next_byte = now + c.every
                elif c.kind == "greedy" and c.sent == 0:
                    c.sent = c.sock.send(SCRAPE.replace(b"Connection: close", b"X-Greedy: 1"))
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                drop(c, True)
        for key, _ in sel.select(timeout=0.005):
            c = key.data
            if c.kind == "greedy":
                continue  # never reads: the server sees a slow reader
            try:
                data = c.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                drop(c, True)
    for key in list(sel.get_map().values()):
        stats[key.data.kind]["open_at_end"] += 1
        key.fileobj.close()
    print(json.dumps(stats))


def scrape_once(port, deadline):
    """Seconds to a whole answer of /metrics, or the reason it failed."""
    start = time.monotonic()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    out = b""
    try:
        s.settimeout(deadline)
        s.connect(("127.0.0.1", port))
        s.sendall(SCRAPE)
        while True:
            left = start + deadline - time.monotonic()
            if left <= 0:
                return "no whole answer within %.1f s (%d bytes)" % (deadline, len(out))
            s.settimeout(left)
            b = s.recv(65536)
            if not b:
                break
            out += b
    except OSError as e:
        return "%s after %.3f s (%d bytes)" % (e, time.monotonic() - start, len(out))
    finally:
        s.close()
    took = time.monotonic() - start
    if not out.startswith(b"HTTP/1.1 200") or b"\nrocescope_packets_total" not in out:
        return "not the metrics: %r" % out[:60]
    return took


def scrape(port, count, every, deadline):
    answered, failed = [], []
    for _ in range(count):
        r = scrape_once(port, deadline)
        (answered if isinstance(r, float) else failed).append(
            round(r, 4) if isinstance(r, float) else r)
        time.sleep(every)
    print(json.dumps({"answered": answered, "failed": failed}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("attack", "scrape"))
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--every", type=float, default=0.3)
    ap.add_argument("--deadline", type=float, default=SCRAPE_DEADLINE)
    a = ap.parse_args()
    if a.what == "attack":
        attack(a.port, a.seconds)
    else:
        scrape(a.port, a.count, a.every, a.deadline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
