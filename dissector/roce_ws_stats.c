/*
 * roce_ws_stats.c - the "roce" tap and the per-flow table (see roce_ws.h).
 *
 *   tshark -z roce,flows      text table, drawn once at the end
 *   Statistics > RoCE Flows   the same columns in the GUI; it is a
 *                             stat_tap_table, so tshark also offers it as
 *                             `-z roce,flowtable` (generic layout)
 *
 * Nothing is counted here: both read the engine's report
 * (roce_engine_flows, roce_engine_totals) when they are drawn. The tap
 * carries the per-frame record (struct roce_ws_frame) to listeners.
 */
#include <stdio.h>

#include "report.h" /* roce_report_rank: the report's one ranking */
#include "roce_ws.h"

#define CLI_FLOWS      "roce,flows"
#define CLI_FLOWTABLE  "roce,flowtable"
#define TAP_NAME       "roce"
#define FLOW_LABEL_LEN 128
#define RULE_WIDTH     100

static int roce_tap = -1;

/* Numeric columns of a flow row, in display order. */
enum flow_value {
    V_PACKETS,
    V_BYTES,
    V_GAPS,
    V_MISSING,
    V_RETX,
    V_EPISODES,
    V_EP_NAK,
    V_EP_RNR,
    V_EP_IMPLIED,
    V_EP_TIMEOUT,
    V_NAKS,
    V_CE,
    V_CE_UNANSWERED,
    V_CNPS,
    V_CNPS_MATCHED,
    V_BAD_ICRC,
    V_COUNT
};

static const struct {
    const char *title;
    int width; /* text table */
} value_cols[V_COUNT] = {
    [V_PACKETS] = {"Packets", 9},
    [V_BYTES] = {"Bytes", 12},
    [V_GAPS] = {"Gaps", 5},
    [V_MISSING] = {"Missing", 8},
    [V_RETX] = {"Retx", 6},
    [V_EPISODES] = {"Episodes", 8},
    [V_EP_NAK] = {"NAK", 4},
    [V_EP_RNR] = {"RNR", 4},
    [V_EP_IMPLIED] = {"Impl", 4},
    [V_EP_TIMEOUT] = {"Tmo", 4},
    [V_NAKS] = {"NAKs", 5},
    [V_CE] = {"CE", 6},
    [V_CE_UNANSWERED] = {"CE-unans", 8},
    [V_CNPS] = {"CNPs", 6},
    [V_CNPS_MATCHED] = {"Matched", 7},
    [V_BAD_ICRC] = {"BadICRC", 7},
};

/* One row of the table, from one flow report. */
struct flow_row {
    guint64 id;
    char flow[FLOW_LABEL_LEN];
    const char *transport;
    char paired[FLOW_LABEL_LEN]; /* the paired flow's QP (the source QP): "0x0000a1 (cm)", or "-" */
    guint64 v[V_COUNT];
    gboolean have_latency;
    double lat_p50_us, lat_max_us;
};

static void flow_label(const struct roce_flow_key *k, char *buf, size_t len)
{
    char sb[WS_INET6_ADDRSTRLEN], db[WS_INET6_ADDRSTRLEN];

    roce_ws_address_text(k->src, k->af, sb, sizeof sb);
    roce_ws_address_text(k->dst, k->af, db, sizeof db);
    snprintf(buf, len, "%s -> %s QP 0x%06x", sb, db, (unsigned)k->dqpn);
}

