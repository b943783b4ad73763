/*
 * test_sandbox.c - the live monitor's system call filter
 * (analyzer/live/sandbox.h), without root: a child process takes a UDP
 * socket connected to the discard port as its "capture socket" (a
 * descriptor that can send, as the packet socket can), installs the filter
 * on it and tries what the filter must deny and what it must leave; it
 * reports each outcome to the parent through a pipe opened before.
 *
 * Denied (EPERM): send, write, writev, sendto with the descriptor plus
 * 2^32 (the kernel reads the low 32 bits), dup, fcntl F_DUPFD, setsockopt
 * but SOL_PACKET PACKET_RX_RING, a new AF_UNIX socket, socketpair, execve,
 * unshare; left: writing on another socket, fcntl F_GETFL on the capture
 * socket, a new UDP socket, a thread (clone3 refused with ENOSYS, glibc
 * falls back to clone) under the same filter; NO_NEW_PRIVS and seccomp
 * mode 2 in force. live_privileges (tests/live/privs.py) checks the monitor
 * itself, as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "test_util.h"

#define DISCARD_PORT 9
#define ERR_LEN      256
#define HIGH_BIT     (1ul << 32)

/* What the child saw: each call's result and errno. */
enum probe {
    P_APPLY,
    P_SEND_BEFORE,
    P_SEND,
    P_WRITE,
    P_WRITEV,
    P_SENDTO_HIGH,
    P_DUP,
    P_DUPFD,
    P_GETFL,
    P_SETSOCKOPT,
    P_UNIX,
    P_SOCKETPAIR,
    P_UDP,
    P_EXECVE,
    P_UNSHARE,
    P_OTHER_WRITE,
    P_THREAD,
    P_THREAD_WRITE,
    P_NNP,
    P_MODE,
    P_COUNT
};

struct outcome {
    long rc[P_COUNT];
    int err[P_COUNT];
};

static int capture_fd;

/* A UDP socket connected to 127.0.0.1's discard port: send works. */
static int udp_socket(void)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(DISCARD_PORT);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void note(struct outcome *o, enum probe p, long rc)
{
    o->rc[p] = rc;
    o->err[p] = rc < 0 ? errno : 0;
}

static void *in_thread(void *arg)
{
    struct outcome *o = arg;
    note(o, P_THREAD_WRITE, (long)write(capture_fd, "x", 1));
    return NULL;
}

/* The child's side: every probe, in o. */
static void probe_all(struct outcome *o, int other)
{
    char err[ERR_LEN];
    int pair[2];
    struct iovec iov = {"x", 1};
    char *const argv[] = {"true", NULL};
    pthread_t t;
    note(o, P_SEND_BEFORE, (long)send(capture_fd, "x", 1, 0));
    note(o, P_APPLY, roce_sandbox_apply(capture_fd, err, sizeof err));
    if (o->rc[P_APPLY] != 0)
        return; /* nothing more to learn; no execve of /bin/true unfiltered */
    note(o, P_SEND, (long)send(capture_fd, "x", 1, 0));
    note(o, P_WRITE, (long)write(capture_fd, "x", 1));
    note(o, P_WRITEV, (long)writev(capture_fd, &iov, 1));
#if ULONG_MAX > UINT32_MAX
    note(o, P_SENDTO_HIGH,
         syscall(SYS_sendto, (unsigned long)capture_fd + HIGH_BIT, "x", 1UL, 0UL, 0UL, 0UL));
#else
    o->rc[P_SENDTO_HIGH] = -1; /* a 32-bit register has no high bits */
    o->err[P_SENDTO_HIGH] = EPERM;
#endif
    note(o, P_DUP, dup(capture_fd));
    note(o, P_DUPFD, fcntl(capture_fd, F_DUPFD, 0));
    note(o, P_GETFL, fcntl(capture_fd, F_GETFL));
    int size = 4096;
    note(o, P_SETSOCKOPT, setsockopt(capture_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size));
    note(o, P_UNIX, socket(AF_UNIX, SOCK_STREAM, 0));
    note(o, P_SOCKETPAIR, socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
    long udp = socket(AF_INET, SOCK_DGRAM, 0);
    note(o, P_UDP, udp);
    if (udp >= 0)
        close((int)udp);
    note(o, P_EXECVE, execve("/bin/true", argv, NULL));
    note(o, P_UNSHARE, unshare(CLONE_NEWUSER));
    note(o, P_OTHER_WRITE, (long)write(other, "x", 1));
    errno = pthread_create(&t, NULL, in_thread, o);
    note(o, P_THREAD, errno ? -1 : 0);
    if (o->rc[P_THREAD] == 0)
        pthread_join(t, NULL);
    note(o, P_NNP, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    note(o, P_MODE, prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
}

/* Run the probes in a child; 0, or -1 when the child could not report. */
static int run_child(struct outcome *o)
{
    int p[2];
    memset(o, 0, sizeof *o);
    if (pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct outcome mine;
        memset(&mine, 0, sizeof mine);
        close(p[0]);
        capture_fd = udp_socket();
        int other = udp_socket();
        if (capture_fd >= 0 && other >= 0)
            probe_all(&mine, other);
        ssize_t n = write(p[1], &mine, sizeof mine);
        _exit(n == (ssize_t)sizeof mine ? 0 : 1);
    }
    close(p[1]);
    ssize_t got = pid > 0 ? read(p[0], o, sizeof *o) : -1;
    close(p[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *o && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void test_denied_and_left(void)
{
    struct outcome o;
    CU_ASSERT_EQUAL_FATAL(run_child(&o), 0);
    CU_ASSERT_EQUAL(o.rc[P_SEND_BEFORE], 1); /* the socket sends without the filter */
    CU_ASSERT_EQUAL_FATAL(o.rc[P_APPLY], 0);
    static const enum probe denied[] = {P_SEND,       P_WRITE,  P_WRITEV,     P_SENDTO_HIGH,
                                        P_DUP,        P_DUPFD,  P_SETSOCKOPT, P_UNIX,
                                        P_SOCKETPAIR, P_EXECVE, P_UNSHARE,    P_THREAD_WRITE};
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        CU_ASSERT_EQUAL(o.rc[denied[i]], -1);
        CU_ASSERT_EQUAL(o.err[denied[i]], EPERM);
    }
    CU_ASSERT(o.rc[P_GETFL] >= 0);
    CU_ASSERT(o.rc[P_UDP] >= 0);
    CU_ASSERT_EQUAL(o.rc[P_OTHER_WRITE], 1);
    CU_ASSERT_EQUAL(o.rc[P_THREAD], 0);
    CU_ASSERT_EQUAL(o.rc[P_NNP], 1);
    CU_ASSERT_EQUAL(o.rc[P_MODE], 2);
}

static const struct tu_test tests[] = {
    {"denied_and_left", test_denied_and_left},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "sandbox", tests);
}
