/*
 * writer_annotate.c - `--annotate PATH`: the capture files as one pcapng
 * file, frame for frame and byte for byte, each frame with a verdict or
 * that is evidence of a diagnosis carrying rocescope's facts as packet
 * comments (opt_comment), one line per fact, each beginning "rocescope: ",
 * and the first frame the summary's title and its Diagnosis section.
 *
 * pcapng (draft-ietf-opsawg-pcapng), the blocks written:
 *   SHB  0x0A0D0D0A: byte_order_magic(4) major(2) minor(2) section_length(8) options
 *        (shb_userappl "rocescope VERSION", opt_comment the command line)
 *   IDB  1: linktype(2) reserved(2) snaplen(4) options
 *   EPB  6: interface_id(4) ts_high(4) ts_low(4) caplen(4) len(4) data, padded, options
 *   block: type(4) total_length(4) body total_length(4); option: code(2)
 *   length(2) value, padded to 4 bytes; code 0 ends the list.
 *
 * Two passes, in bounded memory whatever the size of the capture: during the
 * analysis (`verdict`) each settled verdict's lines go to a spool file (an
 * unnamed temporary file, tmpfile(3)) in frame order, as the engine settles
 * them; at the end (`report`) the capture files are read again, with the
 * readers the analysis used (capture.h) so that frames are numbered as the
 * analysis numbered them, and each frame is written as its record was
 * stored, its comments merged in from the spool, the diagnoses' evidence
 * frames (bounded by the report) and, on frame 1, the summary's head. Frames
 * cannot be written as they settle: the first frame's comment is known only
 * at the end. Memory holds a run of frames (the reader's, at most RUN_MAX)
 * and a frame's comments; the spool holds the verdicts' lines, never the
 * frames. The frames without a comment, the bulk of a capture, take a
 * short way (put_plain, put_stored): written straight into the output
 * buffer, or copied whole, not piece by piece through the options buffer.
 * The row says ROCE_WRITER_FILES: the command line keeps standard input for
 * the second reading (a copy in a temporary file when it is a pipe,
 * roce_capture_stdin_keep) and refuses named pipes (save the capture to a
 * file first).
 *
 * What is copied as stored: a pcapng record's interface (its description
 * block, with its name, time stamp resolution and other options), its time
 * stamp units, captured and original lengths, bytes and options (its
 * comments kept before ours); a pcap record's bytes and lengths on an
 * interface of the file's link type and time stamp resolution; an ERF
 * record whole, on an interface of link type ERF. Simple packet blocks and
 * obsolete packet blocks become enhanced packet blocks; the sections of the
 * input become one section (interfaces renumbered); other blocks (name
 * resolution, statistics, secrets) and section header options are not
 * copied.
 */
#define _GNU_SOURCE
#include "writers.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "roce_diag.h"

#ifndef ROCESCOPE_VERSION
#error "ROCESCOPE_VERSION is defined by the build (CMakeLists.txt)"
#endif

#define BT_SHB          0x0A0D0D0Au
#define BT_IDB          1u
#define BT_PB           2u
#define BT_SPB          3u
#define BT_NRB          4u
#define BT_ISB          5u
#define BT_EPB          6u
#define BT_DSB          0x0000000Au
#define BOM             0x1A2B3C4Du
#define BLOCK_HDR_LEN   8u  /* type, total length */
#define BLOCK_MIN_LEN   12u /* with the trailing length */
#define IDB_BODY_LEN    8u
#define EPB_BODY_LEN    20u /* also PB's */
#define SPB_BODY_LEN    4u
#define ISB_BODY_LEN    12u /* interface, time stamp */
#define NRB_REC_END     0u
#define OPT_HDR_LEN     4u
#define OPT_END         0u
#define OPT_COMMENT     1u
#define SHB_HARDWARE    2u
#define SHB_OS          3u
#define SHB_USERAPPL    4u
#define ISB_STARTTIME   2u
#define ISB_ENDTIME     3u
#define ISB_USRDELIV    8u
#define WIDTH_2X4       0xFFu /* opt_width: two 4-byte numbers */
#define IF_TSRESOL      9u
#define OPT_LEN_MAX     65535u
#define LINE_MAX_LEN    1024u      /* one fact */
#define SNAP_ANY        0u         /* an IDB's snapshot length: no limit */
#define OUT_BUFFER      (1u << 20) /* the output stream's buffer */
#define CAPTURE_MSG_LEN 512u       /* a reader's messages (not shown: the analysis showed them) */
#define RUN_MAX         64u        /* frames read at once */

/* Options of an IDB and of a packet block whose values are numbers, by
 * width (to be written in this machine's order when the input's was the
 * other); the others are bytes or text. */
#define IF_SPEED     8u
#define IF_TZONE     10u
#define IF_TSOFFSET  14u
#define EPB_FLAGS    2u
#define EPB_DROPS    4u
#define EPB_PACKETID 5u
#define EPB_QUEUE    6u
#define OPT_CUSTOM_1 2988u /* custom options begin with a PEN in the file's order */
#define OPT_CUSTOM_2 2989u
#define OPT_CUSTOM_3 19372u
#define OPT_CUSTOM_4 19373u

/* The writer's state: the spool of the verdicts' lines. */
struct annotate {
    FILE *spool; /* "FRAME LINE\n", in frame order (unnamed: gone when closed) */
    int failed;  /* a spool write failed */
};

/* ---- the facts of a verdict (the keys and values of --events) ---- */

struct line {
    char s[LINE_MAX_LEN];
    size_t n;
    int values;
};

static void line_start(struct line *l, const char *what)
{
    int k = snprintf(l->s, sizeof l->s, "rocescope: %s", what);
    l->n = k < 0 ? 0 : (size_t)k < sizeof l->s ? (size_t)k : sizeof l->s - 1;
    l->values = 0;
}