static void flow_row(const struct roce_flow_report *r, struct flow_row *row)
{
    struct roce_engine *e = roce_ws_engine();
    struct roce_flow_state st;

    row->id = r->id;
    flow_label(&r->key, row->flow, sizeof row->flow);
    row->transport = roce_transport_name((enum roce_transport)r->transport);
    if (r->peer_id != 0 && e != NULL && roce_engine_flow_state(e, &r->key, r->id, &st) == 0 &&
        st.paired_by != ROCE_PAIRED_NONE)
        snprintf(row->paired, sizeof row->paired, "0x%06x (%s)", (unsigned)st.peer_dqpn,
                 roce_paired_by_name(st.paired_by));
    else
        snprintf(row->paired, sizeof row->paired, "-");
    row->v[V_PACKETS] = r->packets;
    row->v[V_BYTES] = r->bytes;
    row->v[V_GAPS] = r->gap_events;
    row->v[V_MISSING] = r->missing_psns;
    row->v[V_RETX] = r->retransmitted_packets;
    row->v[V_EPISODES] = r->episodes;
    row->v[V_EP_NAK] = r->by_trigger[ROCE_TRIGGER_NAK];
    row->v[V_EP_RNR] = r->by_trigger[ROCE_TRIGGER_RNR];
    row->v[V_EP_IMPLIED] = r->by_trigger[ROCE_TRIGGER_IMPLIED];
    row->v[V_EP_TIMEOUT] = r->by_trigger[ROCE_TRIGGER_TIMEOUT];
    row->v[V_NAKS] = r->naks.total;
    row->v[V_CE] = r->ce_marked;
    row->v[V_CE_UNANSWERED] = r->ce_unanswered;
    row->v[V_CNPS] = r->cnps_for_flow;
    row->v[V_CNPS_MATCHED] = r->cnps_matched;
    row->v[V_BAD_ICRC] = r->bad_icrc;
    row->have_latency = r->cnp_latency.count > 0;
    row->lat_p50_us = (double)r->cnp_latency.p50 / (double)ROCE_NS_PER_US;
    row->lat_max_us = (double)r->cnp_latency.max / (double)ROCE_NS_PER_US;
}

/* The engine's reports of the flows that carried packets (as rocescope
 * --json lists them: not those a CM exchange announced that carried none),
 * ordered by id (g_free them); NULL, n = 0 when no file is open. */
static struct roce_flow_report *flow_reports(size_t *n)
{
    struct roce_engine *e = roce_ws_engine();
    size_t cap, all, kept = 0;
    struct roce_flow_report *r;

    *n = 0;
    if (e == NULL)
        return NULL;
    cap = roce_engine_flow_count(e);
    r = g_new(struct roce_flow_report, cap > 0 ? cap : 1);
    all = roce_engine_flows(e, r, cap);
    for (size_t i = 0; i < all; i++)
        if (r[i].packets > 0)
            r[kept++] = r[i];
    *n = kept;
    return r;
}

void roce_ws_stats_tap(packet_info *pinfo, const struct roce_ws_frame *fr)
{
    if (have_tap_listener(roce_tap))
        tap_queue_packet(roce_tap, pinfo, fr);
}

/* ---- tshark -z roce,flows ---- */

static void print_rule(void)
{
    for (int i = 0; i < RULE_WIDTH; i++)
        putchar('=');
    putchar('\n');
}

