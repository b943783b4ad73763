/*
 * writer_events.c - `--events`: JSON Lines, one object per settled verdict
 * (events.c), written to the run's stream as the verdicts come.
 */
#include "writers.h"

#include "events.h"

static void events_verdict(struct roce_writer_run *r, const struct roce_verdict *v)
{
    struct roce_events ev = {r->fp, 0};
    if (r->fp == NULL) { /* a rotated file that could not be reopened */
        r->failed = 1;
        return;
    }
    roce_events_write(v, &ev);
    if (ev.failed)
        r->failed = 1;
}

const struct roce_writer_ops roce_writer_events = {
    .verdict = events_verdict,
};
