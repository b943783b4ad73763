/*
 * roce_ws_diag.c - the diagnoses in Wireshark (see roce_ws.h): an item and
 * an expert info on every evidence frame of a diagnosis, and
 * `tshark -z roce,diagnoses`.
 *
 * The diagnoses are the engine's (roce_engine_diagnoses): known once the
 * engine has seen the whole capture, so the frames show them from the
 * second pass on (tshark -2, the GUI), and the -z table when it is drawn at
 * the end. They are computed once per engine state (roce_ws_generation) and
 * indexed by evidence frame number; nothing is decided here.
 */
#include <stdio.h>

#include "roce_ws.h"
#include "roce_ws_fields.h"

#define CLI_DIAGNOSES "roce,diagnoses"
#define TAP_NAME      "roce"
#define RULE_WIDTH    100

/* The diagnoses of the engine's current state and their evidence frames:
 * each frame names the subjects (of their findings) it is evidence of. */
static struct {
    struct roce_diag_list list;
    GHashTable *by_frame; /* frame number -> GArray of struct evidence_of */
    guint64 generation;
    gboolean built;
} cache;

struct evidence_of {
    size_t d, s; /* finding, and its subject */
};

void roce_ws_diag_cleanup(void)
{
    if (cache.by_frame != NULL)
        g_hash_table_destroy(cache.by_frame);
    roce_diag_list_free(&cache.list);
    memset(&cache, 0, sizeof cache);
}

/* (Re)build the cache when the engine moved on. */
static void build(void)
{
    struct roce_engine *e = roce_ws_engine();
    if (e == NULL || (cache.built && cache.generation == roce_ws_generation()))
        return;
    roce_ws_diag_cleanup();
    cache.built = TRUE;
    cache.generation = roce_ws_generation();
    cache.by_frame =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    if (roce_engine_diagnoses(e, 0, &cache.list) != 0)
        return;
    for (size_t i = 0; i < cache.list.n; i++) {
        const struct roce_diagnosis *d = &cache.list.d[i];
        for (size_t j = 0; j < d->n_subjects; j++) {
            const struct roce_diag_subject *sj = roce_diag_subject_at(&cache.list, d, j);
            for (unsigned k = 0; k < sj->n_frames; k++) {
                gpointer key = GUINT_TO_POINTER((guint32)sj->frames[k]);
                GArray *a = g_hash_table_lookup(cache.by_frame, key);
                struct evidence_of ev = {i, j};
                if (a == NULL) {
                    a = g_array_new(FALSE, FALSE, sizeof(struct evidence_of));
                    g_hash_table_insert(cache.by_frame, key, a);
                }
                g_array_append_val(a, ev);
            }
        }
    }
}

const struct roce_diag_list *roce_ws_diagnoses(void)
{
    build();
    return &cache.list;
}

/* The expert field of d's kind (its group and severity: roce_ws_fields.c). */
static expert_field *expert_of(const struct roce_diagnosis *d)
{
    return &roce_ws_ei.diag[d->kind < ROCE_DIAG_KINDS ? d->kind : 0];
}

gboolean roce_ws_diag_render(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *rt)
{
    GArray *a;
    if (!PINFO_FD_VISITED(pinfo))
        return FALSE; /* known at the end of the first pass */
    roce_ws_settle();
    build();
    if (cache.by_frame == NULL ||
        (a = g_hash_table_lookup(cache.by_frame, GUINT_TO_POINTER(pinfo->num))) == NULL)
        return FALSE;
    if (rt == NULL) { /* a frame that is not RoCE: a PFC or PAUSE frame */
        proto_item *ti = proto_tree_add_item(tree, roce_ws_proto, tvb, 0, -1, ENC_NA);
        rt = proto_item_add_subtree(ti, roce_ws_ett.roce);
    }
    for (guint i = 0; i < a->len; i++) {
        const struct evidence_of *ev = &g_array_index(a, struct evidence_of, i);
        const struct roce_diagnosis *d = &cache.list.d[ev->d];
        char phrase[ROCE_DIAG_PHRASE_LEN];
        roce_diag_subject_phrase(&cache.list, d, ev->s, phrase, sizeof phrase);
        const char *kind = roce_diag_kind_name(d->kind);
        /* the item and the expert info speak of this frame's subject alone
         * (the finding's other subjects: Count, and -z roce,diagnoses) */
        char sentence[sizeof d->summary];
        roce_diag_subject_sentence(&cache.list, d, ev->s, sentence, sizeof sentence);
        proto_item *pi = proto_tree_add_string_format_value(
            rt, roce_ws_hf.diagnosis, tvb, 0, 0, kind, "%s (%s): %s", kind,
            roce_diag_severity_name(d->severity), sentence);
        proto_item_set_generated(pi);
        proto_tree *dt = proto_item_add_subtree(pi, roce_ws_ett.diagnosis);
        proto_item_set_generated(proto_tree_add_string(dt, roce_ws_hf.diagnosis_severity, tvb, 0, 0,
                                                       roce_diag_severity_name(d->severity)));
        proto_item_set_generated(proto_tree_add_string(dt, roce_ws_hf.diagnosis_cause, tvb, 0, 0,
                                                       roce_diag_cause_name(d->cause)));
        proto_item_set_generated(
            proto_tree_add_uint64(dt, roce_ws_hf.diagnosis_count, tvb, 0, 0, d->count));
        proto_item_set_generated(
            proto_tree_add_string(dt, roce_ws_hf.diagnosis_subject, tvb, 0, 0, phrase));
        expert_add_info_format(pinfo, pi, expert_of(d), "%s", sentence);
    }
    return TRUE;
}