/* Append "KEY=VALUE": " (" before the first, ", " before the others. */
static void line_value(struct line *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line_value(struct line *l, const char *key, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(l->s + l->n, sizeof l->s - l->n, "%s%s=", l->values++ ? ", " : " (", key);
    if (k > 0)
        l->n += (size_t)k < sizeof l->s - l->n ? (size_t)k : sizeof l->s - l->n - 1;
    va_start(ap, fmt);
    k = vsnprintf(l->s + l->n, sizeof l->s - l->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        l->n += (size_t)k < sizeof l->s - l->n ? (size_t)k : sizeof l->s - l->n - 1;
}

/* The closing parenthesis after the values (room is kept for it). */
static void line_end(struct line *l)
{
    if (l->values) {
        if (l->n > sizeof l->s - 2)
            l->n = sizeof l->s - 2;
        l->s[l->n++] = ')';
        l->s[l->n] = '\0';
    }
}

static void line_u64(struct line *l, const char *key, uint64_t v)
{
    line_value(l, key, "%" PRIu64, v);
}

static void line_i64(struct line *l, const char *key, int64_t v)
{
    line_value(l, key, "%" PRId64, v);
}

/* units / 10^decimals with its decimals, as --events writes it. */
static void line_decimal(struct line *l, const char *key, uint64_t units, unsigned decimals)
{
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    line_value(l, key, "%" PRIu64 ".%0*" PRIu64, units / scale, (int)decimals, units % scale);
}

#define RATE_DECIMALS  3 /* Mb/s as Gb/s, as --events */
#define RATIO_DECIMALS 6 /* ppm as a ratio, as --events */

/* The values --events gives with verdict bit b of v, on its line. */
static void verdict_values(struct line *l, const struct roce_verdict *v, unsigned b)
{
    uint32_t f = 1u << b;
    if ((f & ROCE_V_EXPECTED_PSN_FLAGS) && roce_verdict_shows_expected(v))
        line_u64(l, "expected_psn", v->expected_psn);
    if (f & (ROCE_V_GAP | ROCE_V_RESP_GAP))
        line_u64(l, "missing_psns", v->missing_psns);
    switch (f) {
    case ROCE_V_MALFORMED:
        line_value(l, "malformed", "%s", roce_malformed_name((enum roce_malformed)v->malformed));
        break;
    case ROCE_V_GAP:
        line_value(l, "gap_class", "%s", roce_gap_class_name(v->gap_class));
        if (v->gap_class == ROCE_GAP_UNDETERMINED)
            line_value(l, "gap_reason", "%s", roce_gap_reason_name(v->gap_reason));
        if (v->gap_decided_by)
            line_u64(l, "gap_decided_by", v->gap_decided_by);
        break;
    case ROCE_V_REORDERED:
        line_u64(l, "reorder_gap_frame", v->reorder_gap_frame);
        line_u64(l, "reorder_psns", v->reorder_psns);
        line_i64(l, "reorder_ns", v->reorder_ns);
        break;
    case ROCE_V_AFTER_RESPONSE:
        line_u64(l, "response_frame", v->response_frame);
        break;
    case ROCE_V_RETRANSMISSION:
        line_u64(l, "episode_frame", v->episode_frame);
        break;
    case ROCE_V_EPISODE_START:
        line_value(l, "trigger", "%s", roce_trigger_name(v->trigger));
        if (v->nak_frame) {
            line_u64(l, "nak_frame", v->nak_frame);
            line_i64(l, "nak_to_resend_ns", v->nak_to_resend_ns);
        }
        break;
    case ROCE_V_NAK:
        line_value(l, "nak_code", "%s", roce_nak_code_name(v->nak_code));
        if (v->has_nak_generation)
            line_i64(l, "nak_generation_ns", v->nak_generation_ns);
        break;
    case ROCE_V_RNR:
        line_u64(l, "rnr_timer", v->rnr_timer);
        break;
    case ROCE_V_NAK_RESENT:
        line_u64(l, "retransmitted_in", v->retransmitted_in);
        break;
    case ROCE_V_CE_ANSWERED:
        line_u64(l, "cnp_frame", v->cnp_frame);
        break;
    case ROCE_V_CNP_MATCHED:
        line_u64(l, "cnp_for_frame", v->cnp_for_frame);
        line_i64(l, "cnp_latency_ns", v->cnp_latency_ns);
        break;
    case ROCE_V_DCQCN:
        line_decimal(l, "dcqcn_rate_before_gbps", v->dcqcn_before_mbps, RATE_DECIMALS);
        line_decimal(l, "dcqcn_rate_after_gbps", v->dcqcn_after_mbps, RATE_DECIMALS);
        line_decimal(l, "dcqcn_rate_ratio", v->dcqcn_ratio_ppm, RATIO_DECIMALS);
        break;
    case ROCE_V_PSN_REUSE:
        line_u64(l, "reuse_frame", v->reuse_frame);
        break;
    case ROCE_V_BAD_ICRC:
        line_u64(l, "icrc_computed", v->icrc_calc);
        line_u64(l, "icrc_wire", v->icrc_wire);
        if (v->icrc_rewrite != ROCE_REWRITE_NONE) {
            line_value(l, "icrc_rewritten", "%s", roce_rewrite_field_name(v->icrc_rewrite));
            line_u64(l, "icrc_valid_with", v->icrc_rewrite_value);
        }
        break;
    case ROCE_V_BAD_VCRC:
        line_u64(l, "vcrc_computed", v->vcrc_calc);
        line_u64(l, "vcrc_wire", v->vcrc_wire);
        break;
    default:
        break;
    }
}

/* ---- the operations ---- */

static int annotate_start(struct roce_writer_run *r)
{
    struct annotate *a = calloc(1, sizeof *a);
    if (a == NULL)
        return -1;
    a->spool = tmpfile();
    if (a->spool == NULL) {
        free(a);
        return -1;
    }
    r->state = a;
    return 0;
}

static void annotate_stop(struct roce_writer_run *r)
{
    struct annotate *a = r->state;
    if (a == NULL)
        return;
    fclose(a->spool);
    free(a);
}

/* One line per verdict of v, "rocescope: NAME (KEY=VALUE, ...)", spooled. */
static void annotate_verdict(struct roce_writer_run *r, const struct roce_verdict *v)
{
    struct annotate *a = r->state;
    struct line l;
    for (unsigned b = 0; b < ROCE_V_COUNT; b++) {
        if (!(v->flags & (1u << b)))
            continue;
        line_start(&l, roce_verdict_name(b));
        verdict_values(&l, v, b);
        line_end(&l);
        if (fprintf(a->spool, "%" PRIu64 " %s\n", v->frame, l.s) < 0)
            a->failed = 1;
    }
}

/* ---- pcapng output ---- */

/* A growing buffer of options. */
struct opts {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static int opts_put(struct opts *o, unsigned code, const void *v, size_t len)
{
    size_t padded = (len + 3) / 4 * 4;
    if (len > OPT_LEN_MAX)
        len = padded = OPT_LEN_MAX / 4 * 4;
    if (o->n + OPT_HDR_LEN + padded > o->cap) {
        size_t cap = (o->n + OPT_HDR_LEN + padded) * 2;
        uint8_t *p = realloc(o->p, cap);
        if (p == NULL) {
            o->oom = 1;
            return -1;
        }
        o->p = p;
        o->cap = cap;
    }
    uint16_t h[2] = {(uint16_t)code, (uint16_t)len};
    memcpy(o->p + o->n, h, sizeof h);
    memcpy(o->p + o->n + OPT_HDR_LEN, v, len);
    memset(o->p + o->n + OPT_HDR_LEN + len, 0, padded - len);
    o->n += OPT_HDR_LEN + padded;
    return 0;
}

static int opts_comment(struct opts *o, const char *text)
{
    return opts_put(o, OPT_COMMENT, text, strlen(text));
}

static uint16_t get16(int swapped, const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap16(v) : v;
}

static uint32_t get32(int swapped, const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swapped ? __builtin_bswap32(v) : v;
}

/* Which block's options opts_copy copies (their numbers' widths differ). */
enum opts_of { OPTS_EPB, OPTS_IDB, OPTS_ISB, OPTS_TEXT };

/* The width of option code's number in a block of kind `of` (0: bytes or
 * text, copied as they are; WIDTH_2X4: two 4-byte numbers, an ISB's times). */
static unsigned opt_width(enum opts_of of, unsigned code)
{
    switch (of) {
    case OPTS_IDB:
        return code == IF_SPEED || code == IF_TSOFFSET ? 8 : code == IF_TZONE ? 4 : 0;
    case OPTS_EPB:
        return code == EPB_DROPS || code == EPB_PACKETID ? 8
               : code == EPB_FLAGS || code == EPB_QUEUE  ? 4
                                                         : 0;
    case OPTS_ISB: /* isb_starttime and _endtime: high and low words; the counters */
        return code == ISB_STARTTIME || code == ISB_ENDTIME ? WIDTH_2X4
               : code > ISB_ENDTIME && code <= ISB_USRDELIV ? 8
                                                            : 0;
    default:
        return 0;
    }
}

/* The options at p (n bytes) of a block in the input's byte order, copied
 * into o in this machine's (numbers swapped by their width; custom options,
 * whose layout is their owner's, left out when swapped; skip: a code not
 * copied, 0 none). Stops at the end option or at an option that does not
 * fit. */
static void opts_copy(struct opts *o, const uint8_t *p, size_t n, int swapped, enum opts_of of,
                      unsigned skip)
{
    for (size_t off = 0; n - off >= OPT_HDR_LEN;) {
        unsigned code = get16(swapped, p + off), len = get16(swapped, p + off + 2);
        size_t padded = ((size_t)len + 3) / 4 * 4;
        if (code == OPT_END || n - off - OPT_HDR_LEN < padded)
            return;
        uint8_t v[8];
        const uint8_t *val = p + off + OPT_HDR_LEN;
        off += OPT_HDR_LEN + padded;
        if (skip != 0 && code == skip)
            continue;
        if (!swapped) {
            opts_put(o, code, val, len);
            continue;
        }
        unsigned width = opt_width(of, code);
        if (code == OPT_CUSTOM_1 || code == OPT_CUSTOM_2 || code == OPT_CUSTOM_3 ||
            code == OPT_CUSTOM_4)
            continue;
        if (width == WIDTH_2X4 && len == 8) {
            for (unsigned k = 0; k < 8; k++)
                v[k] = val[(k / 4) * 4 + 3 - k % 4];
            val = v;
        } else if (width != 0 && width != WIDTH_2X4 && len == width) {
            for (unsigned k = 0; k < width; k++)
                v[k] = val[width - 1 - k];
            val = v;
        }
        opts_put(o, code, val, len);
    }
}

/* The output, buffered here: a frame's pieces are copied, not handed to
 * stdio one call each. */
struct outbuf {
    FILE *fp;
    uint8_t *b; /* OUT_BUFFER bytes (owned) */
    size_t n;
    int failed; /* a write failed */
};

static void ob_flush(struct outbuf *ob)
{
    if (ob->n && fwrite(ob->b, 1, ob->n, ob->fp) != ob->n)
        ob->failed = 1;
    ob->n = 0;
}

static void ob_put(struct outbuf *ob, const void *v, size_t len)
{
    if (len == 0)
        return; /* v may be NULL then */
    if (ob->n + len > OUT_BUFFER) {
        ob_flush(ob);
        if (len > OUT_BUFFER) {
            if (fwrite(v, 1, len, ob->fp) != len)
                ob->failed = 1;
            return;
        }
    }
    memcpy(ob->b + ob->n, v, len);
    ob->n += len;
}

/* A block: type, body (body_len bytes), data (data_len bytes, padded),
 * options (o, ended) to ob. 0, or -1 when a write failed. */
static int put_block(struct outbuf *ob, uint32_t type, const void *body, size_t body_len,
                     const uint8_t *data, size_t data_len, const struct opts *o)
{
    static const uint8_t zero[8];
    size_t pad = (4 - data_len % 4) % 4;
    uint32_t total =
        (uint32_t)(BLOCK_MIN_LEN + body_len + data_len + pad + (o->n ? o->n + OPT_HDR_LEN : 0));
    uint32_t hdr[2] = {type, total};
    ob_put(ob, hdr, sizeof hdr);
    ob_put(ob, body, body_len);
    ob_put(ob, data, data_len);
    ob_put(ob, zero, pad);
    if (o->n) {
        ob_put(ob, o->p, o->n);
        ob_put(ob, zero, OPT_HDR_LEN);
    }
    ob_put(ob, &total, sizeof total);
    return ob->failed ? -1 : 0;
}

/* The section header: the version, and the command line as its comment;
 * then the comments, hardware and operating system of the first input's
 * first section header (shb, shb_len bytes in its byte order; NULL: none),
 * whose application is now rocescope. */
static int put_shb(struct outbuf *out, const struct roce_outputs *outs, const uint8_t *shb,
                   uint32_t shb_len, int shb_swapped)
{
    struct opts o = {0};
    uint8_t body[16];
    uint32_t bom = BOM;
    uint16_t ver[2] = {1, 0};
    int64_t section_len = -1; /* not given */
    memcpy(body, &bom, 4);
    memcpy(body + 4, ver, 4);
    memcpy(body + 8, &section_len, 8);
    char *cmd = NULL;
    size_t cmd_len = 0;
    FILE *m = open_memstream(&cmd, &cmd_len);
    if (m == NULL)
        return -1;
    for (int i = 0; outs != NULL && i < outs->argc; i++)
        fprintf(m, "%s%s", i ? " " : "", outs->argv[i]);
    if (fclose(m) != 0) {
        free(cmd);
        return -1;
    }
    opts_comment(&o, cmd);
    if (shb != NULL && shb_len >= BLOCK_MIN_LEN + sizeof body)
        opts_copy(&o, shb + BLOCK_HDR_LEN + sizeof body, shb_len - BLOCK_MIN_LEN - sizeof body,
                  shb_swapped, OPTS_TEXT, SHB_USERAPPL);
    opts_put(&o, SHB_USERAPPL, "rocescope " ROCESCOPE_VERSION,
             strlen("rocescope " ROCESCOPE_VERSION));
    int rc = o.oom ? -1 : put_block(out, BT_SHB, body, sizeof body, NULL, 0, &o);
    free(cmd);
    free(o.p);
    return rc;
}

/* ---- the frames, read again ---- */

/* A diagnosis' line on one of its evidence frames. */
struct evidence {
    uint64_t frame;
    size_t line; /* in struct pass.lines */
};

/* The second pass over the capture files. */
struct pass {
    struct outbuf out;
    const struct roce_writer_run *r;
    struct annotate *a;
    char **lines; /* the diagnoses' lines, one per subject (owned) */
    size_t n_lines;
    struct evidence *ev; /* by frame (owned) */
    size_t n_ev, next_ev;
    const struct roce_writer_note *notes; /* the front end's, by frame (borrowed) */
    size_t n_notes, next_note;
    char **head; /* frame 1's lines (owned) */
    size_t n_head;
    uint64_t frame;                  /* the last frame written */
    char spooled[LINE_MAX_LEN + 32]; /* the spool's next line */
    uint64_t spooled_frame;          /* its frame (0: none left) */
    /* the current file's interfaces: for a pcapng record, by section and
     * interface id (id + 1 of the interface written, 0: not yet); for other
     * records, by link type and resolution */
    uint32_t *ids, n_ids, section;
    struct synth {
        int linktype;
        uint8_t tsresol;
        uint32_t id;
    } synth[8];
    unsigned n_synth;
    uint32_t n_ifs; /* interfaces written */
    int oom;
    /* the frames read at once (roce_capture_next_run) and their records */
    struct roce_capture_frame run[RUN_MAX];
    struct roce_capture_record recs[RUN_MAX];
};

static int by_frame(const void *x, const void *y)
{
    const struct evidence *a = x, *b = y;
    if (a->frame != b->frame)
        return a->frame < b->frame ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* The diagnoses' lines and their evidence frames, by frame. 0, or -1 when
 * out of memory. */
static int diagnoses(struct pass *p, const struct roce_report *rep)
{
    struct roce_diag_list l;
    if (roce_report_diagnoses(rep, &l) != 0)
        return -1;
    size_t n_ev = 0;
    for (size_t i = 0; i < l.n_subjects; i++)
        n_ev += l.subjects[i].n_frames;
    p->lines = calloc(l.n_subjects ? l.n_subjects : 1, sizeof *p->lines);
    p->ev = calloc(n_ev ? n_ev : 1, sizeof *p->ev);
    if (p->lines == NULL || p->ev == NULL) {
        roce_diag_list_free(&l);
        return -1;
    }
    for (size_t k = 0; k < l.n; k++) {
        const struct roce_diagnosis *d = &l.d[k];
        for (size_t i = 0; i < d->n_subjects; i++) {
            const struct roce_diag_subject *s = roce_diag_subject_at(&l, d, i);
            char sentence[ROCE_DIAG_SUMMARY_LEN];
            roce_diag_subject_sentence(&l, d, i, sentence, sizeof sentence);
            char *line = NULL;
            if (asprintf(&line, "rocescope: diagnosis %s (%s): %s", roce_diag_kind_name(d->kind),
                         roce_diag_severity_name(d->severity), sentence) < 0) {
                roce_diag_list_free(&l);
                return -1;
            }
            p->lines[p->n_lines] = line;
            for (unsigned f = 0; f < s->n_frames; f++)
                p->ev[p->n_ev++] = (struct evidence){s->frames[f], p->n_lines};
            p->n_lines++;
        }
    }
    roce_diag_list_free(&l);
    qsort(p->ev, p->n_ev, sizeof *p->ev, by_frame);
    return 0;
}

/* Frame 1's lines: the summary's title and Diagnosis section, each
 * "rocescope: " and the line without the summary's indent and columns.
 * 0 or -1. */
static int head_lines(struct pass *p, const struct roce_report *rep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        return -1;
    int rc = roce_report_text_head(rep, m);
    if (fclose(m) != 0 || rc != 0) {
        free(text);
        return -1;
    }
    size_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    p->head = calloc(n, sizeof *p->head);
    for (char *s = text, *e; p->head != NULL && s < text + len; s = e + 1) {
        e = strchr(s, '\n');
        if (e == NULL)
            e = text + len;
        *e = '\0';
        if (*s == '\0')
            continue;
        while (*s == ' ')
            s++;     /* the summary's indent */
        char *w = s; /* and its columns: one blank between words */
        for (char *q = s; *q; q++)
            if (*q != ' ' || q[1] != ' ')
                *w++ = *q;
        *w = '\0';
        if (asprintf(&p->head[p->n_head], "rocescope: %s", s) < 0) {
            free(text);
            return -1;
        }
        p->n_head++;
    }
    free(text);
    return p->head == NULL ? -1 : 0;
}

/* The spool's next line, into p->spooled (its frame in p->spooled_frame,
 * 0 at the end). */
static void spool_next(struct pass *p)
{
    char *sp;
    p->spooled_frame = 0;
    if (fgets(p->spooled, sizeof p->spooled, p->a->spool) == NULL)
        return;
    p->spooled[strcspn(p->spooled, "\n")] = '\0';
    uint64_t f = strtoull(p->spooled, &sp, 10);
    if (*sp == ' ') {
        memmove(p->spooled, sp + 1, strlen(sp + 1) + 1);
        p->spooled_frame = f;
    }
}

/* The comments of frame n: the record's own, frame 1's head, the verdicts',
 * the diagnoses', the front end's notes. */
static void frame_comments(struct pass *p, uint64_t n, struct opts *o)
{
    if (n == 1)
        for (size_t i = 0; i < p->n_head; i++)
            opts_comment(o, p->head[i]);
    while (p->spooled_frame != 0 && p->spooled_frame < n)
        spool_next(p); /* a frame that was not read again: cannot be (numbered alike) */
    while (p->spooled_frame == n) {
        opts_comment(o, p->spooled);
        spool_next(p);
    }
    while (p->next_ev < p->n_ev && p->ev[p->next_ev].frame < n)
        p->next_ev++;
    for (; p->next_ev < p->n_ev && p->ev[p->next_ev].frame == n; p->next_ev++)
        opts_comment(o, p->lines[p->ev[p->next_ev].line]);
    while (p->next_note < p->n_notes && p->notes[p->next_note].frame < n)
        p->next_note++;
    for (; p->next_note < p->n_notes && p->notes[p->next_note].frame == n; p->next_note++)
        opts_comment(o, p->notes[p->next_note].text);
}

/* The output interface of f (written now when it is new): its id, or -1 on
 * a write error or out of memory. */
static int64_t interface_of(struct pass *p, const struct roce_capture_frame *f,
                            const struct roce_capture_record *rec, uint32_t in_id)
{
    struct opts o = {0};
    uint8_t body[IDB_BODY_LEN];
    uint32_t *slot = NULL;
    if (rec->idb != NULL) {
        if (rec->section != p->section) {
            memset(p->ids, 0, p->n_ids * sizeof *p->ids);
            p->section = rec->section;
        }
        if (in_id >= p->n_ids) {
            uint32_t n = in_id + 1 > p->n_ids * 2 ? in_id + 1 : p->n_ids * 2;
            uint32_t *ids = realloc(p->ids, n * sizeof *ids);
            if (ids == NULL)
                return -1;
            memset(ids + p->n_ids, 0, (n - p->n_ids) * sizeof *ids);
            p->ids = ids;
            p->n_ids = n;
        }
        slot = &p->ids[in_id];
        if (*slot)
            return *slot - 1;
        /* the interface's description as stored, in this machine's order */
        const uint8_t *b = rec->idb + BLOCK_HDR_LEN;
        uint16_t lt = get16(rec->swapped, b), reserved = get16(rec->swapped, b + 2);
        uint32_t snap = get32(rec->swapped, b + 4);
        memcpy(body, &lt, 2);
        memcpy(body + 2, &reserved, 2);
        memcpy(body + 4, &snap, 4);
        opts_copy(&o, b + IDB_BODY_LEN, rec->idb_len - BLOCK_MIN_LEN - IDB_BODY_LEN, rec->swapped,
                  OPTS_IDB, 0);
    } else {
        for (unsigned i = 0; i < p->n_synth; i++)
            if (p->synth[i].linktype == f->linktype && p->synth[i].tsresol == rec->tsresol)
                return p->synth[i].id;
        if (p->n_synth == sizeof p->synth / sizeof p->synth[0])
            return -1;
        uint16_t lt = (uint16_t)f->linktype, reserved = 0;
        uint32_t snap = SNAP_ANY;
        memcpy(body, &lt, 2);
        memcpy(body + 2, &reserved, 2);
        memcpy(body + 4, &snap, 4);
        if (rec->tsresol != ROCE_CAPTURE_TSRESOL_US) /* microseconds: the default */
            opts_put(&o, IF_TSRESOL, &rec->tsresol, 1);
        p->synth[p->n_synth++] = (struct synth){f->linktype, rec->tsresol, p->n_ifs};
    }
    int rc = o.oom ? -1 : put_block(&p->out, BT_IDB, body, sizeof body, NULL, 0, &o);
    free(o.p);
    if (rc != 0)
        return -1;
    if (slot != NULL)
        *slot = p->n_ifs + 1;
    return p->n_ifs++;
}

/* Frame f (number n) as an enhanced packet block with its comments. 0, or
 * -1 on a write error or out of memory. */
static int put_frame(struct pass *p, const struct roce_capture_frame *f,
                     const struct roce_capture_record *rec, uint64_t n)
{
    struct opts o = {0};
    uint32_t body[5], in_id = 0, type = 0;
    const uint8_t *b = rec->block != NULL ? rec->block + BLOCK_HDR_LEN : NULL;
    if (b != NULL) {
        type = get32(rec->swapped, rec->block);
        in_id = type == BT_EPB  ? get32(rec->swapped, b)
                : type == BT_PB ? get16(rec->swapped, b)
                                : 0;
    }
    int64_t id = interface_of(p, f, rec, in_id);
    if (id < 0)
        return -1;
    body[0] = (uint32_t)id;
    if (b != NULL && type != BT_SPB) {
        body[1] = get32(rec->swapped, b + 4); /* the time stamp's units, as stored */
        body[2] = get32(rec->swapped, b + 8);
        body[3] = f->caplen;
        body[4] = get32(rec->swapped, b + 16); /* the original length, as stored */
        size_t data_end = EPB_BODY_LEN + ((size_t)f->caplen + 3) / 4 * 4;
        size_t body_n = rec->block_len - BLOCK_MIN_LEN;
        if (data_end < body_n)
            opts_copy(&o, b + data_end, body_n - data_end, rec->swapped, OPTS_EPB, 0);
    } else {
        uint64_t units = 0;
        if (b != NULL) {
            body[4] = get32(rec->swapped, b); /* a simple packet block: no time stamp */
        } else {
            units = f->ts_ns < 0 ? 0 : (uint64_t)f->ts_ns;
            if (rec->tsresol == ROCE_CAPTURE_TSRESOL_US)
                units /= 1000;
            body[4] = f->wirelen;
        }
        body[1] = (uint32_t)(units >> 32);
        body[2] = (uint32_t)units;
        body[3] = f->caplen;
    }
    frame_comments(p, n, &o);
    int rc = o.oom ? -1 : put_block(&p->out, BT_EPB, body, sizeof body, f->data, f->caplen, &o);
    free(o.p);
    return rc;
}

/* ---- frames without comments: the bulk of the capture ---- */

/* The first frame from p->frame + 1 on that may get a comment: frame 1
 * (the summary's head), the spool's next, the next evidence frame, the next
 * note. Frames before it have none and take the short ways below; a frame
 * it names takes put_frame, whose frame_comments also steps over what is
 * left behind. */
static uint64_t next_commented(const struct pass *p)
{
    uint64_t n = p->frame == 0 ? 1 : UINT64_MAX;
    if (p->spooled_frame != 0 && p->spooled_frame < n)
        n = p->spooled_frame;
    if (p->next_ev < p->n_ev && p->ev[p->next_ev].frame < n)
        n = p->ev[p->next_ev].frame;
    if (p->next_note < p->n_notes && p->notes[p->next_note].frame < n)
        n = p->notes[p->next_note].frame;
    return n;
}

/* Room for len more bytes in the output buffer (flushed when short): a
 * pointer to them, NULL when a block that long takes put_block's way or a
 * write failed. */
static uint8_t *ob_room(struct outbuf *ob, size_t len)
{
    if (len > OUT_BUFFER)
        return NULL;
    if (OUT_BUFFER - ob->n < len)
        ob_flush(ob);
    return ob->failed ? NULL : ob->b + ob->n;
}

/* Frame f of a record without a stored block (pcap, ERF, libpcap's), with
 * no comment, on an interface already written: its enhanced packet block
 * (no options) straight into the output buffer, as put_frame writes it. 1,
 * or 0 when put_frame is to write it (a new interface, a block longer than
 * the buffer, a write that failed). */
static int put_plain(struct pass *p, const struct roce_capture_frame *f, uint8_t tsresol)
{
    unsigned i = 0;
    while (i < p->n_synth &&
           (p->synth[i].linktype != f->linktype || p->synth[i].tsresol != tsresol))
        i++;
    size_t data = ((size_t)f->caplen + 3) / 4 * 4;
    uint32_t total = (uint32_t)(BLOCK_MIN_LEN + EPB_BODY_LEN + data);
    uint8_t *w;
    if (i == p->n_synth || (w = ob_room(&p->out, total)) == NULL)
        return 0;
    uint64_t units = f->ts_ns < 0 ? 0 : (uint64_t)f->ts_ns;
    if (tsresol == ROCE_CAPTURE_TSRESOL_US)
        units /= 1000;
    uint32_t h[BLOCK_HDR_LEN / 4 + EPB_BODY_LEN / 4] = {
        BT_EPB,          total,     p->synth[i].id, (uint32_t)(units >> 32),
        (uint32_t)units, f->caplen, f->wirelen};
    memcpy(w, h, sizeof h);
    if (data != 0)
        memset(w + sizeof h + data - 4, 0, 4); /* the padding, under the data's last word */
    memcpy(w + sizeof h, f->data, f->caplen);
    memcpy(w + sizeof h + data, &total, sizeof total);
    p->out.n += total;
    return 1;
}

/* Nonzero when the options of a packet block (n > 0 bytes, in this
 * machine's order) are as opts_copy and put_block would write them again:
 * options other than the end, their values padded with zeros, then the end
 * option, ending the block. */
static int opts_as_written(const uint8_t *o, size_t n)
{
    for (size_t off = 0; n - off >= OPT_HDR_LEN;) {
        unsigned code = get16(0, o + off), len = get16(0, o + off + 2);
        size_t padded = ((size_t)len + 3) / 4 * 4;
        if (code == OPT_END)
            return len == 0 && off != 0 && off + OPT_HDR_LEN == n;
        if (n - off - OPT_HDR_LEN < padded)
            return 0;
        for (size_t k = len; k < padded; k++)
            if (o[off + OPT_HDR_LEN + k] != 0)
                return 0;
        off += OPT_HDR_LEN + padded;
    }
    return 0;
}

/* Frame f of a pcapng enhanced packet block in this machine's byte order
 * (rec), with no comment, on an interface already written, whose padding
 * and options put_frame would write as they are: the block copied whole,
 * its interface id the output's. 1, or 0 when put_frame is to write it. */
static int put_stored(struct pass *p, const struct roce_capture_frame *f,
                      const struct roce_capture_record *rec)
{
    const uint8_t *b = rec->block, *body = b + BLOCK_HDR_LEN;
    uint32_t in_id = get32(0, body), len = rec->block_len;
    if (rec->swapped || get32(0, b) != BT_EPB || rec->section != p->section || in_id >= p->n_ids ||
        p->ids[in_id] == 0)
        return 0;
    size_t data_end = EPB_BODY_LEN + ((size_t)f->caplen + 3) / 4 * 4, body_n = len - BLOCK_MIN_LEN;
    for (size_t k = EPB_BODY_LEN + f->caplen; k < data_end; k++)
        if (body[k] != 0)
            return 0;
    uint8_t *w;
    if ((data_end != body_n && !opts_as_written(body + data_end, body_n - data_end)) ||
        (w = ob_room(&p->out, len)) == NULL)
        return 0;
    uint32_t id = p->ids[in_id] - 1;
    memcpy(w, b, len);
    memcpy(w + BLOCK_HDR_LEN, &id, sizeof id);
    p->out.n += len;
    return 1;
}

/* Nonzero when frame f (the next frame of the document when it is) is one
 * of the frames the document holds (struct roce_writer_run's keep). */
static int kept(struct pass *p, const struct roce_capture_frame *f)
{
    struct roce_frame_in in;
    roce_capture_frame_in(f, p->frame + 1, &in);
    return p->r->keep(p->r->keep_ctx, &in);
}

/* A name resolution block's records (body, n bytes in the input's byte
 * order) in this machine's order into o's buffer, as records; the length of
 * the records with their end, or 0 when they are not whole. */
static size_t nrb_records(struct opts *o, const uint8_t *body, size_t n, int swapped)
{
    for (size_t off = 0; n - off >= OPT_HDR_LEN;) {
        unsigned type = get16(swapped, body + off), len = get16(swapped, body + off + 2);
        size_t padded = ((size_t)len + 3) / 4 * 4;
        if (n - off - OPT_HDR_LEN < padded)
            return 0;
        if (type == NRB_REC_END) {
            opts_put(o, NRB_REC_END, "", 0);
            return off + OPT_HDR_LEN;
        }
        opts_put(o, type, body + off + OPT_HDR_LEN, len); /* addresses and names: bytes */
        off += OPT_HDR_LEN + padded;
    }
    return 0;
}

/* A block of the input other than a packet, an interface or a section
 * header (rec), copied: name resolution and interface statistics in this
 * machine's order (the statistics of the interface as numbered here),
 * decryption secrets as they are when the input is in this machine's order
 * (their layout is their own). The others are left out: custom blocks and
 * systemd journal entries, which Wireshark counts as frames (the frame
 * numbers of the comments would no longer be Wireshark's), and blocks this
 * writer does not know. 0, or -1 on a write error or out of memory. */
static int put_other(struct pass *p, const struct roce_capture_record *rec)
{
    const uint8_t *b = rec->block, *body = b + BLOCK_HDR_LEN;
    uint32_t type = get32(rec->swapped, b);
    size_t n = rec->block_len - BLOCK_MIN_LEN;
    struct opts o = {0}, recs = {0};
    int rc = 0;
    if (type == BT_NRB) {
        size_t used = nrb_records(&recs, body, n, rec->swapped);
        if (used != 0) {
            opts_copy(&o, body + used, n - used, rec->swapped, OPTS_TEXT, 0);
            rc = o.oom || recs.oom ? -1 : put_block(&p->out, BT_NRB, recs.p, recs.n, NULL, 0, &o);
        }
    } else if (type == BT_ISB) {
        struct roce_capture_frame none = {0};
        uint32_t hdr[3];
        if (rec->idb != NULL && n >= ISB_BODY_LEN) { /* of an interface described */
            int64_t id = interface_of(p, &none, rec, get32(rec->swapped, body));
            hdr[0] = (uint32_t)id;
            hdr[1] = get32(rec->swapped, body + 4);
            hdr[2] = get32(rec->swapped, body + 8);
            opts_copy(&o, body + ISB_BODY_LEN, n - ISB_BODY_LEN, rec->swapped, OPTS_ISB, 0);
            rc = id < 0 || o.oom ? -1 : put_block(&p->out, BT_ISB, hdr, sizeof hdr, NULL, 0, &o);
        }
    } else if (!rec->swapped && type == BT_DSB) {
        ob_put(&p->out, b, rec->block_len);
        rc = p->out.failed ? -1 : 0;
    }
    free(o.p);
    free(recs.p);
    return rc;
}

/* A capture file opened again (NULL when it cannot be: the analysis said
 * why). */
static struct roce_capture *open_again(const char *path)
{
    char msg[CAPTURE_MSG_LEN];
    return roce_capture_open(path, msg, sizeof msg);
}

/* One capture file again (c, open_again's; closed here), as the analysis
 * read it (a file it could not open or whose link type it refused gave no
 * frame: skipped alike). 0, or -1 on a write error or out of memory. */
static int copy_file(struct pass *p, struct roce_capture *c)
{
    char msg[CAPTURE_MSG_LEN];
    if (c == NULL)
        return 0;
    if (roce_capture_linktype_check(roce_capture_linktype(c), roce_capture_linktype_name(c), msg,
                                    sizeof msg) != 0) {
        roce_capture_close(c);
        return 0;
    }
    p->n_synth = 0;
    p->section = 0;
    if (p->ids != NULL)
        memset(p->ids, 0, p->n_ids * sizeof *p->ids);
    int rc = 0;
    uint32_t n_ifs = p->n_ifs;
    enum roce_capture_status st = ROCE_CAPTURE_END;
    roce_capture_blocks(c);
    uint64_t commented = next_commented(p);
    while (rc == 0) {
        size_t n = roce_capture_next_run(c, p->run, p->recs, RUN_MAX);
        if (n == 0) { /* one at a time: a frame, or what is not */
            if ((st = roce_capture_next(c, &p->run[0])) <= ROCE_CAPTURE_END)
                break;
            p->recs[0] = *roce_capture_record(c);
            if (st != ROCE_CAPTURE_FRAME) {
                rc = put_other(p, &p->recs[0]);
                continue;
            }
            n = 1;
        }
        for (size_t i = 0; rc == 0 && i < n; i++) {
            const struct roce_capture_frame *f = &p->run[i];
            const struct roce_capture_record *rec = &p->recs[i];
            if (p->r->keep != NULL && !kept(p, f))
                continue;
            if (p->frame + 1 < commented &&
                (rec->block == NULL ? put_plain(p, f, rec->tsresol) : put_stored(p, f, rec))) {
                p->frame++;
                continue;
            }
            rc = put_frame(p, f, rec, ++p->frame);
            commented = next_commented(p);
        }
    }
    if (rc == 0 && p->n_ifs == n_ifs && st == ROCE_CAPTURE_END) {
        /* no packet: the file's interface all the same, as a copy would */
        struct roce_capture_frame none = {.linktype = roce_capture_linktype(c)};
        rc = interface_of(p, &none, roce_capture_record(c), 0) < 0 ? -1 : 0;
    }
    roce_capture_close(c);
    return rc;
}

static void pass_free(struct pass *p)
{
    for (size_t i = 0; i < p->n_lines; i++)
        free(p->lines[i]);
    for (size_t i = 0; i < p->n_head; i++)
        free(p->head[i]);
    free(p->lines);
    free(p->head);
    free(p->ev);
    free(p->ids);
    free(p->out.b);
}

static int annotate_report(const struct roce_writer_run *r, FILE *out,
                           const struct roce_writer_doc *d)
{
    struct annotate *a = r->state;
    const struct roce_report *rep = d->rep;
    struct pass p;
    const char *what = r->w->option;

    if (d->source != ROCE_WRITE_FILES) {
        roce_complain(what, "needs capture files (not -i)"); /* refused by the options */
        return -1;
    }
    if (a->failed || fflush(a->spool) != 0 || fseek(a->spool, 0, SEEK_SET) != 0) {
        roce_complain(what, "the spool of verdicts could not be written");
        return -1;
    }
    memset(&p, 0, sizeof p);
    p.out.fp = out;
    p.r = r;
    p.a = a;
    p.notes = r->notes;
    p.n_notes = r->n_notes;
    int rc = -1;
    if (diagnoses(&p, rep) != 0 || head_lines(&p, rep) != 0) {
        roce_complain(what, "out of memory");
        goto out;
    }
    spool_next(&p);
    if ((p.out.b = malloc(OUT_BUFFER)) == NULL) {
        roce_complain(what, "out of memory");
        goto out;
    }
    /* the section header, with the first file's (a pcapng file's) options */
    for (size_t i = 0; i < rep->n_files || i == 0; i++) {
        struct roce_capture *c = i < rep->n_files ? open_again(rep->files[i]) : NULL;
        if (i == 0) {
            const uint8_t *shb = NULL;
            uint32_t len = 0;
            int swapped = 0;
            if (c != NULL)
                shb = roce_capture_section_header(c, &len, &swapped);
            if (put_shb(&p.out, r->outputs, shb, len, swapped) != 0) {
                roce_capture_close(c);
                goto out;
            }
        }
        if (copy_file(&p, c) != 0)
            goto out;
    }
    ob_flush(&p.out);
    if (p.out.failed)
        goto out;
    if (p.frame != rep->t.packets) {
        char why[256];
        snprintf(why, sizeof why,
                 "the capture changed since it was analysed (%" PRIu64 " frames, now %" PRIu64 ")",
                 rep->t.packets, p.frame);
        roce_complain(what, why);
        goto out;
    }
    rc = 0;
out:
    pass_free(&p);
    return rc;
}

const struct roce_writer_ops roce_writer_annotate = {
    .start = annotate_start,
    .verdict = annotate_verdict,
    .report = annotate_report,
    .stop = annotate_stop,
};
