/*
 * sandbox.c - the system call filter (see sandbox.h for what it denies
 * and why a deny-list).
 *
 * The rules are tables of system call names, resolved for the native
 * architecture by libseccomp: a name the architecture does not have
 * (send on amd64, which sends with sendto) is skipped. Descriptors and
 * other int arguments are compared on their low 32 bits, as the kernel
 * reads them (ARG_IS). The clone rules read the flags in the first
 * argument, where every architecture but s390 puts them.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#ifndef SOL_PACKET
#define SOL_PACKET 263 /* linux/socket.h */
#endif

#define SOCK_TYPE_MASK        0xfull /* the type in socket()'s second argument, without its flags */
#define SECCOMP_MODE_FILTERED 2

/* LeakSanitizer stops the threads with ptrace at exit: a sanitizer build
 * (ROCESCOPE_SANITIZE, for the tests) leaves ptrace allowed. */
#if defined(__SANITIZE_ADDRESS__)
#define ROCE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define ROCE_SANITIZED 1
#endif
#endif
#ifdef ROCE_SANITIZED
#define PTRACE_DENIED
#else
#define PTRACE_DENIED "ptrace",
#endif

/* Denied whatever their arguments (this table and the next: several a
 * line). */
/* clang-format off */
static const char *const denied[] = {
    /* running something else, looking into or writing other processes */
    "execve", "execveat", PTRACE_DENIED "process_vm_readv", "process_vm_writev", "pidfd_getfd",
    "kcmp", "uselib",
    /* privileges: users, groups, capabilities */
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
    "setgroups", "capset",
    /* file systems and namespaces */
    "mount", "umount", "umount2", "pivot_root", "chroot", "setns", "unshare", "move_mount",
    "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "mknod", "mknodat",
    "open_by_handle_at", "name_to_handle_at", "quotactl", "quotactl_fd", "swapon", "swapoff",
    "acct", "fanotify_init",
    /* the kernel: modules, kexec, eBPF, tracing, keyrings, the log */
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "bpf",
    "perf_event_open", "keyctl", "add_key", "request_key", "syslog", "lookup_dcookie", "reboot",
    "iopl", "ioperm", "userfaultfd", "vhangup",
    /* the clock and the host's names */
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    /* submissions the filter cannot see (they could send on the capture socket) */
    "io_uring_setup", "io_uring_enter", "io_uring_register", "io_setup", "io_submit",
};

/* Denied when their argument `arg` is the capture socket. */
static const struct {
    const char *name;
    unsigned arg;
} on_capture[] = {
    /* sending */
    {"write", 0}, {"writev", 0}, {"pwrite64", 0}, {"pwritev", 0}, {"pwritev2", 0}, {"send", 0},
    {"sendto", 0}, {"sendmsg", 0}, {"sendmmsg", 0}, {"sendfile", 0}, {"sendfile64", 0},
    {"splice", 2}, {"tee", 1}, {"copy_file_range", 2},
    /* another descriptor of it (its sends would not be caught) */
    {"dup", 0}, {"dup2", 0}, {"dup3", 0},
    /* reconfiguring it: another interface, a peer (setsockopt below) */
    {"bind", 0}, {"connect", 0},
};
/* clang-format on */

/* Argument n, an int, equals v: the kernel uses the low 32 bits of the
 * register, so the high ones are masked off (else 2^32 + fd would pass). */
#define ARG_IS(n, v)     SCMP_CMP64((n), SCMP_CMP_MASKED_EQ, INT_BITS, (uint32_t)(v))
#define ARG_NOT(n, v)    SCMP_CMP64((n), SCMP_CMP_NE, (uint32_t)(v), 0) /* any other 64-bit value */
#define ARG_HAS(n, bits) SCMP_CMP64((n), SCMP_CMP_MASKED_EQ, (bits), (bits))
#define INT_BITS         0xffffffffull

/* A rule with conditions on the arguments. */
struct arg_rule {
    const char *name;
    uint32_t action;
    unsigned n; /* conditions, all of which must hold */
    struct scmp_arg_cmp cmp[2];
};

/* One rule; a name the architecture lacks is skipped. 0, or a negative
 * errno of libseccomp. */
static int rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
                const struct scmp_arg_cmp *cmp)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        return 0;
    return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

/* Every rule of the filter. 0, or a negative errno with *what the rule's
 * system call. */