static void print_totals(const struct roce_totals *t)
{
    printf("Packets: %" G_GUINT64_FORMAT " (RoCE %" G_GUINT64_FORMAT
           ", malformed %" G_GUINT64_FORMAT ", bad ICRC %" G_GUINT64_FORMAT
           "); flows: %" G_GUINT64_FORMAT " created, %" G_GUINT64_FORMAT
           " evicted, %" G_GUINT64_FORMAT " retired\n",
           t->packets, t->roce_packets, t->malformed_packets, t->icrc_bad, t->flows_created,
           t->flows_evicted, t->flows_retired);
    printf("PSN gaps: %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
           " PSNs missing); retransmitted: %" G_GUINT64_FORMAT
           "; go-back-N episodes: %" G_GUINT64_FORMAT " (nak %" G_GUINT64_FORMAT
           ", rnr %" G_GUINT64_FORMAT ", implied %" G_GUINT64_FORMAT ", timeout %" G_GUINT64_FORMAT
           "); NAKs: %" G_GUINT64_FORMAT " (RNR %" G_GUINT64_FORMAT ")\n",
           t->gap_events, t->missing_psns, t->retransmitted_packets, t->episodes,
           t->by_trigger[ROCE_TRIGGER_NAK], t->by_trigger[ROCE_TRIGGER_RNR],
           t->by_trigger[ROCE_TRIGGER_IMPLIED], t->by_trigger[ROCE_TRIGGER_TIMEOUT], t->naks.total,
           t->naks.rnr);
    printf("CE marks: %" G_GUINT64_FORMAT " (answered %" G_GUINT64_FORMAT
           ", unanswered %" G_GUINT64_FORMAT "); CNPs: %" G_GUINT64_FORMAT
           " (matched %" G_GUINT64_FORMAT ", unexplained %" G_GUINT64_FORMAT ")",
           t->ce_marked, t->ce_answered, t->ce_unanswered, t->cnp_packets, t->cnps_matched,
           t->cnps_unexplained);
    if (t->cnp_latency.count > 0)
        printf("; CNP latency us: p50 %.3f, p99 %.3f, max %.3f",
               (double)t->cnp_latency.p50 / (double)ROCE_NS_PER_US,
               (double)t->cnp_latency.p99 / (double)ROCE_NS_PER_US,
               (double)t->cnp_latency.max / (double)ROCE_NS_PER_US);
    putchar('\n');
    if (t->pfc.pfc_frames + t->pfc.pause_frames > 0)
        printf("PFC frames: %" G_GUINT64_FORMAT ", PAUSE frames: %" G_GUINT64_FORMAT "\n",
               t->pfc.pfc_frames, t->pfc.pause_frames);
    for (unsigned e = ROCE_ENCAP_NONE + 1; e < ROCE_ENCAP_COUNT; e++)
        if (t->encap[e] > 0)
            printf("Unwrapped %s: %" G_GUINT64_FORMAT " frames\n",
                   roce_encap_name((enum roce_encap)e), t->encap[e]);
}

/* Draw callback of -z roce,flows: settle the engine and print its report. */
static void flows_draw(void *tapdata)
{
    size_t n, i;
    struct roce_flow_report *r;
    struct flow_row row;
    int flow_w = (int)strlen("Flow");

    (void)tapdata;
    roce_ws_settle();
    r = flow_reports(&n);
    for (i = 0; i < n; i++) {
        flow_label(&r[i].key, row.flow, sizeof row.flow);
        flow_w = MAX(flow_w, (int)strlen(row.flow));
    }
    printf("\n");
    print_rule();
    printf("RoCE flows (rocescope): %zu\n", n);
    printf("%4s %-*s %-4s %-14s", "ID", flow_w, "Flow", "Tr", "Paired QP");
    for (int c = 0; c < V_COUNT; c++)
        printf(" %*s", value_cols[c].width, value_cols[c].title);
    printf(" %11s %11s\n", "CNP-p50-us", "CNP-max-us");
    for (i = 0; i < n; i++) {
        flow_row(&r[i], &row);
        printf("%4" G_GUINT64_FORMAT " %-*s %-4s %-14s", row.id, flow_w, row.flow, row.transport,
               row.paired);
        for (int c = 0; c < V_COUNT; c++)
            printf(" %*" G_GUINT64_FORMAT, value_cols[c].width, row.v[c]);
        if (row.have_latency)
            printf(" %11.3f %11.3f\n", row.lat_p50_us, row.lat_max_us);
        else
            printf(" %11s %11s\n", "-", "-");
    }
    if (roce_ws_engine() != NULL)
        print_totals(roce_engine_totals(roce_ws_engine()));
    print_rule();
    g_free(r);
}

static tap_packet_status flows_packet(ROCE_WS_TAP_PACKET_PARAMS)
{
    ROCE_WS_TAP_PACKET_UNUSED;
    return TAP_PACKET_DONT_REDRAW; /* counted by the engine, not here */
}

