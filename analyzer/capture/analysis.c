/*
 * analysis.c - capture files through one engine (see analysis.h).
 */
#include "analysis.h"

#include <stdio.h>

#include "capture.h"

#define STOP_CHECK_MASK                                                                            \
    1023u /* a split analysis' reader looks at its stop flag every 1024 frames */

/* The report will say it is incomplete, with the first problem. */
static void note_error(struct roce_analysis *a, const char *path, const char *why)
{
    if (!a->have_error)
        snprintf(a->error, sizeof a->error, "%s: %s", path, why);
    a->have_error = 1;
}

/* The times of a file just read (when it had frames): it overlaps the files
 * before it when it begins before the latest time they reached. The report
 * merge (report_merge.c) applies the same rule to reports. */
static void note_times(struct roce_analysis *a, int had_frames, int64_t earliest, int64_t latest)
{
    if (!had_frames)
        return;
    if (a->have_latest && earliest < a->latest_ns)
        a->files_overlap = 1;
    if (!a->have_latest || latest > a->latest_ns)
        a->latest_ns = latest;
    a->have_latest = 1;
}

int roce_analysis_file(struct roce_analysis *a, const char *path, char *msg, size_t msglen)
{
    struct roce_capture *c = roce_capture_open(path, msg, msglen);
    struct roce_capture_frame fr;
    enum roce_capture_status st;

    if (c == NULL) {
        note_error(a, path, msg);
        return -1;
    }
    if (roce_capture_linktype_check(roce_capture_linktype(c), roce_capture_linktype_name(c), msg,
                                    msglen) != 0) {
        note_error(a, path, msg);
        roce_capture_close(c);
        return -1;
    }
    if (!a->opened++)
        a->link_type = roce_capture_linktype_name(c);
    int64_t earliest = 0, latest = 0;
    uint64_t first = a->frame + 1;
    while ((st = roce_capture_next(c, &fr)) == ROCE_CAPTURE_FRAME) {
        struct roce_frame_in in;
        roce_capture_frame_in(&fr, a->frame + 1, &in);
        if (a->keep != NULL && !a->keep(a->keep_ctx, &in))
            continue;
        a->frame++;
        if (in.frame == first || in.ts_ns < earliest)
            earliest = in.ts_ns;
        if (in.frame == first || in.ts_ns > latest)
            latest = in.ts_ns;
        if (a->walker != NULL) {
            if ((in.frame & STOP_CHECK_MASK) == 0 &&
                atomic_load_explicit(a->stop, memory_order_relaxed))
                break;
            a->walker->frame(a->walker_ctx, &in);
            continue;
        }
        if (a->on_frame == NULL) {
            roce_engine_frame(a->engine, &in, NULL);
        } else {
            struct roce_frame_out out;
            roce_engine_frame(a->engine, &in, &out);
            a->on_frame(a->frame_ctx, a->engine, &in, &out);
        }
    }
    note_times(a, a->frame >= first, earliest, latest);
    if (a->walker != NULL)
        a->walker->closing(a->walker_ctx);
    if (st == ROCE_CAPTURE_ERROR) {
        snprintf(msg, msglen, "%s", roce_capture_error(c));
        note_error(a, path, msg);
        roce_capture_close(c);
        return -1;
    }
    roce_capture_close(c);
    return 0;
}
