/*
 * main.c - the kvcalc program: argv -> options -> spec builder -> pipeline -> one renderer.
 *
 * Exit statuses: 0 ok; 1 a --require failed (the report is still printed); 2 usage error
 * (one line on stderr plus a hint, nothing on stdout); 3 the output could not be written (a
 * closed pipe or a full disk must not look like success to a CI job).
 */
#define KVCALC_ENGINES /* the draft model's summary (kv_draft) */
#include "build.h"
#include "format.h"
#include "fromlog.h"
#include "frommetrics.h"
#include "kvprint.h"
#include "options.h"
#include "modellist.h"
#include "pipeline.h"
#include "report.h"
#include "sweep.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define EXIT_REQUIREMENT_FAILED 1
#define EXIT_WRITE_ERROR 3

/* One renderer per --format value. */
static void (*const renderers[FORMAT_COUNT])(FILE *, const kv_report *) = {
    [FORMAT_TEXT] = report_text,
    [FORMAT_JSON] = report_json,
    [FORMAT_CSV] = report_csv,
};

static int usage_error(const char *msg)
{
    kv_fprintf(stderr, "%s\n%s\n", msg, KV_HINT);
    return KV_USAGE_ERROR;
}

/* A refusal of a value the log gave (not typed): named as the log's, so that the user sees
 * where it came from ("--from-log FILE: its speculative-method: ..."). */
static void log_pipeline_error(const kv_store *st, const kv_spec *s, const kv_options *o,
                               const kv_log_args *in, const char *file, kv_status rc,
                               char *err, size_t cap)
{
    kv_error e;
    char shown[300];
    kv_explain(s, rc, &e);
    const kv_flag *f = e.blamed && rc != KV_ERR_WORKLOAD && rc != KV_ERR_TARGET &&
                               e.blamed != kv_core_param_get(KV_P_ENGINE)
                           ? kv_flag_of(e.blamed)
                           : NULL;
    size_t k = f ? kv_flag_index(f) : 0;
    if (f && !o->set[k] && in->kind[k] != KV_LOG_UNSET) {
        kv_fail(err, cap, "--from-log %s: the log's %s: %s", kv_safe(shown, sizeof shown, file, 200),
                f->name, e.msg);
        return;
    }
    kv_pipeline_error(st, s, o, rc, err, cap);
}

static int finish(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("kvcalc: error writing to standard output\n", stderr);
        return EXIT_WRITE_ERROR;
    }
    return 0;
}

/* Each unmet --require: one line on stderr. Returns 1 when all are met. */
static int requirements_met(const kv_options *o, const kv_report *rep)
{
    int ok = 1;
    char got[FMT_BUF], text[600];
    for (size_t i = 0; i < o->n_require; i++) {
        if (kv_requirement_met(&o->require[i], rep, got, sizeof got))
            continue;
        kv_fprintf(stderr, "kvcalc: requirement failed: %s (got %s)\n",
                text_safe(text, sizeof text, o->require[i].text), got);
        ok = 0;
    }
    return ok;
}

static int write_plot(const char *path, const kv_report *rep)
{
    char shown[600];
    FILE *f = fopen(path, "w");
    if (!f) {
        kv_fprintf(stderr, "kvcalc: %s: cannot write: %s\n", text_safe(shown, sizeof shown, path),
                strerror(errno));
        return -1;
    }
    report_svg(f, rep);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        kv_fprintf(stderr, "kvcalc: %s: error writing the plot\n", text_safe(shown, sizeof shown, path));
        return -1;
    }
    return 0;
}

/* The report's output: --get, or the format's renderer; then --plot and --require. */
static int output(const kv_options *o, const kv_report *rep,
                  void (*const render[FORMAT_COUNT])(FILE *, const kv_report *))
{
    if (o->get) {
        char buf[FMT_BUF], safe[FMT_BUF];
        kv_field_value v = kv_report_value(o->get, rep);
        kv_value_text(buf, sizeof buf, v);
        puts(v.kind == KV_VAL_STR ? text_safe(safe, sizeof safe, buf) : buf);
    } else {
        render[o->format](stdout, rep);
    }
    int rc = finish();
    if (rc == 0 && o->plot && write_plot(o->plot, rep) != 0)
        rc = EXIT_WRITE_ERROR;
    if (rc == 0 && !requirements_met(o, rep))
        rc = EXIT_REQUIREMENT_FAILED;
    return rc;
}

