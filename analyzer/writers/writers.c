/*
 * writers.c - the table of output writers and how a run of them is driven
 * (see writers.h). A writer is one row here and one file (writer_*.c) with
 * its operations.
 */
#include "writers.h"

#include <errno.h>
#include <string.h>

/* The writers' operations, each in its file. */
extern const struct roce_writer_ops roce_writer_text;     /* writer_text.c */
extern const struct roce_writer_ops roce_writer_json;     /* writer_json.c */
extern const struct roce_writer_ops roce_writer_events;   /* writer_events.c */
extern const struct roce_writer_ops roce_writer_html;     /* writer_html.c */
extern const struct roce_writer_ops roce_writer_annotate; /* writer_annotate.c */

/* clang-format off */
const struct roce_writer roce_writers[] = {
    /* option     name               needs                                              operations */
    {NULL,        "the summary",     ROCE_WRITER_REPORT | ROCE_WRITER_MERGED,           &roce_writer_text},
    {"--json",    "the JSON report", ROCE_WRITER_REPORT | ROCE_WRITER_MERGED |
                                     ROCE_WRITER_JSON,                                  &roce_writer_json},
    {"--events",  "the events",      ROCE_WRITER_VERDICTS | ROCE_WRITER_STREAM,         &roce_writer_events},
    {"--html",    "the HTML report", ROCE_WRITER_REPORT | ROCE_WRITER_MERGED |
                                     ROCE_WRITER_VERDICTS | ROCE_WRITER_FRAMES |
                                     ROCE_WRITER_PATH,                                  &roce_writer_html},
    {"--annotate", "the annotated capture",
                                     ROCE_WRITER_REPORT | ROCE_WRITER_VERDICTS |
                                     ROCE_WRITER_PATH | ROCE_WRITER_FILES,              &roce_writer_annotate},
};
/* clang-format on */
const unsigned roce_writers_count = sizeof roce_writers / sizeof roce_writers[0];
_Static_assert(sizeof roce_writers / sizeof roce_writers[0] <= ROCE_WRITERS_MAX,
               "struct roce_outputs names every writer by a bit and a path");

const struct roce_writer *roce_writers_find(const char *option)
{
    for (unsigned i = 0; i < roce_writers_count; i++)
        if (roce_writers[i].option != NULL && strcmp(roce_writers[i].option, option) == 0)
            return &roce_writers[i];
    return NULL;
}

const struct roce_writer *roce_writers_main(const struct roce_outputs *o)
{
    const struct roce_writer *def = NULL;
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const struct roce_writer *w = &roce_writers[i];
        if (w->needs & ROCE_WRITER_PATH)
            continue;
        if (o->chosen >> i & 1u)
            return w;
        if (w->option == NULL && def == NULL)
            def = w;
    }
    return def;
}

void roce_writers_init(struct roce_writers *ws, const struct roce_outputs *o)
{
    const struct roce_writer *to_o = roce_writers_main(o);
    memset(ws, 0, sizeof *ws);
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const struct roce_writer *w = &roce_writers[i];
        if (w != to_o && !(o->chosen >> i & 1u && w->needs & ROCE_WRITER_PATH))
            continue;
        struct roce_writer_run *r = &ws->run[ws->n++];
        r->w = w;
        r->outputs = o;
        if (w == to_o) {
            r->path = o->output;
            ws->main = r;
        } else {
            r->path = o->path[i];
        }
        ws->needs |= w->needs;
    }
}

int roce_writers_open(struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++) {
        struct roce_writer_run *r = &ws->run[i];
        if (roce_output_open(&r->out, r->path) != 0) {
            roce_complain(r->path ? r->path : "stdout", roce_output_error());
            roce_writers_abort(ws);
            return -1;
        }
        r->fp = r->out.fp;
    }
    return 0;
}

void roce_writers_abort(struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        roce_output_abort(&ws->run[i].out);
}

int roce_writers_start(struct roce_writers *ws, const struct roce_writer **failed)
{
    for (unsigned i = 0; i < ws->n; i++) {
        struct roce_writer_run *r = &ws->run[i];
        if (r->w->ops->start != NULL && r->w->ops->start(r) != 0) {
            *failed = r->w;
            roce_writers_stop(ws);
            return -1;
        }
    }
    return 0;
}

void roce_writers_stop(struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++) {
        struct roce_writer_run *r = &ws->run[i];
        if (r->w->ops->stop != NULL)
            r->w->ops->stop(r);
        r->state = NULL;
    }
}

void roce_writers_frame(void *ctx, struct roce_engine *e, const struct roce_frame_in *in,
                        const struct roce_frame_out *out)
{
    struct roce_writers *ws = ctx;
    for (unsigned i = 0; i < ws->n; i++)
        if (ws->run[i].w->ops->frame != NULL)
            ws->run[i].w->ops->frame(&ws->run[i], e, in, out);
}

void roce_writers_verdict(const struct roce_verdict *v, void *ctx)
{
    struct roce_writers *ws = ctx;
    for (unsigned i = 0; i < ws->n; i++)
        if (ws->run[i].w->ops->verdict != NULL)
            ws->run[i].w->ops->verdict(&ws->run[i], v);
}

void roce_writers_finish(struct roce_writers *ws, struct roce_engine *e)
{
    for (unsigned i = 0; i < ws->n; i++)
        if (ws->run[i].w->ops->finish != NULL)
            ws->run[i].w->ops->finish(&ws->run[i], e);
}

int roce_writers_part(const struct roce_writers *ws, struct roce_writers *part)
{
    const struct roce_writer *failed;
    memset(part, 0, sizeof *part);
    for (unsigned i = 0; i < ws->n; i++)
        if (ws->run[i].w->ops->absorb != NULL) {
            part->run[part->n++].w = ws->run[i].w;
            part->needs |= ws->run[i].w->needs;
        }
    return roce_writers_start(part, &failed);
}

/* Whether a file's verdicts are replayed to r (it takes verdicts and keeps
 * no state per file). */
static int replayed(const struct roce_writer_run *r)
{
    return r->w->ops->verdict != NULL && r->w->ops->absorb == NULL;
}

int roce_writers_need_replay(const struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        if (replayed(&ws->run[i]))
            return 1;
    return 0;
}

void roce_writers_replay(const struct roce_verdict *v, struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        if (replayed(&ws->run[i]))
            ws->run[i].w->ops->verdict(&ws->run[i], v);
}

void roce_writers_replay_lost(struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        if (replayed(&ws->run[i]))
            ws->run[i].failed = 1;
}

const struct roce_writer *roce_writers_absorb(struct roce_writers *ws, struct roce_writers *part,
                                              uint64_t frames, uint64_t ids)
{
    const struct roce_writer *failed = NULL;
    for (unsigned k = 0; k < part->n; k++)
        for (unsigned i = 0; i < ws->n; i++)
            if (ws->run[i].w == part->run[k].w &&
                ws->run[i].w->ops->absorb(&ws->run[i], &part->run[k], frames, ids) != 0 &&
                failed == NULL)
                failed = ws->run[i].w;
    return failed;
}

int roce_writers_failed(const struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        if (ws->run[i].failed)
            return 1;
    return 0;
}
