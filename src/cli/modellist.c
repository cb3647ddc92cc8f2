/*
 * modellist.c - the list of built-in models (see modellist.h).
 */
#include "kvprint.h"
#include "modellist.h"

#include "kvcalc.h"

#include <stdio.h>

int kv_model_list_write(FILE *out, kv_list_format f, char *err, size_t errcap)
{
    report_model_list_header(out, f);
    for (size_t i = 0; i < kv_model_preset_count(); i++) {
        const kv_model_preset *m = kv_model_preset_at(i);
        kv_model_info info;
        kv_spec s;
        kv_result r;
        char why[1024] = "";
        kv_status st = kv_model_preset_spec(m, &s, &info, why, sizeof why);
        if (st == KV_OK && s.arch.unknown[0]) { /* weights it cannot count: "-", the KV alone */
            s.arch.unknown[0] = '\0';
            s.params_b = 0;
        }
        if (st != KV_OK || kv_compute(&s, &r) != KV_OK) {
            kv_snprintf(err, errcap, "built-in model %s does not load: %s", m->id, why);
            return -1;
        }
        report_model_row(out, f, i, m->alias, &s, &r);
    }
    report_model_list_footer(out, f);
    return 0;
}
