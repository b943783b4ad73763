/*
 * localize_annotate.c - `rocescope localize --annotate DIR` (see
 * localize_annotate.h). Each point's capture is analysed once more, alone,
 * as `rocescope --annotate OUT FILE` analyses it (one engine, localize's
 * configuration), into the --annotate writer of the writers table, which
 * reads it a last time to write it; localize's conclusions go to that
 * writer as notes on the frames they cite: a loss on the frame of its first
 * sighting (evidence "missing") or of its resend ("resent"), a CE mark on
 * the first frame seen carrying it. Losses shown by the PSN gaps alone cite
 * no frame; only the listed losses and marks (the first of each, as the
 * JSON lists them) have notes. A pause of a chain or a cycle of pauses
 * across the points (pause_spreading, pause_cycle) has one on its first
 * PFC frame: where pausing started, or after which point's pause and on
 * what evidence.
 */
#define _GNU_SOURCE
#include "localize_annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "localize_read.h"
#include "names.h"
#include "report.h"
#include "writers.h"

#define NAME_ESC_LEN 512 /* a point's name, escaped */

int roce_lz_annotate_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        roce_complain(dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        roce_complain(dir, "--annotate: not a folder (localize writes one file per point in it)");
        return -1;
    }
    return 0;
}

/* The folder of a split point's file (path: DIR/NAME/KEY.pcapng, cut at its
 * last '/' while made), made when missing. 0, or -1 with the message
 * printed. */
static int point_folder(struct lz_annotate *la, char *path)
{
    struct stat st;
    char *slash = strrchr(path, '/');
    *slash = '\0';
    int rc = 0;
    if (mkdir(path, 0777) == 0) {
        if ((la->made[la->n_made] = strdup(path)) == NULL) {
            rmdir(path);
            roce_complain("localize", "out of memory");
            rc = -1;
        } else {
            la->n_made++;
        }
    } else if (errno != EEXIST || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        roce_complain(path, errno == EEXIST ? "--annotate: not a folder (a split point's file "
                                              "goes in a folder of its file's name)"
                                            : strerror(errno));
        rc = -1;
    }
    *slash = '/';
    return rc;
}

int roce_lz_annotate_open(struct lz_annotate *la, const char *dir, unsigned n,
                          const char *const *names, const char *const *inputs,
                          enum roce_vantage_split split, const struct roce_split_key *keys)
{
    char esc[NAME_ESC_LEN];
    memset(la, 0, sizeof *la);
    la->dir = dir;
    la->split = split;
    if (roce_lz_annotate_dir(dir) != 0)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        /* the name as printed (control characters escaped); a file's name
         * has no '/', a split point's is NAME/KEY */
        if (asprintf(&la->path[i], "%s/%s.pcapng", dir,
                     roce_name_escape(names[i], esc, sizeof esc)) < 0) {
            la->path[i] = NULL;
            roce_complain("localize", "out of memory");
            roce_lz_annotate_free(la);
            return -1;
        }
        la->input[i] = inputs[i];
        if (keys != NULL)
            la->key[i] = keys[i];
        la->n = i + 1;
        if (keys != NULL && keys[i].has && point_folder(la, la->path[i]) != 0) {
            roce_lz_annotate_free(la);
            return -1;
        }
        if (roce_output_open(&la->out[i], la->path[i]) != 0) {
            roce_complain(la->path[i], roce_output_error());
            memset(&la->out[i], 0, sizeof la->out[i]);
            roce_lz_annotate_free(la);
            return -1;
        }
    }
    return 0;
}

/* ---- localize's notes ---- */

struct notes {
    struct roce_writer_note *n;
    size_t count;
    int oom;
};

static void note_add(struct notes *ns, uint64_t frame, const struct roce_localize_report *rep,
                     const struct roce_vantage_event *e, int ce)
{
    char a[NAME_ESC_LEN], b[NAME_ESC_LEN];
    char *text = NULL;
    roce_name_escape(roce_localize_end_name(rep, e->after, 1), a, sizeof a);
    roce_name_escape(roce_localize_end_name(rep, e->before, 0), b, sizeof b);
    int k =
        ce ? asprintf(&text, "rocescope: localize: CE marked between %s and %s (psn=%" PRIu32 ")",
                      a, b, e->psn)
           : asprintf(&text,
                      "rocescope: localize: lost between %s and %s (psn=%" PRIu32 ", evidence=%s)",
                      a, b, e->psn, roce_vevidence_name(e->evidence));
    if (k < 0) {
        ns->oom = 1;
        return;
    }
    ns->n[ns->count++] = (struct roce_writer_note){frame, text};
}

/* The note on a pause of point p that is step k (of n) of chain or cycle
 * `which` (1-based) of kind `what` (pause_spreading, pause_cycle). */
