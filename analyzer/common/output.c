/*
 * output.c - atomic output files, the rules every output path goes through,
 * and error messages (see output.h).
 */
#define _DEFAULT_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"

#define TMP_SUFFIX  ".tmp.XXXXXX"
#define OUTPUT_MODE 0666
#define OPEN_MAX    64   /* outputs open at once (the writers' files, a Prometheus file) */
#define LINE_LEN    1024 /* an error line that fits here is formatted without malloc */
#define WHY_LEN     512

/* What a path names: an existing file by device and inode (links
 * followed), or a file not made yet by its folder's device and inode and
 * its name (base). */
struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    const char *base; /* a new file's name in its folder (owned in the tables) */
    mode_t mode;      /* an existing file's type */
};

/* An output open now: what it writes, the name it was given (messages),
 * and its temporary file, which the signal handler removes. */
struct open_output {
    int used;
    struct file_id id;
    const char *path;
    char *volatile tmp;
};

/* An input of the run. */
struct input {
    dev_t dev;
    ino_t ino;
    mode_t mode;
    const char *path;
};

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static struct open_output opened[OPEN_MAX];
static struct input *inputs;
static size_t n_inputs, inputs_cap;
static int handlers_set;
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])

static _Thread_local char why_buf[WHY_LEN];
static _Thread_local const char *why;
static _Thread_local int why_errno;

/* ---- messages ---- */

void roce_complainf(const char *fmt, ...)
{
    char line[LINE_LEN], *text = line, *out = NULL;
    size_t len = 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line && (text = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (text == NULL)
        text = line; /* out of memory: the line cut short */
    /* the line in one write (stderr is unbuffered), escaped */
    FILE *mem = open_memstream(&out, &len);
    if (mem != NULL) {
        fputs("rocescope: ", mem);
        roce_name_fputs(text, mem);
        fputc('\n', mem);
        if (fclose(mem) == 0 && out != NULL)
            fwrite(out, 1, len, stderr);
        free(out);
    } else {
        fputs("rocescope: ", stderr);
        roce_name_fputs(text, stderr);
        fputc('\n', stderr);
    }
    if (text != line)
        free(text);
}

void roce_complain(const char *what, const char *why_text)
{
    roce_complainf("%s: %s", what, why_text);
}

/* Fail with errno e: roce_output_error gives the system's words. */
static int fail(int e)
{
    why = NULL;
    why_errno = e;
    errno = e;
    return -1;
}

/* Refuse with errno e and the reason given (printf format). */
static int refuse(int e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(int e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why_buf, sizeof why_buf, fmt, ap);
    va_end(ap);
    why = why_buf;
    why_errno = e;
    errno = e;
    return -1;
}

const char *roce_output_error(void)
{
    return why != NULL ? why : strerror(why_errno);
}

/* ---- standard descriptors ---- */

void roce_output_std_fds(void)
{
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        /* the lowest descriptor free is fd itself */
        int n = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
}

/* ---- what a path names ---- */

/* path's identity into id (id->base points into path). 0, or -1 (errno). */
static int file_id(const char *path, struct file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->mode = st.st_mode;
        return 0;
    }
    if (errno != ENOENT)
        return -1;
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL   ? strdup(".")
                : slash == path ? strdup("/")
                                : strndup(path, (size_t)(slash - path));
    if (dir == NULL)
        return -1;
    int rc = stat(dir, &st), e = errno;
    free(dir);
    errno = e;
    if (rc != 0)
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->base = slash != NULL ? slash + 1 : path;
    return 0;
}

static int same_id(const struct file_id *a, const struct file_id *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
           (a->exists || strcmp(a->base, b->base) == 0);
}

int roce_output_same_file(const char *a, const char *b)
{
    struct file_id x, y;
    if (file_id(a, &x) != 0 || file_id(b, &y) != 0)
        return strcmp(a, b) == 0;
    if (x.exists && (S_ISCHR(x.mode) || S_ISBLK(x.mode)))
        return 0; /* a device takes several outputs (/dev/null) */
    return same_id(&x, &y);
}

/* ---- the inputs ---- */

/* The input that st is, or NULL. */
static const struct input *find_input(const struct stat *st)
{
    const struct input *found = NULL;
    pthread_mutex_lock(&table_mu);
    for (size_t i = 0; i < n_inputs && found == NULL; i++)
        if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
            found = &inputs[i];
    pthread_mutex_unlock(&table_mu);
    return found;
}

