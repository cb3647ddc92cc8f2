/*
 * report_svg.c - --plot FILE.svg: a self-contained SVG (no script, no font files, no
 * external references) of the two pictures people put in design documents: context vs
 * max concurrency on log axes, with the user's setting marked and the target as a line;
 * and the GPU memory split as a stacked bar (weights, overhead, KV in use, free). The
 * figures are also written as data-* attributes so that a test can check them against the
 * JSON output. With a workload the first picture is the workload's instead: KV usage and
 * preemptions against the arrival rate.
 */
#include "kvprint.h"
#include "report.h"

#include "format.h"

#include <math.h>

#include "kvmath.h"

#define W 860
#define H 640
#define PLOT_X 90
#define PLOT_Y 60
#define PLOT_W 720
#define PLOT_H 330
#define BAR_Y 500
#define BAR_H 44

static const char *num(char *buf, size_t cap, double v)
{
    return fmt_json_number(buf, cap, v);
}

/* Escapes the five XML specials of a label. */
static void xml_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: /* XML 1.0 has no control characters but tab and newlines: '?' */
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
        }
    }
}

typedef struct {
    double x0, x1, y0, y1; /* log2 context range, log10 concurrency range */
} scale;

static double px_x(const scale *sc, double context)
{
    return PLOT_X + (kvm_log2(context) - sc->x0) / (sc->x1 - sc->x0) * PLOT_W;
}

static double px_y(const scale *sc, double conc)
{
    double v = conc < 1 ? sc->y0 : kvm_log10(conc);
    return PLOT_Y + PLOT_H - (v - sc->y0) / (sc->y1 - sc->y0) * PLOT_H;
}

static void axes(FILE *out, const scale *sc)
{
    char a[FMT_BUF];
    kv_fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" "
                 "stroke=\"#999\"/>\n",
            PLOT_X, PLOT_Y, PLOT_W, PLOT_H);
    for (double e = kvm_ceil(sc->x0); e <= sc->x1; e += 1) { /* every power of two */
        double x = PLOT_X + (e - sc->x0) / (sc->x1 - sc->x0) * PLOT_W;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>\n", x,
                PLOT_Y, x, PLOT_Y + PLOT_H);
        if ((int)e % 2 == 0)
            fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
                    x, PLOT_Y + PLOT_H + 16, fmt_fixed(a, sizeof a, kvm_powi(2, (long long)e), 0, 1));
    }
    for (double e = kvm_ceil(sc->y0); e <= sc->y1; e += 1) { /* every power of ten */
        double y = PLOT_Y + PLOT_H - (e - sc->y0) / (sc->y1 - sc->y0) * PLOT_H;
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
                PLOT_X, y, PLOT_X + PLOT_W, y);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                PLOT_X - 6, y + 4, fmt_fixed(a, sizeof a, kvm_powi(10, (long long)e), 0, 1));
    }
    kv_fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">context "
                 "(tokens per request, log scale)</text>\n",
            PLOT_X + PLOT_W / 2, PLOT_Y + PLOT_H + 34);
    kv_fprintf(out, "<text x=\"20\" y=\"%d\" font-size=\"12\" transform=\"rotate(-90 20 %d)\" "
                 "text-anchor=\"middle\">max concurrent requests (log scale)</text>\n",
            PLOT_Y + PLOT_H / 2, PLOT_Y + PLOT_H / 2);
}