/* --from-log: the log's values as inputs (explicit flags win), two runs - given the log's
 * KV figure, and end to end - and the comparison with the log. */
static int from_log(const kv_options *o, int has_model, kv_model *model)
{
    static void (*const render[FORMAT_COUNT])(FILE *, const kv_report *) = {
        [FORMAT_TEXT] = report_fromlog_text,
        [FORMAT_JSON] = report_fromlog_json,
        [FORMAT_CSV] = report_fromlog_csv,
    };
    static kv_log lg;
    static kv_log_args in;
    static kv_store given, e2e;
    static kv_comparison cmp;
    static kv_spec sa, sb; /* static, as the rest: main's frame stays small (see run) */
    static kv_report rep, rep_b;
    static char err[KV_ERR_BUF];
    int what_if;
    if (kv_fromlog_prepare(o, &lg, &in, &what_if, err, sizeof err) != 0)
        return usage_error(err);
    if (!has_model && !kv_options_given(o, kv_core_param_get(KV_P_LAYERS))) {
        /* the log's model, when kvcalc knows it */
        int rc = kv_fromlog_model(&lg, o->from_log, model, err, sizeof err);
        if (rc != 0)
            return usage_error(err);
        has_model = 1;
    }
    const kv_model *m = has_model ? model : NULL;
    if (kv_build_spec_log(o, m, o->gpu, &in, 1, &sa, err, sizeof err) != 0)
        return usage_error(err);
    if (lg.engine == KV_ENGINE_LLAMACPP && sa.layout.csa_c4 + sa.layout.csa_c128 > 0) {
        /* the comparison's rows are the main, sliding and indexer caches: V4's five caches
         * and three states would be read into them */
        char shown[300];
        kv_fail(err, sizeof err,
                "--from-log %s: kvcalc does not yet compare llama.cpp's DeepSeek-V4 lines "
                "(llama_kv_cache_dsv4's caches and compressor states): give the log's "
                "settings to --engine llama.cpp and put its lines beside the log",
                kv_safe(shown, sizeof shown, o->from_log, 200));
        return usage_error(err);
    }
    kv_status st = kv_pipeline_run(o, &sa, &given, &rep);
    if (st != KV_OK) {
        log_pipeline_error(&given, &sa, o, &in, o->from_log, st, err, sizeof err);
        return usage_error(err);
    }
    const kv_result *b = NULL;
    int end_to_end = kv_fromlog_end_to_end(&lg, o);
    if (end_to_end && kv_build_spec_log(o, m, o->gpu, &in, 0, &sb, err, sizeof err) == 0 &&
        kv_pipeline_run(o, &sb, &e2e, &rep_b) == KV_OK)
        b = &e2e.result;
    kv_log_compare(&lg, what_if, &sa, &given.result, b ? &sb : NULL, b, &cmp);
    cmp.file = o->from_log;
    rep.comparison = &cmp;
    return output(o, &rep, render);
}

/* --from-metrics: the scrape's settings as inputs (explicit flags win), two runs - the
 * settings alone (kvcalc's capacity, when the GPU is known) and on the measured pool with the
 * measured workload (the load kvcalc expects there) - and the scrape's figures beside. */