/* -z roce,flows: takes no further arguments. */
static ROCE_WS_TAP_INIT_RET flows_cli_init(const char *opt_arg, void *userdata)
{
    static int listener; /* its address names the listener */
    GString *err;

    (void)userdata;
    if (strcmp(opt_arg, CLI_FLOWS) != 0) {
        fprintf(stderr, "rocescope: -z %s takes no arguments (got \"%s\")\n", CLI_FLOWS, opt_arg);
        ROCE_WS_TAP_INIT_RETURN(FALSE);
    }
    err = register_tap_listener(TAP_NAME, &listener, NULL, TL_REQUIRES_NOTHING, NULL, flows_packet,
                                flows_draw, NULL);
    if (err != NULL) {
        fprintf(stderr, "rocescope: cannot register the roce tap: %s\n", err->str);
        g_string_free(err, TRUE);
        ROCE_WS_TAP_INIT_RETURN(FALSE);
    }
    ROCE_WS_TAP_INIT_RETURN(TRUE);
}

/* ---- Statistics > RoCE Flows (stat_tap_table) ---- */

/*
 * One row per flow that has at least one frame passing the dialog's display
 * filter (all flows without one): the filter selects flows, the numbers are
 * the whole flow's, from the engine's report. A row is (re)filled when a
 * frame of its flow is tapped and the engine moved since the row was last
 * filled: once per flow in a retap after the first pass (the engine is
 * settled then), per frame in a one-pass tshark. Flows the engine evicted
 * (roce.max_flows) have no report and no row.
 *
 * Column 0 is the flow's rank by trouble among the capture's flows, 1 the
 * worst: the report's one ranking (roce_report_rank, report_rank.c: the
 * flows the diagnoses name, in their order, then the other flows with
 * trouble, worst first, as rocescope's text summary and HTML report rank
 * them; then the others). Wireshark's dialog sorts by column 0 when it has been filled,
 * so the worst flow comes first.
 * The ranking needs every flow's final report: it is made once per settled
 * engine (a retap after the first pass, tshark -2); before that (a one-pass
 * tshark) the rank is 0. Wireshark sizes every column but the last to its
 * contents: the last is the short CNP max.
 *
 * Counts are TABLE_ITEM_UINT (bytes beyond 4 GiB fall back to a float,
 * exact to 2^53), latencies microseconds with three decimals as in the CLI,
 * and a value that does not exist (no CNP, so no latency) is
 * TABLE_ITEM_NONE, which the dialog leaves blank and sorts as 0; tshark's
 * table printer ends a row at a blank, so they are last.
 */
#define TABLE_TITLE "RoCE flows"

enum table_col {
    C_RANK,
    C_FLOW,
    C_PACKETS,
    C_BYTES,
    C_GAPS,
    C_MISSING,
    C_RETX,
    C_NAKS,
    C_CE,
    C_CE_UNANSWERED,
    C_BAD_ICRC,
    C_EPISODES,
    C_EP_NAK,
    C_EP_RNR,
    C_EP_IMPLIED,
    C_EP_TIMEOUT,
    C_CNPS,
    C_CNPS_MATCHED,
    C_TRANSPORT,
    C_PAIRED,
    C_ID,
    C_FILTER,
    C_LAT_P50, /* last: tshark's table printer ends a row at a blank (TABLE_ITEM_NONE) */
    C_LAT_MAX,
    TABLE_COLS
};

/* Column titles and tshark formats (Wireshark's dialog formats with them
 * too), and the flow_row value of each count column (-1: not a count).
 * Titles are short so that the columns that tell of trouble fit beside the
 * flow in the dialog's first view. */