/* ---- tshark -z roce,diagnoses ---- */

static void print_rule(void)
{
    for (int i = 0; i < RULE_WIDTH; i++)
        putchar('=');
    putchar('\n');
}

/* Draw callback: settle the engine and print its diagnoses, worst first. */
static void diagnoses_draw(void *tapdata)
{
    (void)tapdata;
    roce_ws_settle();
    build();
    printf("\n");
    print_rule();
    printf("RoCE diagnoses (rocescope): %zu\n", cache.list.n);
    for (size_t i = 0; i < cache.list.n; i++) {
        const struct roce_diagnosis *d = &cache.list.d[i];
        printf("%-8s %-23s %8" G_GUINT64_FORMAT "  %zu %s%s (%s)\n",
               roce_diag_severity_name(d->severity), roce_diag_kind_name(d->kind), d->count,
               d->n_subjects, roce_diag_kind(d->kind)->unit, d->n_subjects == 1 ? "" : "s",
               roce_diag_cause_name(d->cause));
        printf("         %s\n         frames:", d->summary);
        for (unsigned k = 0; k < d->n_frames; k++)
            printf(" %" G_GUINT64_FORMAT, d->frames[k]);
        putchar('\n');
        for (size_t j = 0; j < d->n_subjects; j++) {
            char phrase[ROCE_DIAG_PHRASE_LEN];
            roce_diag_subject_phrase(&cache.list, d, j, phrase, sizeof phrase);
            printf("         - %s\n", phrase);
        }
    }
    print_rule();
}

static tap_packet_status diagnoses_packet(ROCE_WS_TAP_PACKET_PARAMS)
{
    ROCE_WS_TAP_PACKET_UNUSED;
    return TAP_PACKET_DONT_REDRAW; /* the engine counts; the draw reads it */
}

/* -z roce,diagnoses: takes no further arguments. */
static ROCE_WS_TAP_INIT_RET diagnoses_cli_init(const char *opt_arg, void *userdata)
{
    static int listener; /* its address names the listener */
    GString *err;

    (void)userdata;
    if (strcmp(opt_arg, CLI_DIAGNOSES) != 0) {
        fprintf(stderr, "rocescope: -z %s takes no arguments (got \"%s\")\n", CLI_DIAGNOSES,
                opt_arg);
        ROCE_WS_TAP_INIT_RETURN(FALSE);
    }
    err = register_tap_listener(TAP_NAME, &listener, NULL, TL_REQUIRES_NOTHING, NULL,
                                diagnoses_packet, diagnoses_draw, NULL);
    if (err != NULL) {
        fprintf(stderr, "rocescope: cannot register the roce tap: %s\n", err->str);
        g_string_free(err, TRUE);
        ROCE_WS_TAP_INIT_RETURN(FALSE);
    }
    ROCE_WS_TAP_INIT_RETURN(TRUE);
}

void roce_ws_diag_register(void)
{
    static stat_tap_ui ui = {
        REGISTER_PACKET_STAT_GROUP_UNSORTED,
        "RoCE diagnoses",
        CLI_DIAGNOSES,
        diagnoses_cli_init,
        0,
        NULL,
    };
    register_stat_tap_ui(&ui, NULL);
}