static int from_metrics(const kv_options *o, int has_model, kv_model *model)
{
    static void (*const render[FORMAT_COUNT])(FILE *, const kv_report *) = {
        [FORMAT_TEXT] = report_metrics_text,
        [FORMAT_JSON] = report_json,
        [FORMAT_CSV] = report_metrics_csv,
    };
    static kv_metrics m;
    static kv_log_args in;
    static kv_options w;
    static kv_store settings, load;
    static kv_metrics_comparison cmp;
    static kv_spec sa, sb; /* static, as the rest: main's frame stays small (see run) */
    static kv_report rep, rep_a;
    static char err[KV_ERR_BUF];
    if (kv_frommetrics_prepare(o, &m, &in, err, sizeof err) != 0)
        return usage_error(err);
    if (!has_model && !kv_options_given(o, kv_core_param_get(KV_P_LAYERS))) {
        if (kv_frommetrics_model(&m, model) != 0) {
            char file[160], name[160];
            kv_fail(err, sizeof err, "--from-metrics %s: give --model: the scrape's model '%s' "
                                     "is not a model kvcalc can load",
                    kv_safe(file, sizeof file, o->from_metrics[0], 120),
                    kv_safe(name, sizeof name, m.scrape[m.n - 1].model, 120));
            return usage_error(err);
        }
        has_model = 1;
    }
    const kv_model *mm = has_model ? model : NULL;
    kv_metrics_measure(&m, o->metrics_interval, &cmp);
    w = *o;
    int lengths = kv_frommetrics_workload(&cmp, &w);
    w.measured_pool_tokens = cmp.capacity_tokens > 0 ? cmp.capacity_tokens : 0;
    /* the settings alone: kvcalc's capacity (a GPU named, else the figure is not shown) */
    int gpu_known = o->gpu || kv_options_given(o, kv_core_param_get(KV_P_GPU_MEM_GIB));
    /* the load runs on the scrape's pool, else on kvcalc's, which needs the GPU: without
     * either no figure of it is shown (they would be the lesson's default GPU's) */
    if (!gpu_known && !(cmp.capacity_tokens > 0))
        lengths = 0;
    static kv_options plain;
    plain = *o;
    const kv_result *ra = NULL;
    if (gpu_known && kv_build_spec_log(&plain, mm, o->gpu, &in, 0, &sa, err, sizeof err) == 0 &&
        kv_pipeline_run(&plain, &sa, &settings, &rep_a) == KV_OK)
        ra = &settings.result;
    /* the measured pool and the measured workload */
    if (kv_build_spec_log(&w, mm, o->gpu, &in, 1, &sb, err, sizeof err) != 0)
        return usage_error(err);
    kv_status st = kv_pipeline_run(lengths ? &w : &plain, &sb, &load, &rep);
    if (st != KV_OK) {
        kv_pipeline_error(&load, &sb, &w, st, err, sizeof err);
        return usage_error(err);
    }
    kv_metrics_predict(&cmp, ra, rep.sched, rep.workload);
    rep.metrics = &cmp;
    rep.metrics_name = o->from_metrics[0];
    static kv_sources sources;
    kv_build_sources(o, mm, o->gpu, &sb, &sources);
    rep.sources = &sources;
    return output(o, &rep, render);
}

static kv_list_format list_format(const kv_options *o)
{
    return o->format == FORMAT_JSON ? LIST_JSON : o->format == FORMAT_CSV ? LIST_CSV : LIST_TEXT;
}

/* Every built-in model: the list the build wrote (modellist.h), as it is. */
static int list_models(const kv_options *o)
{
    kv_list_format f = list_format(o);
    fwrite(kv_model_list_bytes[f], 1, kv_model_list_size[f], stdout);
    return finish();
}

/* What a run writes, in one place and in this order: a page is a page fault at its first
 * write (about 2 us on issue 22's machine, where a plain run took 85 against /bin/true's
 * 49), so what every run writes (the spec, the report, the sources, the head of the options)
 * comes first, and the parts of the larger structs that a run mostly never touches (the
 * options' text buffers, the store's plan table, the model's per-layer rows) after it.
 * Static rather than on the stack: there they spread a 60 KB frame over a dozen pages. */
static struct {
    char out[4096]; /* stdout's buffer (but a sweep's): glibc would malloc one */
    kv_spec spec;
    kv_report rep;
    kv_sources sources;
    kv_options o;
    kv_store store; /* large (the plan table) */
    kv_model model;
} run;