static const struct {
    const char *title, *format;
    int value;
} table_cols[TABLE_COLS] = {
    [C_RANK] = {"Rank", "%4u", -1},
    [C_FLOW] = {"Flow", "%-44s", -1},
    [C_PACKETS] = {"Packets", "%9u", V_PACKETS},
    [C_BYTES] = {"Bytes", "%12u", V_BYTES},
    [C_GAPS] = {"Gaps", "%5u", V_GAPS},
    [C_MISSING] = {"Missing", "%8u", V_MISSING},
    [C_RETX] = {"Retx", "%6u", V_RETX},
    [C_NAKS] = {"NAKs", "%5u", V_NAKS},
    [C_CE] = {"CE", "%6u", V_CE},
    [C_CE_UNANSWERED] = {"CE unans.", "%9u", V_CE_UNANSWERED},
    [C_BAD_ICRC] = {"Bad ICRC", "%8u", V_BAD_ICRC},
    [C_EPISODES] = {"Episodes", "%8u", V_EPISODES},
    [C_EP_NAK] = {"by NAK", "%6u", V_EP_NAK},
    [C_EP_RNR] = {"by RNR", "%6u", V_EP_RNR},
    [C_EP_IMPLIED] = {"implied", "%7u", V_EP_IMPLIED},
    [C_EP_TIMEOUT] = {"timeout", "%7u", V_EP_TIMEOUT},
    [C_CNPS] = {"CNPs", "%6u", V_CNPS},
    [C_CNPS_MATCHED] = {"CNPs matched", "%12u", V_CNPS_MATCHED},
    [C_TRANSPORT] = {"Transport", "%-9s", -1},
    [C_PAIRED] = {"Paired QP", "%-14s", -1},
    [C_ID] = {"ID", "%4u", -1},
    [C_FILTER] = {"Filter", "%-24s", -1},
    [C_LAT_P50] = {"CNP p50 (us)", "%12.3f", -1},
    [C_LAT_MAX] = {"CNP max (us)", "%12.3f", -1},
};

static stat_tap_table_item table_fields[TABLE_COLS];

/* Row of each flow id (row + 1; 0: none) and the engine generation each row
 * was filled at. */
static GArray *row_of_flow;    /* guint, indexed by flow id */
static GArray *row_generation; /* guint64, indexed by row */
/* Rank of each flow id (0: none), made at generation rank_generation. */
static GArray *rank_of_flow; /* guint, indexed by flow id */
static guint64 rank_generation = G_MAXUINT64;

static stat_tap_table_item_type item_uint(guint64 v)
{
    stat_tap_table_item_type it = {0};
    if (v > G_MAXUINT) {
        it.type = TABLE_ITEM_FLOAT; /* exact up to 2^53 */
        it.value.float_value = (double)v;
        return it;
    }
    it.type = TABLE_ITEM_UINT;
    it.value.uint_value = (guint)v;
    return it;
}

static stat_tap_table_item_type item_float(double v)
{
    stat_tap_table_item_type it = {0};
    it.type = TABLE_ITEM_FLOAT;
    it.value.float_value = v;
    return it;
}

static stat_tap_table_item_type item_none(void)
{
    stat_tap_table_item_type it = {0};
    it.type = TABLE_ITEM_NONE;
    return it;
}

static stat_tap_table_item_type item_string(const char *s)
{
    stat_tap_table_item_type it = {0};
    it.type = TABLE_ITEM_STRING;
    it.value.string_value = g_strdup(s);
    return it;
}

static void table_free_item(stat_tap_table *table, guint row, guint column,
                            stat_tap_table_item_type *field)
{
    (void)table;
    (void)row;
    (void)column;
    if (field->type == TABLE_ITEM_STRING) {
        g_free((char *)field->value.string_value);
        field->value.string_value = NULL;
    }
}

/* The rank of flow id (0: not ranked: the engine is not settled yet). */
static guint flow_rank(guint64 id)
{
    return id < rank_of_flow->len ? g_array_index(rank_of_flow, guint, id) : 0;
}

