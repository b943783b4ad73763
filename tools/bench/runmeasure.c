/*
 * runmeasure.c - run a command and report its wall time, peak resident
 * memory and processor time (user and system), for tools/bench/bench.py. Measuring from Python would count the forked
 * interpreter's own memory in the child's peak (ru_maxrss covers the child
 * from fork, before exec); this launcher is small.
 *   runmeasure CMD [ARGS...]   prints "runmeasure <seconds> <maxrss KiB> <status>
 *                              <user seconds> <system seconds>" on stderr
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status;

    if (argc < 2) {
        fprintf(stderr, "usage: runmeasure CMD [ARGS...]\n");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("runmeasure: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("runmeasure: exec");
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("runmeasure: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "runmeasure %.6f %ld %d %.6f %.6f\n", s, ru.ru_maxrss,
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
    return 0;
}