static void curve_chart(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    const kv_curve *c = rep->curve;
    char a[FMT_BUF], b[FMT_BUF], d[FMT_BUF];
    double top = 1;
    for (size_t i = 0; i < c->n; i++)
        top = c->max_concurrency[i] > top ? c->max_concurrency[i] : top;
    if (rep->plan && (double)rep->plan->target > top)
        top = (double)rep->plan->target;
    scale sc = {kvm_log2((double)c->context[0]), kvm_log2((double)c->context[c->n - 1]), 0,
                kvm_ceil(kvm_log10(top) + 0.01)};
    axes(out, &sc);
    fputs("<polyline id=\"curve\" fill=\"none\" stroke=\"#1f6fb2\" stroke-width=\"2\" points=\"",
          out);
    for (size_t i = 0; i < c->n && c->max_concurrency[i] >= 1; i++) /* log axis: stop at 0 */
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", px_x(&sc, (double)c->context[i]),
                px_y(&sc, c->max_concurrency[i]));
    fputs("\"/>\n", out);
    double mx = px_x(&sc, (double)s->context), my = px_y(&sc, r->max_concurrency);
    fprintf(out, "<g id=\"setting\" data-context=\"%lld\" data-max-concurrency=\"%s\">"
                 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#d9480f\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#d9480f\">your setting: ~%s "
                 "@ %s</text></g>\n",
            (long long)s->context, num(a, sizeof a, r->max_concurrency), mx, my, mx + 8, my - 8,
            fmt_fixed(b, sizeof b, r->max_concurrency, 0, 1), fmt_int(d, sizeof d, s->context, 1));
    if (rep->plan) {
        double ty = px_y(&sc, (double)rep->plan->target);
        fprintf(out, "<g id=\"target\" data-target=\"%lld\"><line x1=\"%d\" y1=\"%.1f\" "
                     "x2=\"%d\" y2=\"%.1f\" stroke=\"#2b8a3e\" stroke-dasharray=\"6 4\"/>"
                     "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"#2b8a3e\" "
                     "text-anchor=\"end\">target: %s</text></g>\n",
                (long long)rep->plan->target, PLOT_X, ty, PLOT_X + PLOT_W, ty, PLOT_X + PLOT_W - 4,
                ty - 5, fmt_int(a, sizeof a, rep->plan->target, 1));
    }
}

static void memory_bar(FILE *out, const kv_spec *s, const kv_result *r)
{
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF], d[FMT_BUF];
    double gpu = r->gpu_mem_bytes, in_use = r->kv_bytes_in_use, free_b = r->kv_bytes_unused;
    struct {
        const char *label, *color;
        double bytes;
    } parts[] = {{"weights", "#868e96", r->weights_bytes},
                 {"overhead", "#ced4da", r->overhead_bytes},
                 {"KV in use", "#1f6fb2", in_use},
                 {"free", "#e9ecef", free_b}};
    kv_fprintf(out, "<g id=\"memory\" data-gpu-mem-bytes=\"%s\" data-weights-bytes=\"%s\" "
                 "data-overhead-bytes=\"%s\" data-kv-in-use-bytes=\"%s\">\n",
            num(a, sizeof a, gpu), num(b, sizeof b, r->weights_bytes),
            num(c, sizeof c, r->overhead_bytes), num(d, sizeof d, in_use));
    kv_fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"14\">GPU memory%s: %s GiB%s</text>\n",
            PLOT_X, BAR_Y - 12, s->tp > 1 ? " per GPU" : "", fmt_fixed(a, sizeof a, gpu / KV_GIB, 2, 0),
            r->room ? "" : " - weights and overhead do not fit");
    double total = r->room ? gpu : r->weights_bytes + r->overhead_bytes; /* bar width: all */
    double x = PLOT_X;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        double w = total > 0 ? parts[i].bytes / total * PLOT_W : 0;
        if (w <= 0)
            continue;
        fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                     "stroke=\"#fff\"/>\n",
                x, BAR_Y, w, BAR_H, parts[i].color);
        x += w;
    }
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) { /* the legend */
        int lx = PLOT_X + (int)i * 180;
        kv_fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" "
                     "stroke=\"#999\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">%s %s GiB</text>\n",
                lx, BAR_Y + BAR_H + 14, parts[i].color, lx + 18, BAR_Y + BAR_H + 25,
                parts[i].label, fmt_fixed(a, sizeof a, parts[i].bytes / KV_GIB, 2, 0));
    }
    fputs("</g>\n", out);
}

/* With a workload: KV usage (%) and preemptions a second against the arrival rate, from the
 * onset's scan, the rate asked for and the saturation rate marked. */