/* Rank the flows of the settled engine, worst first, by the report's
 * ranking, once per generation; then write the rank of every row of table.
 * Returns TRUE when the ranks were (re)made. */
static gboolean table_rank(stat_tap_table *table)
{
    guint64 gen = roce_ws_generation();
    struct roce_flow_report *r;
    const struct roce_flow_report **order;
    size_t n;

    if (!roce_ws_settled() || gen == rank_generation)
        return FALSE;
    rank_generation = gen;
    g_array_set_size(rank_of_flow, 0);
    r = flow_reports(&n);
    order = g_new(const struct roce_flow_report *, n > 0 ? n : 1);
    if (roce_report_rank(r, n, roce_ws_diagnoses(), NULL, 1, order) == ROCE_RANK_NOMEM)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        if (order[i]->id >= G_MAXUINT)
            continue;
        if (order[i]->id >= rank_of_flow->len)
            g_array_set_size(rank_of_flow, (guint)order[i]->id + 1);
        g_array_index(rank_of_flow, guint, order[i]->id) = (guint)MIN(i + 1, G_MAXUINT);
    }
    g_free(order);
    g_free(r);
    for (guint f = 0; f < row_of_flow->len; f++) {
        guint row = g_array_index(row_of_flow, guint, f);
        if (row != 0 && row <= table->num_elements)
            table->elements[row - 1][C_RANK] = item_uint(flow_rank(f));
    }
    return TRUE;
}

/* The items of one flow's row. */
static void row_items(const struct roce_flow_report *r, stat_tap_table_item_type *items)
{
    struct flow_row row;
    char filter[FLOW_LABEL_LEN];

    flow_row(r, &row);
    for (int c = 0; c < TABLE_COLS; c++)
        if (table_cols[c].value >= 0)
            items[c] = item_uint(row.v[table_cols[c].value]);
    items[C_RANK] = item_uint(flow_rank(row.id));
    items[C_ID] = item_uint(row.id);
    items[C_FLOW] = item_string(row.flow);
    items[C_TRANSPORT] = item_string(row.transport);
    items[C_PAIRED] = item_string(row.paired);
    items[C_LAT_P50] = row.have_latency ? item_float(row.lat_p50_us) : item_none();
    items[C_LAT_MAX] = row.have_latency ? item_float(row.lat_max_us) : item_none();
    snprintf(filter, sizeof filter, "roce.flow.id == %" G_GUINT64_FORMAT, row.id);
    items[C_FILTER] = item_string(filter);
}

/* Fill (or refill) the row of the flow of fr from the engine's report. */
static gboolean table_update(stat_tap_table *table, const struct roce_ws_frame *fr)
{
    struct roce_engine *e = roce_ws_engine();
    struct roce_flow_report r;
    stat_tap_table_item_type items[TABLE_COLS];
    guint64 gen = roce_ws_generation();
    gboolean ranked = table_rank(table);
    guint row;

    if (e == NULL || !fr->has_flow || fr->flow_id >= G_MAXUINT)
        return ranked;
    if (fr->flow_id >= row_of_flow->len)
        g_array_set_size(row_of_flow, (guint)fr->flow_id + 1);
    row = g_array_index(row_of_flow, guint, fr->flow_id);
    if (row != 0 && g_array_index(row_generation, guint64, row - 1) == gen)
        return ranked; /* filled since the engine last moved */
    if (roce_engine_flow_report(e, &fr->key, fr->flow_id, &r) != 0)
        return ranked; /* evicted or retired */
    row_items(&r, items);
    if (row == 0) {
        row = table->num_elements + 1;
        g_array_index(row_of_flow, guint, fr->flow_id) = row;
        g_array_set_size(row_generation, row);
    } else {
        for (guint c = 0; c < table->num_fields; c++)
            table_free_item(table, row - 1, c, &table->elements[row - 1][c]);
    }
    stat_tap_init_table_row(table, row - 1, TABLE_COLS, items);
    g_array_index(row_generation, guint64, row - 1) = gen;
    return TRUE;
}

