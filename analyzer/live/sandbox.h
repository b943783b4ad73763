/*
 * sandbox.h - the live monitor's system call filter (seccomp, through
 * libseccomp), installed once privileges are given up (privs.h), before
 * the analysis and HTTP threads start (the filter is inherited; it is also
 * synchronised onto any thread already running).
 *
 * A deny-list: every system call is allowed except
 *  - those that gain or lend privileges or reach into the kernel's or other
 *    processes' state (execve, ptrace, mount, module loading, bpf, kexec,
 *    namespaces, keyrings, the set*id family, capset, clock and host
 *    settings, io_uring and kernel AIO, whose submissions the filter cannot
 *    see), new raw or packet sockets, and new local (AF_UNIX) sockets,
 *    which could hand the capture socket over (SCM_RIGHTS) to a process
 *    outside the filter;
 *  - on the capture socket: every way of sending (write, writev, pwrite*,
 *    send*, sendfile, splice, tee, copy_file_range), of duplicating it
 *    (dup*, fcntl F_DUPFD*) and of reconfiguring it (bind, connect, and
 *    setsockopt, which would set up a PACKET_TX_RING; only libpcap's
 *    taking down of its receive ring at close, SOL_PACKET PACKET_RX_RING,
 *    is left).
 * Denied calls fail with EPERM (clone3 with ENOSYS, so that threads are
 * made with clone, whose flags the filter can see); the process is not
 * killed, so a call the filter should not have caught shows as an error.
 * A deny-list rather than a list of what is allowed: what the monitor
 * needs comes from glibc, libpcap, libmicrohttpd and json-c, whose system
 * calls change with their versions, and an allow-list that misses one
 * stops the monitor in production; what must not happen is short and
 * known. System calls of another architecture (x32, i386 on amd64) kill
 * the process.
 */
#ifndef ROCE_SANDBOX_H
#define ROCE_SANDBOX_H

#include <stddef.h>

/* Install the filter for the capture socket capture_fd (on every thread),
 * then check it: a zero-length send on the capture socket must fail with
 * EPERM (harmless if it did not: a packet socket sends nothing of length
 * 0). 0, or -1 with the reason in err (the caller stops: exit status 1). */
int roce_sandbox_apply(int capture_fd, char *err, size_t errlen);

#endif