static int add_rules(scmp_filter_ctx ctx, int fd, const char **what)
{
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    const struct arg_rule rules[] = {
        /* another descriptor of the capture socket */
        {"fcntl", deny, 2, {ARG_IS(0, fd), ARG_IS(1, F_DUPFD)}},
        {"fcntl", deny, 2, {ARG_IS(0, fd), ARG_IS(1, F_DUPFD_CLOEXEC)}},
        /* setsockopt on it, but for libpcap taking its receive ring down at
         * close (SOL_PACKET, PACKET_RX_RING): a PACKET_TX_RING would send */
        {"setsockopt", deny, 2, {ARG_IS(0, fd), ARG_NOT(1, SOL_PACKET)}},
        {"setsockopt", deny, 2, {ARG_IS(0, fd), ARG_NOT(2, PACKET_RX_RING)}},
        /* new local sockets, which could pass the capture socket
         * (SCM_RIGHTS) to a process that would send on it */
        {"socket", deny, 1, {ARG_IS(0, AF_UNIX)}},
        {"socketpair", deny, 0, {{0}}},
        /* new packet or raw sockets (they need CAP_NET_RAW, which -Z root
         * keeps) */
        {"socket", deny, 1, {ARG_IS(0, AF_PACKET)}},
        {"socket", deny, 1, {SCMP_A1_64(SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK, SOCK_RAW)}},
        {"socket", deny, 1, {SCMP_A1_64(SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK, SOCK_PACKET)}},
#if !defined(__s390__) && !defined(__s390x__)
        /* threads, not namespaces ("any of these flags" is no comparison
         * libseccomp has: one rule per flag); clone3 passes its flags in
         * memory: ENOSYS makes glibc fall back to clone */
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWNS)}},
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWUSER)}},
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWPID)}},
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWNET)}},
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWUTS)}},
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWIPC)}},
        {"clone", deny, 1, {ARG_HAS(0, CLONE_NEWCGROUP)}},
        {"clone3", SCMP_ACT_ERRNO(ENOSYS), 0, {{0}}},
#endif
    };
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof denied / sizeof denied[0]; i++)
        rc = rule(ctx, deny, *what = denied[i], 0, NULL);
    for (size_t i = 0; rc == 0 && i < sizeof on_capture / sizeof on_capture[0]; i++) {
        struct scmp_arg_cmp c = ARG_IS(on_capture[i].arg, fd);
        rc = rule(ctx, deny, *what = on_capture[i].name, 1, &c);
    }
    for (size_t i = 0; rc == 0 && i < sizeof rules / sizeof rules[0]; i++)
        rc = rule(ctx, rules[i].action, *what = rules[i].name, rules[i].n, rules[i].cmp);
    return rc;
}

/* The check after loading: NO_NEW_PRIVS, a filter, and a zero-length send
 * on the capture socket refused with EPERM. 0, or -1 with err set. */
static int check(int fd, char *err, size_t errlen)
{
    char byte = 0;
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 ||
        prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != SECCOMP_MODE_FILTERED) {
        snprintf(err, errlen, "the system call filter is not in force");
        return -1;
    }
    errno = 0;
    if (send(fd, &byte, 0, MSG_DONTWAIT) >= 0 || errno != EPERM) {
        snprintf(err, errlen,
                 "the system call filter does not deny sending on the capture socket "
                 "(send: %s)",
                 errno ? strerror(errno) : "accepted");
        return -1;
    }
    return 0;
}

int roce_sandbox_apply(int capture_fd, char *err, size_t errlen)
{
    const char *what = "its settings";
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL) {
        snprintf(err, errlen, "cannot make the system call filter (libseccomp)");
        return -1;
    }
    /* every thread; NO_NEW_PRIVS (set by privs.c already) kept; a kernel
     * without SECCOMP_RET_KILL_PROCESS kills the thread instead */
    (void)seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc == 0)
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
    if (rc == 0)
        rc = add_rules(ctx, capture_fd, &what);
    if (rc == 0) {
        what = "loading";
        rc = seccomp_load(ctx);
    }
    seccomp_release(ctx);
    if (rc != 0) {
        snprintf(err, errlen, "cannot install the system call filter (%s): %s", what,
                 strerror(-rc));
        return -1;
    }
    return check(capture_fd, err, errlen);
}
