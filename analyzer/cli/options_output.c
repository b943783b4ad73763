/*
 * options_output.c - the one parser of the options every command shares
 * (see cli_options.h): the command's getopt loop, and in it the output
 * options, -o, --top and each writer's own option from its row of the
 * writers' table (writers/writers.c), so that a new writer is an option of
 * every command that can run it (the analysis and the live monitor: all of
 * them; merge: those that write from a report alone; localize: those that
 * write its result).
 */
#define _DEFAULT_SOURCE
#include "cli_options.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "output.h"
#include "writers.h"

#define LONGOPTS_MAX 128 /* a command's long options with the output options */

/* Nonzero when command kind k runs writer w. */
static int runs_writer(enum roce_cli_writers k, const struct roce_writer *w)
{
    if (w->option == NULL)
        return 0; /* the default: no option */
    if (k == ROCE_CLI_WRITERS_MERGED)
        return (w->needs & ROCE_WRITER_MERGED) != 0;
    if (k == ROCE_CLI_WRITERS_LOCALIZE)
        return w->ops->localize != NULL;
    return 1;
}

/* The command's long options, then -o, --top and its writers'. */
static void long_options(const struct roce_cli_command *cmd, struct option *opts)
{
    size_t n = 0;
    for (const struct option *o = cmd->own; o->name != NULL; o++) {
        assert(n + 3 + ROCE_WRITERS_MAX <= LONGOPTS_MAX); /* room for the output options */
        opts[n++] = *o;
    }
    opts[n++] = (struct option){"output", required_argument, NULL, 'o'};
    opts[n++] = (struct option){"top", required_argument, NULL, ROCE_OPT_TOP};
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const struct roce_writer *w = &roce_writers[i];
        if (runs_writer(cmd->writers, w))
            opts[n++] = (struct option){
                w->option + 2, w->needs & ROCE_WRITER_PATH ? required_argument : no_argument, NULL,
                ROCE_OPT_WRITER + (int)i};
    }
    opts[n] = (struct option){NULL, 0, NULL, 0};
}

/* An output option: 1 when c is none, 0 done, -1 bad value (message printed). */
static int output_option(int c, const char *arg, struct roce_outputs *out)
{
    if (c == 'o') {
        out->output = arg;
        return 0;
    }
    if (c == ROCE_OPT_TOP)
        return roce_cli_top(arg, &out->top);
    if (c < ROCE_OPT_WRITER || c >= ROCE_OPT_WRITER + (int)roce_writers_count)
        return 1;
    unsigned i = (unsigned)(c - ROCE_OPT_WRITER);
    out->chosen |= 1u << i;
    if (roce_writers[i].needs & ROCE_WRITER_PATH)
        out->path[i] = arg;
    return 0;
}

/* One rule for the value of every option that takes one: a value that
 * starts with '-' (but "-" alone, standard output or input where an
 * option says so) looks like an option and is refused, so that `--html -o
 * x` never takes -o as its file (a file of that name is ./-o). c: the
 * option's getopt code. 0, or -1 with the message printed. */
static int value_not_an_option(char **argv, int c, const char *arg)
{
    if (arg == NULL || arg[0] != '-' || arg[1] == '\0')
        return 0;
    /* named as the options' own messages name them: by the short form when
     * there is one (`--output` is -o), else as written: the argument before
     * the value when it came apart (`--html X`), else the one holding both
     * (`--html=X`) */
    const char *as_written =
        optind >= 2 && argv[optind - 1] == arg ? argv[optind - 2] : argv[optind - 1];
    char opt[64];
    if (c < CHAR_MAX && isalnum(c))
        snprintf(opt, sizeof opt, "-%c", c);
    else
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(as_written, "="), as_written);
    roce_complainf("%s: invalid value '%s' (it starts with '-', as an option does)", opt, arg);
    return -1;
}

int roce_cli_usage_error(const struct roce_cli_command *cmd)
{
    fprintf(stderr, "Try 'rocescope%s%s --help'.\n", cmd->name[0] ? " " : "", cmd->name);
    return ROCE_CLI_EXIT_USAGE;
}