int roce_output_input(const char *path)
{
    struct stat st;
    int is_stdin = strcmp(path, "-") == 0;
    if ((is_stdin ? fstat(STDIN_FILENO, &st) : stat(path, &st)) != 0 || S_ISDIR(st.st_mode))
        return 0; /* its reader says what is wrong */
    /* "-" reads on from where standard input is, even in a regular file */
    const struct input *seen = find_input(&st);
    if (seen != NULL && is_stdin && strcmp(seen->path, "-") == 0) {
        roce_complain("-", "standard input given twice (it is read once)");
        return -1;
    }
    if (seen != NULL && !S_ISREG(st.st_mode)) {
        roce_complainf("%s: the same stream as '%s' (a stream is read once)",
                       is_stdin ? "- (standard input)" : path, seen->path);
        return -1;
    }
    pthread_mutex_lock(&table_mu);
    if (n_inputs == inputs_cap) {
        size_t cap = inputs_cap ? 2 * inputs_cap : 16;
        struct input *more = realloc(inputs, cap * sizeof *more);
        if (more == NULL) {
            pthread_mutex_unlock(&table_mu);
            roce_complain(path, "out of memory");
            return -1;
        }
        inputs = more;
        inputs_cap = cap;
    }
    inputs[n_inputs++] = (struct input){st.st_dev, st.st_ino, st.st_mode, path};
    pthread_mutex_unlock(&table_mu);
    return 0;
}

/* ---- the outputs open, and their temporary files on a signal ---- */

/* A signal that ends the run: remove the temporary files, then end as the
 * signal would have. Only async-signal-safe calls. */
static void on_fatal_signal(int sig)
{
    struct sigaction dfl;
    for (int i = 0; i < OPEN_MAX; i++) {
        char *t = opened[i].tmp;
        if (t != NULL)
            unlink(t);
    }
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered once the handler returns */
}

/* Take the signals that end the run and that nobody took (the live monitor
 * takes SIGINT and SIGTERM to stop cleanly: those are left to it). Called
 * with table_mu held. */
static void take_signals(void)
{
    if (handlers_set)
        return;
    handlers_set = 1;
    for (size_t i = 0; i < N_FATAL; i++) {
        struct sigaction old, sa;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < N_FATAL; k++)
            sigaddset(&sa.sa_mask, fatal_signals[k]);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* The output open on id, or NULL. Called with table_mu held. */
static const struct open_output *find_open(const struct file_id *id)
{
    for (int i = 0; i < OPEN_MAX; i++)
        if (opened[i].used && same_id(&opened[i].id, id))
            return &opened[i];
    return NULL;
}

/* Note o, open on id, among the outputs open (and its temporary file for
 * the signal handler). 0, or -1 when another output has that file open
 * (refused) or the table is full. */
static int note_open(struct roce_output *o, const struct file_id *id)
{
    int rc = 0;
    char *base = NULL;
    pthread_mutex_lock(&table_mu);
    const struct open_output *other = find_open(id);
    int i = 0;
    while (i < OPEN_MAX && opened[i].used)
        i++;
    if (other != NULL)
        rc = refuse(EEXIST, "the same file as '%s', an output of this run already", other->path);
    else if (i == OPEN_MAX)
        rc = fail(EMFILE);
    else if (!id->exists && (base = strdup(id->base)) == NULL)
        rc = fail(ENOMEM);
    if (rc == 0) {
        opened[i].used = 1;
        opened[i].id = *id;
        opened[i].id.base = base;
        opened[i].path = o->path;
        opened[i].tmp = o->tmp;
        o->slot = i + 1;
        if (o->tmp != NULL)
            take_signals();
    }
    pthread_mutex_unlock(&table_mu);
    return rc;
}

/* Remove o from the outputs open. */
static void note_closed(struct roce_output *o)
{
    if (o->slot == 0)
        return;
    pthread_mutex_lock(&table_mu);
    struct open_output *e = &opened[o->slot - 1];
    e->tmp = NULL;
    free((char *)e->id.base);
    memset(e, 0, sizeof *e);
    pthread_mutex_unlock(&table_mu);
    o->slot = 0;
}

/* Free what o owns; o becomes a closed output. */
static void release(struct roce_output *o)
{
    note_closed(o);
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    o->fp = NULL;
}

/* ---- opening ---- */

/* Write straight into path, which exists and is not a regular file (a
 * device, a FIFO). id: what it is (NULL: a device, never noted). */
static int open_direct(struct roce_output *o, const char *path, const struct file_id *id)
{
    o->path = path;
    if (id != NULL && note_open(o, id) != 0) { /* before a FIFO's open waits for its reader */
        o->path = NULL;
        return -1;
    }
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || (o->fp = fdopen(fd, "w")) == NULL) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        release(o);
        o->path = NULL;
        return fail(e);
    }
    return 0;
}

/* Write under a temporary name beside target, to be renamed over it. mode:
 * the existing file's, or -1 for a new file (the umask's). The signals
 * that end the run wait while the temporary file is made, so that it is
 * noted for the handler before it can be left behind. */