static void pause_note(struct notes *ns, const struct roce_localize_report *rep, unsigned p,
                       const char *what, size_t which, const struct roce_vpause_ep *e, uint32_t k,
                       uint32_t n)
{
    char at[NAME_ESC_LEN], prio[32];
    char *text = NULL;
    if (e->point != p || e->first_frame == 0)
        return;
    const struct roce_vpause_ep *parent =
        e->parent >= 0 && k > 0 ? roce_vantage_pause_episode(rep->v, (size_t)e->parent) : NULL;
    roce_localize_priority_name(e->prio, prio, sizeof prio);
    int r = parent == NULL
                ? asprintf(&text,
                           "rocescope: localize: %s %zu: pausing started here (%s, step 1 of "
                           "%" PRIu32 ")",
                           what, which, prio, n)
                : asprintf(&text,
                           "rocescope: localize: %s %zu: paused after %s (%s, step %" PRIu32
                           " of %" PRIu32 ", evidence=%s)",
                           what, which,
                           roce_name_escape(rep->points[parent->point].name, at, sizeof at), prio,
                           k + 1, n, roce_vpause_evidence_name(e->evidence));
    if (r < 0) {
        ns->oom = 1;
        return;
    }
    ns->n[ns->count++] = (struct roce_writer_note){e->first_frame, text};
}

/* The notes on point p's frames, by frame (losses, then marks, in the
 * order listed, then the pauses of chains and cycles). 0, or -1 when out
 * of memory. */
static int point_notes(struct notes *ns, const struct roce_localize_report *rep, unsigned p)
{
    size_t nl = roce_vantage_loss_count(rep->v), nc = roce_vantage_ce_count(rep->v);
    size_t nch = roce_vantage_pause_chain_count(rep->v),
           ncy = roce_vantage_pause_cycle_count(rep->v);
    size_t steps = 0;
    for (size_t i = 0; i < nch; i++)
        steps += roce_vantage_pause_chain(rep->v, i)->n_steps;
    for (size_t i = 0; i < ncy; i++)
        steps += roce_vantage_pause_cycle(rep->v, i)->n_steps;
    memset(ns, 0, sizeof *ns);
    ns->n = calloc(nl + nc + steps + 1, sizeof *ns->n);
    if (ns->n == NULL)
        return -1;
    for (int ce = 0; ce < 2; ce++)
        for (size_t i = 0; i < (ce ? nc : nl) && !ns->oom; i++) {
            const struct roce_vantage_event *e =
                ce ? roce_vantage_ce(rep->v, i) : roce_vantage_loss(rep->v, i);
            if (e->first_point == (int)p && e->first_frame != 0)
                note_add(ns, e->first_frame, rep, e, ce);
        }
    for (size_t i = 0; i < nch && !ns->oom; i++) {
        const struct roce_vpause_chain *c = roce_vantage_pause_chain(rep->v, i);
        for (uint32_t k = 0; k < c->n_steps && !ns->oom; k++)
            pause_note(ns, rep, p, "pause_spreading", i + 1,
                       roce_vantage_pause_step(rep->v, c->first_step + k), k, c->n_steps);
    }
    for (size_t i = 0; i < ncy && !ns->oom; i++) {
        const struct roce_vpause_cycle *c = roce_vantage_pause_cycle(rep->v, i);
        for (uint32_t k = 0; k < c->n_steps && !ns->oom; k++)
            pause_note(ns, rep, p, "pause_cycle", i + 1,
                       roce_vantage_pause_step(rep->v, c->first_step + k), k, c->n_steps);
    }
    /* by frame, ties in the order made (an insertion sort: stable) */
    for (size_t i = 1; i < ns->count; i++)
        for (size_t j = i; j > 0 && ns->n[j - 1].frame > ns->n[j].frame; j--) {
            struct roce_writer_note t = ns->n[j];
            ns->n[j] = ns->n[j - 1];
            ns->n[j - 1] = t;
        }
    return ns->oom ? -1 : 0;
}

static void notes_free(struct notes *ns)
{
    for (size_t i = 0; i < ns->count; i++)
        free((char *)ns->n[i].text);
    free(ns->n);
}

/* ---- one point ---- */

static void on_verdict(const struct roce_verdict *v, void *ctx)
{
    struct roce_writer_run *w = ctx;
    w->w->ops->verdict(w, v);
}

/* A split point's frames of its file (the keep of struct roce_analysis and
 * of the writer): those of its key. The analysis' also renumbers the notes
 * (by frame of the file, as localize cites frames) as the point's frames
 * are numbered. */