int main(int argc, char **argv)
{
    char err[KV_ERR_BUF];

    if (kv_options_parse(argc, argv, &run.o, err, sizeof err) != 0)
        return usage_error(err);
    /* stdout's buffer, given before anything is written: the first write would otherwise
     * ask the system what stdout is (fstat, ioctl) and malloc a buffer (brk, brk, getrandom,
     * two fresh pages of heap), about 10 us of a plain run's 600 on issue 22's machine.
     * Fully buffered, as glibc buffers a file or a pipe: every path flushes stdout before
     * it writes to stderr (finish). A sweep's millions of short rows: one write a megabyte. */
    if (run.o.action == ACTION_RUN && !run.o.from_log && run.o.n_metrics == 0 &&
        run.o.n_sweep > 0) {
        static char sweep_buf[1 << 20];
        setvbuf(stdout, sweep_buf, _IOFBF, sizeof sweep_buf);
    } else {
        setvbuf(stdout, run.out, _IOFBF, sizeof run.out);
    }
    switch (run.o.action) {
    case ACTION_HELP:
        kv_help(stdout, run.o.help_section);
        return finish();
    case ACTION_LIST_GPUS:
        report_gpu_list(stdout, list_format(&run.o));
        return finish();
    case ACTION_LIST_MODELS:
        return list_models(&run.o);
    case ACTION_VERSION:
        puts("kvcalc " KVCALC_VERSION);
        return finish();
    case ACTION_RUN:
        break;
    }
    int has_model = run.o.config_path || run.o.model_name;
    if (has_model &&
        kv_model_load(run.o.config_path, run.o.model_name, &run.model, err, sizeof err) != 0)
        return usage_error(err);
    if (run.o.n_lora > 0) {
        static kv_gguf_info adapter;
        static kv_lora_files files;
        for (size_t i = 0; i < run.o.n_lora; i++) {
            if (kv_gguf_adapter_load_file(run.o.lora[i], &adapter, err, sizeof err) != KV_OK) {
                static char msg[KV_ERR_BUF];
                kv_snprintf(msg, sizeof msg, "%s", err);
                kv_fail(err, sizeof err, "--lora: %s", msg);
                return usage_error(err);
            }
            kv_lora_files_add(&adapter, run.o.lora[i], &files);
        }
        run.o.lora_files = &files;
    }
    if (run.o.draft_name) {
        static kv_model draft;
        static kv_draft summary;
        if (kv_draft_load(&run.o, &draft, &summary, err, sizeof err) != 0)
            return usage_error(err);
        run.o.draft = &summary;
    }
    if (run.o.trace_path) {
        static kv_trace trace;
        if (kv_trace_load(&run.o, &trace, err, sizeof err) != 0)
            return usage_error(err);
        run.o.trace = &trace;
    }
    if (run.o.from_log)
        return from_log(&run.o, has_model, &run.model);
    if (run.o.n_metrics > 0)
        return from_metrics(&run.o, has_model, &run.model);
    if (run.o.n_sweep > 0) /* stdout has the sweep's buffer */
        return kv_sweep_run(&run.o, has_model ? &run.model : NULL, stdout);
    if (kv_build_spec(&run.o, has_model ? &run.model : NULL, run.o.gpu, &run.spec, err,
                      sizeof err) != 0)
        return usage_error(err);
    kv_status st = kv_pipeline_run(&run.o, &run.spec, &run.store, &run.rep);
    if (st != KV_OK) {
        kv_pipeline_error(&run.store, &run.spec, &run.o, st, err, sizeof err);
        return usage_error(err);
    }
    kv_build_sources(&run.o, has_model ? &run.model : NULL, run.o.gpu, &run.spec, &run.sources);
    if (run.rep.workload && run.rep.workload->step_estimated)
        run.sources.step = SOURCE_ESTIMATE; /* the GPU's memory-bandwidth roofline */
    run.rep.sources = &run.sources;
    return output(&run.o, &run.rep, renderers);
}