enum roce_cli_parse_result roce_cli_getopt(const struct roce_cli_command *cmd, int argc,
                                           char **argv, struct roce_outputs *out, void *ctx)
{
    struct option opts[LONGOPTS_MAX];
    int c;
    memset(out, 0, sizeof *out);
    out->top = ROCE_CLI_TOP_DEFAULT;
    out->argc = argc;
    out->argv = argv;
    long_options(cmd, opts);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, cmd->shortopts, opts, NULL)) != -1) {
        if (c == ':' || c == '?') {
            roce_cli_getopt_error(cmd->name, c, argv[optind - 1]);
            return roce_cli_usage_error(cmd);
        }
        if (value_not_an_option(argv, c, optarg) != 0)
            return roce_cli_usage_error(cmd);
        int rc = output_option(c, optarg, out);
        if (rc == 1)
            rc = cmd->option(c, optarg, ctx);
        if (rc == ROCE_CLI_EXIT_OK)
            return ROCE_CLI_EXIT_OK;
        if (rc != 0)
            return roce_cli_usage_error(cmd);
    }
    return ROCE_CLI_RUN;
}

int roce_cli_outputs_writers(const struct roce_outputs *out)
{
    const struct roce_writer *first = NULL;
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const struct roce_writer *w = &roce_writers[i];
        if (!(out->chosen >> i & 1u) || (w->needs & ROCE_WRITER_PATH))
            continue;
        if (first != NULL) {
            roce_complainf("%s and %s exclude each other", first->option, w->option);
            return -1;
        }
        first = w;
    }
    return 0;
}

/* Nonzero when path names standard output. */
static int is_stdout(const char *path)
{
    return path == NULL || strcmp(path, "-") == 0;
}

int roce_cli_outputs_paths(const struct roce_outputs *out)
{
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const char *path = out->path[i], *opt = roce_writers[i].option;
        if (!(out->chosen >> i & 1u) || !(roce_writers[i].needs & ROCE_WRITER_PATH))
            continue;
        if (is_stdout(path) && is_stdout(out->output)) {
            roce_complainf("%s -: standard output carries the report already (give -o PATH)", opt);
            return -1;
        }
        /* by device and inode, whatever the names (links, hard links) */
        if (!is_stdout(path) && !is_stdout(out->output) &&
            roce_output_same_file(path, out->output)) {
            roce_complainf("%s and -o name the same file '%s'", opt, path);
            return -1;
        }
        for (unsigned k = 0; k < i; k++)
            if ((out->chosen >> k & 1u) && (roce_writers[k].needs & ROCE_WRITER_PATH) &&
                !is_stdout(out->path[k]) && !is_stdout(path) &&
                roce_output_same_file(out->path[k], path)) {
                roce_complainf("%s and %s name the same file '%s'", roce_writers[k].option, opt,
                               path);
                return -1;
            }
    }
    return 0;
}

/* Nonzero when the input at path can be read a second time: a regular
 * file, one that cannot be opened (the analysis says why), or standard
 * input, which is kept for it (roce_cli_outputs_keep_stdin). */
static int rereadable(const char *path)
{
    struct stat st;
    return strcmp(path, "-") == 0 || stat(path, &st) != 0 || S_ISREG(st.st_mode);
}

int roce_cli_outputs_keep_stdin(const struct roce_outputs *out, char *const *files, int n_files)
{
    char err[256];
    int reread = 0, from_stdin = 0;
    for (unsigned i = 0; i < roce_writers_count; i++)
        reread |= (out->chosen >> i & 1u) && (roce_writers[i].needs & ROCE_WRITER_FILES);
    for (int k = 0; k < n_files; k++)
        from_stdin |= strcmp(files[k], "-") == 0;
    if (!reread || !from_stdin || roce_capture_stdin_keep(err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "rocescope: standard input: %s\n", err);
    return -1;
}

int roce_cli_outputs_reread(const struct roce_outputs *out, char *const *files, int n_files,
                            int live)
{
    for (unsigned i = 0; i < roce_writers_count; i++) {
        if (!(out->chosen >> i & 1u) || !(roce_writers[i].needs & ROCE_WRITER_FILES))
            continue;
        if (live) {
            fprintf(stderr, "rocescope: %s needs capture files (not -i)\n", roce_writers[i].option);
            return -1;
        }
        for (int k = 0; k < n_files; k++)
            if (!rereadable(files[k])) {
                fprintf(stderr,
                        "rocescope: %s reads the capture files again: %s cannot be (save the "
                        "capture to a file first)\n",
                        roce_writers[i].option, files[k]);
                return -1;
            }
    }
    return 0;
}