struct point_frames {
    struct roce_decode_cfg dc;
    enum roce_vantage_split split;
    struct roce_split_key key;
    uint64_t file_frame, kept; /* frames of the file seen, of them kept */
    struct roce_writer_note *notes;
    size_t n_notes, next;
};

static int point_keeps(void *ctx, const struct roce_frame_in *in)
{
    struct point_frames *pf = ctx;
    struct roce_split_key k;
    pf->file_frame++;
    roce_localize_split_key(pf->split, &pf->dc, in, &k);
    if (memcmp(&k, &pf->key, sizeof k) != 0)
        return 0;
    pf->kept++;
    for (; pf->next < pf->n_notes && pf->notes[pf->next].frame <= pf->file_frame; pf->next++)
        pf->notes[pf->next].frame = pf->notes[pf->next].frame == pf->file_frame ? pf->kept : 0;
    return 1;
}

/* Point i's file: its analysis into the writer, then its document. 0 or
 * -1 (message printed; the file discarded). */
static int write_point(struct lz_annotate *la, unsigned i, const struct roce_config *cfg,
                       const struct roce_outputs *outs, const struct notes *ns)
{
    struct roce_writer_run w;
    struct roce_analysis run;
    struct roce_report rep;
    struct roce_config c = *cfg;
    char msg[ROCE_ANALYSIS_ERR_LEN];
    const char *files[1] = {la->input[i]};
    int werr = 1;
    struct point_frames analysed, written;

    memset(&analysed, 0, sizeof analysed);
    analysed.dc = (struct roce_decode_cfg){cfg->udp_port, cfg->vxlan_port, 0};
    analysed.split = la->split;
    analysed.key = la->key[i];
    written = analysed;
    analysed.notes = ns->n;
    analysed.n_notes = ns->count;

    memset(&w, 0, sizeof w);
    memset(&run, 0, sizeof run);
    memset(&rep, 0, sizeof rep);
    w.w = roce_writers_find("--annotate");
    w.path = la->path[i];
    w.out = la->out[i];
    w.fp = w.out.fp;
    w.outputs = outs;
    w.notes = ns->n;
    w.n_notes = ns->count;
    memset(&la->out[i], 0, sizeof la->out[i]); /* w owns it now */
    if (la->split != ROCE_SPLIT_NONE) {        /* the point's frames of its file */
        w.keep = run.keep = point_keeps;
        w.keep_ctx = &written;
        run.keep_ctx = &analysed;
    }
    if (w.w == NULL || w.w->ops->start(&w) != 0) {
        roce_complain(w.path, "out of memory");
        roce_output_abort(&w.out);
        return -1;
    }
    c.on_verdict = on_verdict;
    c.ctx = &w;
    run.engine = roce_engine_new(&c);
    if (run.engine == NULL) {
        roce_complain(w.path, "out of memory");
        goto out;
    }
    if (roce_analysis_file(&run, la->input[i], msg, sizeof msg) != 0 && run.opened == 0) {
        roce_complain(la->input[i], msg);
        goto out;
    }
    roce_engine_finish(run.engine);
    rep.link_type = run.link_type;
    rep.files = files;
    rep.n_files = 1;
    rep.cfg = cfg;
    rep.error = run.have_error ? run.error : NULL;
    if (roce_report_build(&rep, run.engine) != 0) {
        roce_complain(w.path, "out of memory");
        goto out;
    }
    const struct roce_writer_doc doc = {&rep, ROCE_WRITE_FILES, outs->top};
    werr = w.w->ops->report(&w, w.fp, &doc) != 0;
out:
    w.w->ops->stop(&w);
    roce_report_free(&rep);
    roce_engine_free(run.engine);
    return roce_output_finish(&w.out, w.path, werr);
}

int roce_lz_annotate_write(struct lz_annotate *la, const struct roce_config *cfg,
                           const struct roce_outputs *outs, const struct roce_localize_report *rep)
{
    int rc = 0;
    for (unsigned i = 0; i < la->n; i++) {
        struct notes ns;
        if (point_notes(&ns, rep, i) != 0) {
            roce_complain(la->path[i], "out of memory");
            notes_free(&ns);
            rc = -1;
            continue;
        }
        if (write_point(la, i, cfg, outs, &ns) != 0)
            rc = -1;
        notes_free(&ns);
    }
    return rc;
}

void roce_lz_annotate_free(struct lz_annotate *la)
{
    for (unsigned i = 0; i < la->n; i++) {
        if (la->out[i].path != NULL)
            roce_output_abort(&la->out[i]);
        free(la->path[i]);
        la->path[i] = NULL;
    }
    la->n = 0;
    for (unsigned i = 0; i < la->n_made; i++) { /* what is left empty: nothing behind */
        rmdir(la->made[i]);
        free(la->made[i]);
    }
    la->n_made = 0;
}