static void workload_chart(FILE *out, const kv_report *rep)
{
    const kv_workload_result *w = rep->workload;
    char a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
    double xmax = w->curve_rate[w->n_curve - 1], pmax = 0;
    for (size_t i = 0; i < w->n_curve; i++)
        pmax = w->curve_preemptions_per_s[i] > pmax ? w->curve_preemptions_per_s[i] : pmax;
    if (pmax <= 0)
        pmax = 1;
#define WX(r) (PLOT_X + (r) / xmax * PLOT_W)
#define WY(f) (PLOT_Y + PLOT_H - (f) * PLOT_H)
    kv_fprintf(out, "<g id=\"workload\" data-saturation-rate=\"%s\" data-onset-rate=\"%s\">\n",
            num(a, sizeof a, w->saturation_rate), num(b, sizeof b, w->preemption_onset_rate));
    kv_fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                 "stroke=\"#888\"/>\n", PLOT_X, PLOT_Y, PLOT_W, PLOT_H);
    kv_fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">requests per second arriving "
                 "(one replica)</text>\n", PLOT_X + PLOT_W / 2 - 110, PLOT_Y + PLOT_H + 36);
    kv_fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#1f77b4\">KV cache in use "
                 "(0-100%%)</text>\n", PLOT_X, PLOT_Y - 8);
    kv_fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#d62728\" "
                 "text-anchor=\"end\">preemptions per second (0-%s)</text>\n",
            PLOT_X + PLOT_W, PLOT_Y - 8, fmt_fixed(c, sizeof c, pmax, 3, 1));
    for (int k = 0; k <= 4; k++) { /* the rate axis in quarters */
        double r = xmax * k / 4;
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s"
                     "</text>\n", WX(r), PLOT_Y + PLOT_H + 16, fmt_fixed(a, sizeof a, r, 2, 0));
    }
    const struct {
        const double *y;
        double scale;
        const char *color, *id;
    } lines[] = {{w->curve_kv_usage, 1, "#1f77b4", "kv_usage"},
                 {w->curve_preemptions_per_s, pmax, "#d62728", "preemptions_per_s"}};
    for (size_t l = 0; l < 2; l++) {
        kv_fprintf(out, "<polyline id=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                     "points=\"", lines[l].id, lines[l].color);
        for (size_t i = 0; i < w->n_curve; i++) {
            double y = isnan(lines[l].y[i]) ? 0 : lines[l].y[i] / lines[l].scale;
            fprintf(out, "%s%.1f,%.1f", i ? " " : "", WX(w->curve_rate[i]), WY(y > 1 ? 1 : y));
        }
        fputs("\"/>\n", out);
        for (size_t i = 0; i < w->n_curve; i++)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" data-rate=\"%s\" "
                         "data-value=\"%s\"/>\n",
                    WX(w->curve_rate[i]),
                    WY(isnan(lines[l].y[i]) ? 0 : kvm_fmin(1, lines[l].y[i] / lines[l].scale)),
                    lines[l].color, num(a, sizeof a, w->curve_rate[i]),
                    num(b, sizeof b, lines[l].y[i]));
    }
    const struct {
        double rate;
        const char *label;
    } marks[] = {{w->rate, "your rate"}, {w->saturation_rate, "queue grows"}};
    for (size_t m = 0; m < 2; m++)
        if (marks[m].rate > 0 && marks[m].rate <= xmax)
            fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\" "
                         "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%d\" font-size=\"11\">%s "
                         "%s</text>\n",
                    WX(marks[m].rate), PLOT_Y, WX(marks[m].rate), PLOT_Y + PLOT_H,
                    WX(marks[m].rate) + 4, PLOT_Y + 14 + 14 * (int)m, marks[m].label,
                    fmt_fixed(a, sizeof a, marks[m].rate, 2, 0));
    fputs("</g>\n", out);
#undef WX
#undef WY
}

void report_svg(FILE *out, const kv_report *rep)
{
    const kv_spec *s = rep->spec;
    const kv_result *r = rep->result;
    char a[FMT_BUF];
    kv_fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            W, H, W, H);
    fputs("<text x=\"90\" y=\"32\" font-size=\"16\" font-weight=\"bold\">", out);
    xml_text(out, s->model_name ? s->model_name : "KV cache calculator (illustrative model)");
    fputs(" on ", out);
    xml_text(out, s->gpu_name ? s->gpu_name : "a GPU");
    kv_fprintf(out, " (%s GiB)</text>\n", fmt_fixed(a, sizeof a, s->gpu_mem_gib, 2, 0));
    if (rep->workload && rep->workload->n_curve > 0)
        workload_chart(out, rep); /* the question asked: the workload against its rate */
    else
        curve_chart(out, rep);
    memory_bar(out, s, r);
    fputs("</svg>\n", out);
}