static void table_forget_rows(void)
{
    if (row_of_flow == NULL) {
        row_of_flow = g_array_new(FALSE, TRUE, sizeof(guint));
        row_generation = g_array_new(FALSE, TRUE, sizeof(guint64));
        rank_of_flow = g_array_new(FALSE, TRUE, sizeof(guint));
    }
    g_array_set_size(row_of_flow, 0);
    g_array_set_size(row_generation, 0);
    g_array_set_size(rank_of_flow, 0);
    rank_generation = G_MAXUINT64;
}

static void table_init(stat_tap_table_ui *ui)
{
    stat_tap_table *table = stat_tap_find_table(ui, TABLE_TITLE);
    if (table == NULL) {
        table = stat_tap_init_table(TABLE_TITLE, TABLE_COLS, 0, NULL);
        stat_tap_add_table(ui, table);
    }
    table_forget_rows();
}

static void table_reset(stat_tap_table *table)
{
    for (guint r = 0; r < table->num_elements; r++)
        for (guint c = 0; c < table->num_fields; c++)
            table_free_item(table, r, c, &table->elements[r][c]);
    roce_ws_stat_table_truncate(table, 0);
    table_forget_rows();
}

/* Per tapped frame (those passing the dialog's display filter). */
static tap_packet_status table_packet(ROCE_WS_TAP_PACKET_PARAMS)
{
    stat_data_t *sd = tapdata;
    const struct roce_ws_frame *fr = data;

    ROCE_WS_TAP_PACKET_UNUSED;
    if (sd->stat_tap_data->tables == NULL || sd->stat_tap_data->tables->len == 0)
        return TAP_PACKET_DONT_REDRAW;
    return table_update(g_array_index(sd->stat_tap_data->tables, stat_tap_table *, 0), fr)
               ? TAP_PACKET_REDRAW
               : TAP_PACKET_DONT_REDRAW;
}

static void table_fields_fill(void)
{
    for (int c = 0; c < TABLE_COLS; c++) {
        gboolean text = c == C_FLOW || c == C_TRANSPORT || c == C_PAIRED || c == C_FILTER;
        gboolean us = c == C_LAT_P50 || c == C_LAT_MAX;
        table_fields[c].type = text ? TABLE_ITEM_STRING : us ? TABLE_ITEM_FLOAT : TABLE_ITEM_UINT;
        table_fields[c].align = text ? TAP_ALIGN_LEFT : TAP_ALIGN_RIGHT;
        table_fields[c].column_name = table_cols[c].title;
        table_fields[c].field_format = table_cols[c].format;
    }
}

/* ---- Statistics > Conversations / Endpoints: RoCE ---- */

/*
 * A conversation is a queue pair: its two ends are "address QP 0x..."
 * (roce_ws_endpoint), kept as string addresses (AT_STRINGZ) with no ports,
 * so that Wireshark's "Apply as Filter" writes roce.endpoint == "..." (and
 * roce.src_endpoint / roce.dst_endpoint for one direction), which select
 * exactly the frames of that queue pair. An end whose source QP is not known
 * yet (the flow is not paired) reads "address QP ?".
 */
static const char *conv_filter_name(conv_item_t *conv, conv_filter_type_e filter)
{
    (void)conv;
    switch (filter) {
    case CONV_FT_SRC_ADDRESS:
        return "roce.src_endpoint";
    case CONV_FT_DST_ADDRESS:
        return "roce.dst_endpoint";
    case CONV_FT_ANY_ADDRESS:
        return "roce.endpoint";
    default:
        return CONV_FILTER_INVALID;
    }
}