static int open_replacing(struct roce_output *o, const char *path, const char *target, int mode,
                          const struct file_id *id)
{
    size_t n = strlen(target) + sizeof TMP_SUFFIX;
    sigset_t block, saved;
    o->path = path;
    o->target = strdup(target);
    o->tmp = malloc(n);
    if (o->target == NULL || o->tmp == NULL) {
        release(o);
        o->path = NULL;
        return fail(ENOMEM);
    }
    snprintf(o->tmp, n, "%s%s", target, TMP_SUFFIX);
    sigemptyset(&block);
    for (size_t i = 0; i < N_FATAL; i++)
        sigaddset(&block, fatal_signals[i]);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    int fd = -1, e = 0;
    if (note_open(o, id) == 0) {
        fd = mkstemp(o->tmp);
        e = errno;
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (o->slot == 0) { /* refused, message set */
        release(o);
        o->path = NULL;
        return -1;
    }
    if (fd < 0) {
        release(o);
        o->path = NULL;
        return fail(e);
    }
    /* mkstemp makes the file private (0600): give it the existing file's
     * mode, or the mode a plain `> FILE` would give a new one */
    if (mode < 0) {
        mode_t mask = umask(0);
        umask(mask);
        mode = (int)(OUTPUT_MODE & ~mask);
    }
    if (fchmod(fd, (mode_t)mode) != 0 || (o->fp = fdopen(fd, "w")) == NULL) {
        e = errno;
        close(fd);
        unlink(o->tmp);
        release(o);
        o->path = NULL;
        return fail(e);
    }
    return 0;
}

/* Nonzero when st is the run's own standard output or error (what
 * /dev/stdout leads to). */
static int is_own_stream(const struct stat *st)
{
    struct stat s;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
        if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
            return 1;
    return 0;
}

/* path exists (st: what lstat says). */
static int open_existing(struct roce_output *o, const char *path, struct stat *st)
{
    int link = S_ISLNK(st->st_mode);
    if (link && stat(path, st) != 0)
        return errno == ENOENT ? refuse(ENOENT, "a symbolic link to nothing: not followed (only "
                                                "a link to an existing regular file is)")
                               : fail(errno);
    if (S_ISDIR(st->st_mode))
        return fail(EISDIR);
    if (link && !S_ISREG(st->st_mode) && !is_own_stream(st))
        return refuse(EPERM, "a symbolic link to a device or FIFO: not followed (only a link to "
                             "an existing regular file is)");
    const struct input *in = find_input(st);
    if (in != NULL && !S_ISCHR(st->st_mode))
        return strcmp(in->path, path) == 0
                   ? refuse(EEXIST, "an input of this run: not written onto")
                   : refuse(EEXIST, "the same file as the input '%s': not written onto", in->path);
    const struct file_id id = {1, st->st_dev, st->st_ino, NULL, st->st_mode};
    if (!S_ISREG(st->st_mode)) /* a device is not noted: /dev/null takes two outputs */
        return open_direct(o, path, S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? NULL : &id);
    if (!link)
        return open_replacing(o, path, path, (int)(st->st_mode & 07777), &id);
    /* replace the file the link leads to, not the link */
    char *real = realpath(path, NULL);
    if (real == NULL)
        return fail(errno);
    int rc = open_replacing(o, path, real, (int)(st->st_mode & 07777), &id);
    int e = errno;
    free(real);
    errno = e;
    return rc;
}

int roce_output_open(struct roce_output *o, const char *path)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    why = NULL;
    if (path == NULL || strcmp(path, "-") == 0) {
        if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && find_input(&st) != NULL)
            return refuse(EEXIST, "standard output is an input of this run: not written onto");
        o->fp = stdout;
        return 0;
    }
    if (lstat(path, &st) == 0)
        return open_existing(o, path, &st);
    if (errno != ENOENT)
        return fail(errno);
    struct file_id id;
    if (file_id(path, &id) != 0)
        return fail(errno);
    return open_replacing(o, path, path, -1, &id);
}

/* ---- putting in place ---- */

int roce_output_commit(struct roce_output *o)
{
    why = NULL;
    if (o->path == NULL)
        return fflush(o->fp) == 0 && !ferror(o->fp) ? 0 : fail(errno ? errno : EIO);
    int failed = fflush(o->fp) != 0 || ferror(o->fp);
    int e = failed ? (errno ? errno : EIO) : 0;
    /* on the disk before it replaces anything: a crash leaves the old file */
    if (!failed && o->tmp != NULL && fsync(fileno(o->fp)) != 0) {
        failed = 1;
        e = errno;
    }
    if (fclose(o->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    o->fp = NULL;
    if (o->tmp != NULL) {
        if (!failed && rename(o->tmp, o->target) != 0) {
            failed = 1;
            e = errno;
        }
        if (failed)
            unlink(o->tmp);
    }
    release(o);
    if (failed)
        return fail(e);
    errno = 0;
    return 0;
}

void roce_output_abort(struct roce_output *o)
{
    if (o->path == NULL)
        return;
    if (o->fp != NULL)
        fclose(o->fp);
    if (o->tmp != NULL)
        unlink(o->tmp);
    release(o);
}

int roce_output_finish(struct roce_output *o, const char *name, int werr)
{
    if (werr) {
        roce_output_abort(o);
        roce_complain(name, "write failed");
        return -1;
    }
    if (roce_output_commit(o) != 0) {
        roce_complain(name, roce_output_error());
        return -1;
    }
    return 0;
}