static const char *endpoint_filter_name(endpoint_item_t *endpoint, conv_filter_type_e filter)
{
    (void)endpoint;
    return filter == CONV_FT_ANY_ADDRESS ? "roce.endpoint" : CONV_FILTER_INVALID;
}

static ct_dissector_info_t conv_info = {&conv_filter_name};
static et_dissector_info_t endpoint_info = {&endpoint_filter_name};

/* The two ends of fr's queue pair as string addresses (in pinfo's pool). */
static gboolean frame_ends(packet_info *pinfo, const struct roce_ws_frame *fr, address *src,
                           address *dst)
{
    const char *s, *d;

    if (fr == NULL || !fr->has_flow)
        return FALSE;
    s = roce_ws_endpoint(pinfo->pool, fr, TRUE);
    d = roce_ws_endpoint(pinfo->pool, fr, FALSE);
    set_address(src, AT_STRINGZ, (int)strlen(s) + 1, s);
    set_address(dst, AT_STRINGZ, (int)strlen(d) + 1, d);
    return TRUE;
}

/* One frame into the Conversations (endpoints FALSE) or Endpoints table. */
static tap_packet_status ends_packet(conv_hash_t *hash, packet_info *pinfo, const void *data,
                                     tap_flags_t flags, gboolean endpoints)
{
    address src, dst;

    hash->flags = flags;
    if (!frame_ends(pinfo, data, &src, &dst))
        return TAP_PACKET_DONT_REDRAW;
    if (!endpoints) {
        add_conversation_table_data(hash, &src, &dst, 0, 0, 1, (int)pinfo->fd->pkt_len,
                                    &pinfo->rel_ts, &pinfo->abs_ts, &conv_info, CONVERSATION_IBQP);
        return TAP_PACKET_REDRAW;
    }
    add_endpoint_table_data(hash, &src, 0, TRUE, 1, (int)pinfo->fd->pkt_len, &endpoint_info,
                            ENDPOINT_IBQP);
    add_endpoint_table_data(hash, &dst, 0, FALSE, 1, (int)pinfo->fd->pkt_len, &endpoint_info,
                            ENDPOINT_IBQP);
    return TAP_PACKET_REDRAW;
}

static tap_packet_status conv_packet(ROCE_WS_TAP_PACKET_PARAMS)
{
    ROCE_WS_TAP_PACKET_UNUSED;
    return ends_packet(tapdata, pinfo, data, flags, FALSE);
}

static tap_packet_status endpoint_packet(ROCE_WS_TAP_PACKET_PARAMS)
{
    ROCE_WS_TAP_PACKET_UNUSED;
    return ends_packet(tapdata, pinfo, data, flags, TRUE);
}

void roce_ws_stats_register(void)
{
    static stat_tap_ui flows_ui = {
        REGISTER_PACKET_STAT_GROUP_UNSORTED, "RoCE flows", CLI_FLOWS, flows_cli_init, 0, NULL,
    };
    static stat_tap_table_ui table_ui = {
        .group = REGISTER_PACKET_STAT_GROUP_UNSORTED,
        .title = "RoCE Flows",
        .tap_name = TAP_NAME,
        .cli_string = CLI_FLOWTABLE,
        .stat_tap_init_cb = table_init,
        .packet_func = table_packet,
        .stat_tap_reset_table_cb = table_reset,
        .stat_tap_free_table_item_cb = table_free_item,
        .stat_filter_check_cb = NULL,
        .nfields = TABLE_COLS,
        .fields = table_fields,
        .nparams = 0,
        .params = NULL,
        .tables = NULL,
        .refcount = 0,
    };

    roce_tap = register_tap(TAP_NAME);
    register_stat_tap_ui(&flows_ui, NULL);
    table_fields_fill();
    register_stat_tap_table_ui(&table_ui);
    roce_ws_diag_register();
    /* port columns hidden: the QP is part of each end's address */
    register_conversation_table(roce_ws_proto, TRUE, conv_packet, endpoint_packet);
}
