/*
 * config_json.c - what a Hugging Face config.json says about the KV cache.
 *
 * The JSON is tokenized by json.c (strict, bounded); this file only looks fields up and
 * checks them. What it knows about config files comes from ../docs/models.md:
 *   - the language model may sit under text_config or llm_config (multimodal models);
 *   - KV heads have four names and a Falcon-era multi_query flag;
 *   - an explicit head_dim wins over hidden_size / num_attention_heads;
 *   - torch_dtype (or dtype) is the serving dtype, quantization_config shrinks weights;
 *   - families fill absent keys with defaults (Gemma-3) and lay out their layers in their
 *     own ways (Gemma-2/3 sliding patterns, Llama-4 chunks, Jamba / Qwen3-Next hybrids).
 * Family quirks are rows of a table, not branches. Every error names the file, the line
 * and column of the offending value, the key, and what was expected.
 */
#include "config.h"

#include "kvcalc_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmath.h"
#include "kvprint.h"

#define MAX_COUNT 1000000          /* layers, heads, dims: beyond this a config is absurd */
#define MAX_WIDTH 100000000        /* hidden, intermediate and vocabulary sizes */
#define MAX_TOKENS 1000000000000LL /* windows, chunks, positions */

/* ---- model families ------------------------------------------------------------------ */

typedef enum {
    RULE_NONE,      /* sliding_window / use_sliding_window decide */
    RULE_ALTERNATE, /* Gemma-2: layer i slides when i is even */
    RULE_EVERY_NTH, /* Gemma-3: every sliding_window_pattern-th layer is global */
    RULE_CHUNKED    /* Llama-4: layer i is full when (i + 1) % 4 == 0, else chunked */
} layout_rule;

typedef struct {
    const char *model_type;
    layout_rule rule;
    int64_t heads, kv_heads, head_dim; /* defaults for absent keys; 0 = none */
    int64_t vocab, window, pattern, chunk, max_context;
    int tie;         /* tie_word_embeddings when absent */
    int qkv_bias;    /* q/k/v projections carry biases whatever attention_bias says */
    int expert_bias; /* MoE experts and router carry biases */
} family;

static const family families[] = {
    /* type           rule            heads kv  hd   vocab   win   pat chunk  maxctx  tie qkv eb */
    {"gemma3_text", RULE_EVERY_NTH, 8, 4, 256, 262208, 4096, 6, 0, 131072, 1, 0, 0},
    {"gemma3", RULE_EVERY_NTH, 8, 4, 256, 262208, 4096, 6, 0, 131072, 1, 0, 0},
    {"gemma2", RULE_ALTERNATE, 0, 0, 256, 256000, 4096, 0, 0, 8192, 1, 0, 0},
    {"gemma", RULE_NONE, 0, 0, 256, 256000, 0, 0, 0, 8192, 1, 0, 0},
    {"llama4_text", RULE_CHUNKED, 0, 0, 0, 0, 0, 0, 8192, 0, 0, 0, 0},
    {"llama4", RULE_CHUNKED, 0, 0, 0, 0, 0, 0, 8192, 0, 0, 0, 0},
    {"qwen2", RULE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"qwen2_moe", RULE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"gpt_oss", RULE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    /* SmolLM3's config.json has no tie_word_embeddings; its config class ties them (and only
     * tied, 3.08B, matches the published size) */
    {"smollm3", RULE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
    /* LFM2's config class ties them too (Lfm2Config tie_word_embeddings=True), and LFM2-1.2B's
     * first config.json says nothing: 1,170,340,608 parameters only tied */
    {"lfm2", RULE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
};
static const family no_family = {"", RULE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

/* torch_dtype names -> the dtype a server runs them in. fp32 checkpoints are served in
 * 16-bit by default (vLLM --dtype auto), so their KV cache is 2 bytes per element. */
static const struct {
    const char *name;
    kv_dtype dtype;
} torch_dtypes[] = {
    {"bfloat16", KV_DTYPE_BF16}, {"float16", KV_DTYPE_FP16}, {"half", KV_DTYPE_FP16},
    {"float32", KV_DTYPE_FP16},  {"float", KV_DTYPE_FP16},
};

/* quantization_config.quant_method -> weight dtype (KV_DTYPE_COUNT = decide by "bits"), which
 * weights it covers, and its real size when that is not a plain dtype's. Embeddings, the
 * output head and norms stay in the activation dtype; gpt-oss's mxfp4 covers only the MoE
 * experts (4-bit values + one 8-bit scale per 32 = 4.25 bits). */
static const struct {
    const char *method;
    kv_dtype dtype;
    kv_quant_scope scope;
    double bytes;
} quant_methods[] = {
    {"fp8", KV_DTYPE_FP8, KV_QUANT_LINEAR, 0},
    {"fbgemm_fp8", KV_DTYPE_FP8, KV_QUANT_LINEAR, 0},
    {"mxfp4", KV_DTYPE_INT4, KV_QUANT_EXPERTS, 0.53125},
    {"awq", KV_DTYPE_COUNT, KV_QUANT_LINEAR, 0},
    {"gptq", KV_DTYPE_COUNT, KV_QUANT_LINEAR, 0},
    {"bitsandbytes", KV_DTYPE_COUNT, KV_QUANT_LINEAR, 0},
    {"compressed-tensors", KV_DTYPE_COUNT, KV_QUANT_LINEAR, 0},
};

/* layer_types entries -> layer kinds */
static const struct {
    const char *name;
    kv_layer_kind kind;
} layer_type_names[] = {
    {"full_attention", KV_LAYER_FULL},     {"attention", KV_LAYER_FULL},
    {"sliding_attention", KV_LAYER_SLIDING}, {"chunked_attention", KV_LAYER_CHUNKED},
    {"linear_attention", KV_LAYER_STATE},  {"mamba", KV_LAYER_STATE},
    {"mamba2", KV_LAYER_STATE},            {"conv", KV_LAYER_STATE}, /* LFM2 short conv */
};

/* Parts of layers by family (transformers modeling files, checked against the checkpoints'
 * own counts in data/models/CHECKPOINTS.tsv): q_norm / k_norm of head_dim each (Qwen3 and
 * later Qwens, Gemma-3), one sink logit per head (gpt-oss), an output gate in q_proj
 * (Qwen3-Next; Qwen3.5 says attn_output_gate), and MTP layers that store their own
 * embedding and output head (DeepSeek-V3's model.layers.61.embed_tokens and
 * shared_head.head, GLM-4.5's; GLM-5's and MiMo's share the model's). */
static const struct {
    const char *model_type;
    int qk_norm, sinks, gate, mtp_embeddings;
    int64_t mtp_layers; /* MTP layers the checkpoint holds when config.json names none */
    int64_t norms;      /* norms per layer: 4 for the Gemmas (pre/post attention and MLP) */
} family_traits[] = {
    /* model_type          qk_norm sinks gate mtp_emb mtp norms */
    {"qwen3", 1, 0, 0, 0, 0, 2},
    {"qwen3_moe", 1, 0, 0, 0, 0, 2},
    /* Qwen3-Next's checkpoint holds one MTP layer (mtp.*) its config.json does not declare:
     * 81,324,862,720 parameters = 79,674,292,992 + that layer (data/models/CHECKPOINTS.tsv) */
    {"qwen3_next", 1, 0, 1, 0, 1, 2},
    {"qwen3_5_text", 1, 0, 0, 0, 0, 2},
    {"qwen3_5_moe_text", 1, 0, 0, 0, 0, 2},
    {"qwen3_vl_text", 1, 0, 0, 0, 0, 2},
    {"qwen3_vl_moe_text", 1, 0, 0, 0, 0, 2},
    {"gemma2", 0, 0, 0, 0, 0, 4},
    {"gemma3_text", 1, 0, 0, 0, 0, 4},
    {"gemma3", 1, 0, 0, 0, 0, 4},
    {"gemma4_text", 1, 0, 0, 0, 0, 4},
    {"gpt_oss", 0, 1, 0, 0, 0, 2},
    {"lfm2", 1, 0, 0, 0, 0, 2},
    {"deepseek_v3", 0, 0, 0, 1, 0, 2},
    {"deepseek_v32", 0, 0, 0, 1, 0, 2},
    {"glm4_moe", 0, 0, 0, 1, 0, 2},
    {"glm4_shared_moe", 0, 0, 0, 1, 0, 2}, /* a GLM-4.5 derivative's spelling */
    /* OLMo-2 and -3: q_norm of heads x head_dim, k_norm of KV heads x head_dim (qk_norm 2):
     * 393,216 parameters in 64 layers of OLMo-2-32B and Olmo-3-32B, the checkpoints' own
     * counts (data/models/CHECKPOINTS.tsv) */
    {"olmo2", 2, 0, 0, 0, 0, 2},
    {"olmo3", 2, 0, 0, 0, 0, 2},
};

/* ---- lookups with checks ---------------------------------------------------------------- */

/* The keys of one object by hash (issue 22: a config is asked for a hundred keys, and its top
 * object has dozens; kv_json_find looks at each of them every time). Each distinct key keeps
 * its last occurrence, as kv_json_find answers; 0 slots: no index, kv_json_find is asked. */
typedef struct {
    size_t obj;
    size_t *slot; /* key token + 1; 0: empty */
    size_t *hash; /* the slot's key's hash */
    size_t mask;  /* slots - 1 (a power of two), or no index when slot is NULL */
} key_index;

typedef struct {
    const char *text;
    size_t len;
    const char *file;
    kv_json_tok *toks;
    size_t root, model; /* the top object, and the language-model object in it */
    char *err;
    size_t errcap;
    key_index ix[2];    /* of root and of model */
} cfg;

#define KEY_MAX 256 /* a key decoded for the index: longer ones leave the object unindexed */

/* A key's hash from its length and its first and last eight bytes (keys differ there; equal
 * hashes are told apart by kv_json_string_eq). */
static size_t key_hash(const char *s, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else {
        memcpy(&a, s, n);
    }
    uint64_t h = (a * 0x9E3779B97F4A7C15u) ^ (b * 0xC2B2AE3D27D4EB4Fu) ^ n;
    return (size_t)(h ^ (h >> 29));
}

/* Key token k decoded into buf (or its bytes as written when it has no escape): its bytes and
 * length, or NULL when it is too long or holds a NUL (such a key equals no C string: it is
 * never found, so it is left out). */
static const char *key_bytes(const cfg *c, size_t k, char *buf, size_t *n)
{
    const kv_json_tok *t = &c->toks[k];
    const char *raw = c->text + t->start;
    size_t rl = t->end - t->start;
    if (!memchr(raw, '\\', rl)) {
        *n = rl;
        return raw;
    }
    *n = kv_json_string_decode(c->text, t, buf, KEY_MAX);
    return *n < KEY_MAX && strlen(buf) == *n ? buf : NULL;
}

static void index_free(key_index *x)
{
    free(x->slot);
    free(x->hash);
    x->slot = x->hash = NULL;
}

/* Indexes object obj's keys; no index (and so kv_json_find) when one is too long or memory
 * is short. */
static void index_build(cfg *c, key_index *x, size_t obj)
{
    memset(x, 0, sizeof *x);
    x->obj = obj;
    if (c->toks[obj].type != KV_JSON_OBJECT)
        return;
    size_t n = c->toks[obj].size, slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    x->slot = calloc(slots, sizeof *x->slot);
    x->hash = malloc(slots * sizeof *x->hash);
    if (!x->slot || !x->hash) {
        index_free(x);
        return;
    }
    x->mask = slots - 1;
    char buf[KEY_MAX], other[KEY_MAX];
    size_t k = obj + 1;
    for (size_t m = 0; m < n; m++, k = c->toks[k + 1].next) {
        size_t len;
        const char *key = key_bytes(c, k, buf, &len);
        if (!key) {
            if (c->toks[k].end - c->toks[k].start >= KEY_MAX) { /* too long to index */
                index_free(x);
                return;
            }
            continue; /* a NUL in it: never found */
        }
        size_t h = key_hash(key, len), i = h & x->mask;
        for (; x->slot[i]; i = (i + 1) & x->mask) {
            size_t olen, ok = x->slot[i] - 1;
            const char *o = x->hash[i] == h ? key_bytes(c, ok, other, &olen) : NULL;
            if (o && olen == len && memcmp(o, key, len) == 0)
                break; /* the same key again: the later one wins */
        }
        x->slot[i] = k + 1;
        x->hash[i] = h;
    }
}

/* kv_json_find(obj, key), through the index when obj has one. */
static size_t lookup(const cfg *c, size_t obj, const char *key)
{
    const key_index *x = obj == c->ix[0].obj ? &c->ix[0] : obj == c->ix[1].obj ? &c->ix[1] : NULL;
    if (!x || !x->slot)
        return kv_json_find(c->text, c->toks, obj, key);
    size_t len = strlen(key), h = key_hash(key, len);
    for (size_t i = h & x->mask; x->slot[i]; i = (i + 1) & x->mask)
        if (x->hash[i] == h && kv_json_string_eq(c->text, &c->toks[x->slot[i] - 1], key))
            return x->slot[i];
    return 0;
}

static int cfg_fail(cfg *c, size_t tok, const char *fmt, ...)
{
    size_t line, col;
    kv_json_locate(c->text, c->len, c->toks[tok].start - (c->toks[tok].type == KV_JSON_STRING),
                &line, &col);
    int n = kv_snprintf(c->err, c->errcap, "%s:%zu:%zu: ", c->file, line, col);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < c->errcap)
        kv_vsnprintf(c->err + n, c->errcap - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The value of key in the language-model object, else in the top object; 0 if absent or
 * null (JSON null means "not set" in these files). */
static size_t find(cfg *c, const char *key)
{
    size_t v = lookup(c, c->model, key);
    if (v == 0 && c->model != c->root)
        v = lookup(c, c->root, key);
    return (v && c->toks[v].type != KV_JSON_NULL) ? v : 0;
}

static const char *type_name(kv_json_type t)
{
    static const char *const names[] = {"an object", "an array", "a string", "a number",
                                        "true",      "false",    "null"};
    return names[t];
}

/* What a value looks like, for messages: the number as written, or its type. */
static const char *shown(cfg *c, size_t v, char *buf, size_t cap)
{
    const kv_json_tok *t = &c->toks[v];
    if (t->type != KV_JSON_NUMBER)
        return type_name(t->type);
    size_t n = t->end - t->start;
    kv_snprintf(buf, cap, "%.*s%s", (int)(n > 40 ? 40 : n), c->text + t->start, n > 40 ? "..." : "");
    return buf;
}

/* An integer value in [lo, hi] from token v. Returns 0 and sets *out, or -1 (error set). */
static int int_value(cfg *c, size_t v, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    char buf[64];
    double d = c->toks[v].type == KV_JSON_NUMBER ? kv_json_number(c->text, &c->toks[v]) : NAN;
    if (!(d == kvm_floor(d)) || d < (double)lo || d > (double)hi)
        return cfg_fail(c, v, "%s: expected an integer from %lld to %lld, got %s", key,
                        (long long)lo, (long long)hi, shown(c, v, buf, sizeof buf));
    *out = (int64_t)d;
    return 0;
}

/* Optional integer key: 1 = read into *out, 0 = absent (*out untouched), -1 = error. */
static int get_int(cfg *c, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    size_t v = find(c, key);
    if (!v)
        return 0;
    return int_value(c, v, key, lo, hi, out) == 0 ? 1 : -1;
}

static int get_bool(cfg *c, const char *key, int *out)
{
    size_t v = find(c, key);
    if (!v)
        return 0;
    kv_json_type t = c->toks[v].type;
    if (t != KV_JSON_TRUE && t != KV_JSON_FALSE)
        return cfg_fail(c, v, "%s: expected true or false, got %s", key, type_name(t));
    *out = (t == KV_JSON_TRUE);
    return 1;
}

/* Optional string key decoded (escapes to UTF-8, cut to fit) into buf. Control characters
 * are kept: whoever shows the string makes it safe. */
static int get_string(cfg *c, const char *key, char *buf, size_t cap)
{
    size_t v = find(c, key);
    if (!v)
        return 0;
    const kv_json_tok *t = &c->toks[v];
    if (t->type != KV_JSON_STRING)
        return cfg_fail(c, v, "%s: expected a string, got %s", key, type_name(t->type));
    size_t n = kv_json_string_decode(c->text, t, buf, cap);
    if (cap > 0 && n < cap && strlen(buf) != n) /* a \u0000 would end it unseen */
        return cfg_fail(c, v, "%s: holds \\u0000 (NUL), which kvcalc cannot read", key);
    return 1;
}

/* The first present key of a list of aliases. */
static int get_int_alias(cfg *c, const char *const *keys, int64_t lo, int64_t hi, int64_t *out)
{
    for (; *keys; keys++) {
        int rc = get_int(c, *keys, lo, hi, out);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ---- the pieces ------------------------------------------------------------------------- */

static const family *find_family(const char *model_type)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].model_type, model_type) == 0)
            return &families[i];
    return &no_family;
}

static int read_dtypes(cfg *c, kv_spec *s)
{
    char name[64] = "";
    kv_dtype act = KV_DTYPE_BF16; /* absent: bf16, what current checkpoints ship */
    int rc = get_string(c, "torch_dtype", name, sizeof name);
    if (rc == 0)
        rc = get_string(c, "dtype", name, sizeof name);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        size_t i, n = sizeof torch_dtypes / sizeof torch_dtypes[0];
        for (i = 0; i < n && strcmp(torch_dtypes[i].name, name) != 0; i++)
            ;
        if (i == n) { /* quoted as written in the file: escapes stay escapes, one line */
            size_t v = find(c, "torch_dtype") ? find(c, "torch_dtype") : find(c, "dtype");
            size_t len = c->toks[v].end - c->toks[v].start;
            return cfg_fail(c, v, "torch_dtype: unknown dtype '%.*s' (expected bfloat16, "
                                  "float16 or float32)", (int)(len > 40 ? 40 : len),
                            c->text + c->toks[v].start);
        }
        act = torch_dtypes[i].dtype;
    }
    s->dtype = act;
    s->weight_dtype = act;
    s->arch.base_dtype = act;
    s->arch.quant_scope = KV_QUANT_ALL;
    s->arch.quant_bytes = 0;

    size_t q = lookup(c, c->root, "quantization_config");
    if (!q && c->model != c->root)
        q = lookup(c, c->model, "quantization_config");
    if (!q || c->toks[q].type == KV_JSON_NULL)
        return 0;
    if (c->toks[q].type != KV_JSON_OBJECT)
        return cfg_fail(c, q, "quantization_config: expected an object, got %s",
                        type_name(c->toks[q].type));
    size_t m = lookup(c, q, "quant_method");
    size_t b = lookup(c, q, "bits");
    kv_dtype w = KV_DTYPE_COUNT;
    kv_quant_scope scope = KV_QUANT_LINEAR; /* "bits" without a method: linear layers */
    double bytes = 0;
    int known = !(m && c->toks[m].type != KV_JSON_NULL); /* no method: "bits" alone decides */
    if (m && c->toks[m].type == KV_JSON_STRING)
        for (size_t i = 0; i < sizeof quant_methods / sizeof quant_methods[0]; i++)
            if (kv_json_string_eq(c->text, &c->toks[m], quant_methods[i].method)) {
                w = quant_methods[i].dtype;
                scope = quant_methods[i].scope;
                bytes = quant_methods[i].bytes;
                known = 1;
            }
    if (!known) {
        /* a method kvcalc does not know: its size is not guessed, even from "bits" (its
         * scales, groups and the layers it covers are the method's own) */
        const kv_json_tok *t = &c->toks[m];
        size_t len = t->end - t->start;
        if (t->type == KV_JSON_STRING) /* as written in the file: escapes stay escapes */
            kv_snprintf(s->arch.unknown, sizeof s->arch.unknown,
                     "quantization_config.quant_method '%.*s%s' is unknown",
                     (int)(len > 24 ? 24 : len), c->text + t->start, len > 24 ? "..." : "");
        else
            kv_snprintf(s->arch.unknown, sizeof s->arch.unknown,
                     "quantization_config.quant_method is %s, not a method's name",
                     type_name(t->type));
        return 0;
    }
    /* compressed-tensors files (Kimi-K2.5) give the width per group, not as "bits":
     * config_groups.<first group>.weights.num_bits */
    size_t groups = lookup(c, q, "config_groups");
    if (w == KV_DTYPE_COUNT && (!b || c->toks[b].type == KV_JSON_NULL) && groups &&
        c->toks[groups].type == KV_JSON_OBJECT && c->toks[groups].size > 0) {
        size_t wt = lookup(c, groups + 2, "weights");
        b = wt ? lookup(c, wt, "num_bits") : 0;
    }
    if (w == KV_DTYPE_COUNT && b && c->toks[b].type != KV_JSON_NULL) {
        int64_t bits;
        if (int_value(c, b, "quantization_config.bits", 1, 64, &bits) < 0)
            return -1;
        w = bits <= 4 ? KV_DTYPE_INT4 : bits <= 8 ? KV_DTYPE_INT8 : act;
    }
    if (w == KV_DTYPE_COUNT && m && c->toks[m].type == KV_JSON_STRING) {
        /* a method kvcalc knows whose width the file does not give ("bits") */
        size_t len = c->toks[m].end - c->toks[m].start;
        kv_snprintf(s->arch.unknown, sizeof s->arch.unknown, "quantization_config.quant_method "
                 "'%.*s' without bits", (int)(len > 24 ? 24 : len), c->text + c->toks[m].start);
    }
    if (w != KV_DTYPE_COUNT && w != act) {
        s->weight_dtype = w;
        s->arch.quant_scope = scope;
        s->arch.quant_bytes = bytes;
    }
    return 0;
}

static int read_geometry(cfg *c, const family *fam, kv_spec *s, kv_arch *a)
{
    static const char *const layer_keys[] = {"num_hidden_layers", "num_layers", "n_layer", NULL};
    static const char *const head_keys[] = {"num_attention_heads", "n_head", NULL};
    static const char *const kv_keys[] = {"n_head_kv", "num_kv_heads", "num_key_value_heads",
                                          "multi_query_group_num", NULL};
    int64_t layers = 0, heads = fam->heads, kv = 0, head_dim = fam->head_dim;
    int rc = get_int_alias(c, layer_keys, 1, MAX_COUNT, &layers);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return cfg_fail(c, c->model, "num_hidden_layers: missing (also looked for num_layers "
                                     "and n_layer)");
    if (get_int_alias(c, head_keys, 1, MAX_COUNT, &heads) < 0)
        return -1;
    if (heads == 0)
        return cfg_fail(c, c->model, "num_attention_heads: missing");
    rc = get_int_alias(c, kv_keys, 1, MAX_COUNT, &kv);
    if (rc < 0)
        return -1;
    if (rc == 0)
        kv = fam->kv_heads ? fam->kv_heads : heads; /* no KV-head key: MHA */
    int multi_query = 0, new_arch = 0;
    if (get_bool(c, "multi_query", &multi_query) < 0 ||
        get_bool(c, "new_decoder_architecture", &new_arch) < 0)
        return -1;
    if (multi_query && !new_arch)
        kv = 1; /* original Falcon: one KV head, whatever a re-saved num_kv_heads says */
    /* grouped-query attention shares each KV head among as many query heads (transformers'
     * repeat_kv: n_rep = heads / kv_heads): a count that does not divide is no model */
    if (rc == 1 && heads % kv != 0) {
        size_t v = 0, i = 0;
        for (; kv_keys[i] && !(v = find(c, kv_keys[i])); i++)
            ;
        return cfg_fail(c, v, "%s: %lld does not divide num_attention_heads %lld (each KV head "
                              "serves an equal group of query heads)",
                        kv_keys[i] ? kv_keys[i] : "num_key_value_heads", (long long)kv,
                        (long long)heads);
    }

    int64_t hidden = 0;
    if (get_int(c, "hidden_size", 1, MAX_WIDTH, &hidden) < 0)
        return -1;
    rc = get_int(c, "head_dim", 1, MAX_COUNT, &head_dim);
    if (rc == 0)
        rc = get_int(c, "kv_channels", 1, MAX_COUNT, &head_dim);
    if (rc < 0)
        return -1;
    if (rc == 0 && fam->head_dim == 0) {
        if (hidden == 0)
            return cfg_fail(c, c->model, "head_dim: missing, and no hidden_size to derive it");
        if (hidden % heads != 0)
            return cfg_fail(c, find(c, "hidden_size"),
                            "hidden_size %lld is not a multiple of num_attention_heads %lld; "
                            "give head_dim",
                            (long long)hidden, (long long)heads);
        head_dim = hidden / heads;
    }
    s->layers = layers;
    s->kv_heads = kv;
    s->head_dim = head_dim;
    a->hidden = hidden;
    a->heads = heads;
    return 0;
}

static int read_mla(cfg *c, kv_spec *s, kv_arch *a)
{
    int64_t rank = 0, rope = 0;
    int rc = get_int(c, "kv_lora_rank", 1, MAX_COUNT, &rank);
    if (rc <= 0)
        return rc;
    if (get_int(c, "qk_rope_head_dim", 0, MAX_COUNT, &rope) < 0 ||
        get_int(c, "q_lora_rank", 0, MAX_COUNT, &a->q_lora_rank) < 0 ||
        get_int(c, "qk_nope_head_dim", 0, MAX_COUNT, &a->qk_nope_dim) < 0 ||
        get_int(c, "v_head_dim", 0, MAX_COUNT, &a->v_head_dim) < 0 ||
        get_int(c, "index_head_dim", 0, MAX_COUNT, &s->layout.index_dim) < 0)
        return -1;
    s->layout.mla = 1;
    s->layout.mla_latent = rank + rope; /* one latent vector: compressed KV + rope key */
    a->kv_lora_rank = rank;
    a->qk_rope_dim = rope;
    return 0;
}

static void fill_pattern(kv_layout *l, size_t period, size_t special, kv_layer_kind usual,
                         kv_layer_kind odd_one)
{
    l->pattern_len = period;
    for (size_t i = 0; i < period; i++)
        l->pattern[i] = (unsigned char)(i == special ? odd_one : usual);
}

/* layer_types: one entry per layer, the most direct truth when present. */
static int read_layer_types(cfg *c, size_t v, kv_spec *s)
{
    const kv_json_tok *arr = &c->toks[v];
    if (arr->type != KV_JSON_ARRAY)
        return cfg_fail(c, v, "layer_types: expected an array of strings, got %s",
                        type_name(arr->type));
    if (arr->size == 0 || arr->size > KV_MAX_PATTERN)
        return cfg_fail(c, v, "layer_types: expected 1 to %d entries, got %zu", KV_MAX_PATTERN,
                        arr->size);
    if ((int64_t)arr->size != s->layers)
        return cfg_fail(c, v, "layer_types: %zu entries for %lld layers", arr->size,
                        (long long)s->layers);
    size_t e = v + 1;
    for (size_t i = 0; i < arr->size; i++, e = c->toks[e].next) {
        size_t k, n = sizeof layer_type_names / sizeof layer_type_names[0];
        for (k = 0; k < n; k++)
            if (c->toks[e].type == KV_JSON_STRING &&
                kv_json_string_eq(c->text, &c->toks[e], layer_type_names[k].name))
                break;
        if (k == n)
            return cfg_fail(c, e, "layer_types: unknown layer type (expected full_attention, "
                                  "sliding_attention, chunked_attention, linear_attention, "
                                  "mamba or conv)");
        s->layout.pattern[i] = (unsigned char)layer_type_names[k].kind;
    }
    s->layout.pattern_len = arr->size;
    return 0;
}

/* Llama-4's no_rope_layers: 1 = RoPE layer with chunked attention, 0 = global NoPE layer. */
static int read_no_rope_layers(cfg *c, size_t v, kv_spec *s)
{
    const kv_json_tok *arr = &c->toks[v];
    if (arr->type != KV_JSON_ARRAY || (int64_t)arr->size != s->layers || arr->size > KV_MAX_PATTERN)
        return cfg_fail(c, v, "no_rope_layers: expected an array of %lld 0/1 entries",
                        (long long)s->layers);
    size_t e = v + 1;
    for (size_t i = 0; i < arr->size; i++, e = c->toks[e].next) {
        int64_t flag;
        if (int_value(c, e, "no_rope_layers", 0, 1, &flag) < 0)
            return -1;
        s->layout.pattern[i] = (unsigned char)(flag ? KV_LAYER_CHUNKED : KV_LAYER_FULL);
    }
    s->layout.pattern_len = arr->size;
    return 0;
}

/* Kimi-Linear's linear_attn_config: kda_layers and full_attn_layers, 1-based (its
 * configuration_kimi.py: is_kda_layer(i) = i + 1 in kda_layers); a layer in neither list is
 * refused, not guessed. */
static int read_kda_layers(cfg *c, size_t obj, kv_spec *s)
{
    static const char *const lists[] = {"kda_layers", "full_attn_layers"};
    static const unsigned char kinds[] = {KV_LAYER_STATE, KV_LAYER_FULL};
    if (c->toks[obj].type != KV_JSON_OBJECT || s->layers > KV_MAX_PATTERN)
        return cfg_fail(c, obj, "linear_attn_config: expected an object with kda_layers and "
                                "full_attn_layers");
    unsigned char seen[KV_MAX_PATTERN] = {0};
    for (size_t k = 0; k < 2; k++) {
        size_t v = lookup(c, obj, lists[k]);
        if (!v || c->toks[v].type != KV_JSON_ARRAY)
            return cfg_fail(c, v ? v : obj, "linear_attn_config.%s: expected an array of layer "
                                            "numbers from 1 to %lld", lists[k], (long long)s->layers);
        size_t e = v + 1;
        for (size_t i = 0; i < c->toks[v].size; i++, e = c->toks[e].next) {
            int64_t at = 0; /* (set by int_value; GCC -O3 cannot see it) */
            if (int_value(c, e, lists[k], 1, s->layers, &at) < 0)
                return -1;
            if (seen[at - 1])
                return cfg_fail(c, e, "linear_attn_config.%s: layer %lld is listed twice",
                                lists[k], (long long)at);
            seen[at - 1] = 1;
            s->layout.pattern[at - 1] = kinds[k];
        }
    }
    for (int64_t i = 0; i < s->layers; i++)
        if (!seen[i])
            return cfg_fail(c, obj, "linear_attn_config: layer %lld is in neither kda_layers "
                                    "nor full_attn_layers", (long long)(i + 1));
    s->layout.pattern_len = (size_t)s->layers;
    return 0;
}

/* LFM2's original full_attn_idxs (the configs of July 2025, before layer_types): the listed
 * layers are attention, the others short convolutions - transformers' Lfm2Config builds
 * layer_types so ("full_attention" if i in full_attn_idxs else "conv"). */
static int read_full_attn_idxs(cfg *c, size_t v, kv_spec *s)
{
    const kv_json_tok *arr = &c->toks[v];
    if (arr->type != KV_JSON_ARRAY || s->layers > KV_MAX_PATTERN)
        return cfg_fail(c, v, "full_attn_idxs: expected an array of layer numbers below %lld",
                        (long long)s->layers);
    for (int64_t i = 0; i < s->layers; i++)
        s->layout.pattern[i] = KV_LAYER_STATE;
    size_t e = v + 1;
    for (size_t i = 0; i < arr->size; i++, e = c->toks[e].next) {
        int64_t at;
        if (int_value(c, e, "full_attn_idxs", 0, s->layers - 1, &at) < 0)
            return -1;
        s->layout.pattern[at] = KV_LAYER_FULL;
    }
    s->layout.pattern_len = (size_t)s->layers;
    return 0;
}

/* Nemotron-H's hybrid_override_pattern: one character per block of num_hidden_layers, 'M' a
 * Mamba-2 mixer, '*' attention, '-' a dense MLP and 'E' an MoE block. MLP and MoE blocks
 * keep neither cache nor state, so they are left out of the layers (as the GGUF reader does
 * with nemotron_h's FFN blocks): Nemotron-3-Nano's 52 blocks are 23 M + 6 * + 23 E, 29 layers. */
static int read_hybrid_pattern(cfg *c, size_t v, kv_spec *s)
{
    const kv_json_tok *t = &c->toks[v];
    size_t n = t->end - t->start, kept = 0;
    if (t->type != KV_JSON_STRING || (int64_t)n != s->layers)
        return cfg_fail(c, v, "hybrid_override_pattern: expected a string of %lld characters",
                        (long long)s->layers);
    for (size_t i = 0; i < n; i++) {
        char ch = c->text[t->start + i];
        /* every block is counted for the weights (params.c), one kind per block */
        s->arch.blocks_mixer += ch == 'M';
        s->arch.blocks_attention += ch == '*';
        s->arch.blocks_mlp += ch == '-';
        s->arch.blocks_moe += ch == 'E';
        if (ch == 'M' || ch == '*') {
            if (kept == KV_MAX_PATTERN)
                return cfg_fail(c, v, "hybrid_override_pattern: more than %d layers",
                                KV_MAX_PATTERN);
            s->layout.pattern[kept++] = (unsigned char)(ch == 'M' ? KV_LAYER_STATE : KV_LAYER_FULL);
        } else if (ch != '-' && ch != 'E') {
            return cfg_fail(c, v, "hybrid_override_pattern: unknown block '%c' (expected M, *, "
                                  "- or E)", ch);
        }
    }
    if (kept == 0)
        return cfg_fail(c, v, "hybrid_override_pattern: no attention or Mamba block");
    s->layers = (int64_t)kept;
    s->layout.pattern_len = kept;
    return 0;
}

/* Qwen2-style: use_sliding_window with max_window_layers (layers from there on slide). */
static int read_qwen_window(cfg *c, kv_spec *s)
{
    int64_t first = 0;
    int rc = get_int(c, "max_window_layers", 0, MAX_COUNT, &first);
    if (rc < 0)
        return -1;
    if (rc == 0 || first == 0 || s->layers > KV_MAX_PATTERN) {
        fill_pattern(&s->layout, 1, 0, KV_LAYER_SLIDING, KV_LAYER_SLIDING);
        return 0;
    }
    s->layout.pattern_len = (size_t)s->layers;
    for (int64_t i = 0; i < s->layers; i++)
        s->layout.pattern[i] = (unsigned char)(i >= first ? KV_LAYER_SLIDING : KV_LAYER_FULL);
    return 0;
}

/* Layer kinds kvcalc does not model are refused, not read as full attention: MiniMax's
 * lightning attention (attn_type_list). */
static int refuse_unmodelled(cfg *c)
{
    static const struct {
        const char *key, *what;
    } keys[] = {
        {"attn_type_list", "MiniMax's lightning-attention layers"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t v = find(c, keys[i].key);
        if (v && i == 0) { /* attn_type_list: 1 softmax attention (MiniMax-M2's every
                              layer), 0 lightning attention (MiniMax-Text-01) */
            int lightning = c->toks[v].type != KV_JSON_ARRAY;
            size_t e = v + 1;
            for (size_t k = 0; !lightning && k < c->toks[v].size; k++, e = c->toks[e].next)
                lightning = !(c->toks[e].type == KV_JSON_NUMBER && c->toks[e].end - c->toks[e].start == 1 &&
                              c->text[c->toks[e].start] == '1');
            if (!lightning)
                continue;
        }
        if (v)
            return cfg_fail(c, v, "%s: %s are not modelled by kvcalc (their state and cache "
                                  "per layer); it refuses rather than count them as full "
                                  "attention", keys[i].key, keys[i].what);
    }
    return 0;
}

static int read_layout(cfg *c, const family *fam, kv_spec *s)
{
    if (refuse_unmodelled(c) < 0)
        return -1;
    kv_layout *l = &s->layout;
    int64_t window = fam->window, chunk = fam->chunk, period = 0, offset = 0, pattern = 0;
    int use_sliding = -1;
    int window_given;
    int k_eq_v = 0;
    if (get_int(c, "num_kv_shared_layers", 0, s->layers - 1, &l->kv_shared_layers) < 0 ||
        get_int(c, "global_head_dim", 1, MAX_COUNT, &l->full_head_dim) < 0 ||
        get_bool(c, "attention_k_eq_v", &k_eq_v) < 0 ||
        (k_eq_v && get_int(c, "num_global_key_value_heads", 1, MAX_COUNT, &l->full_kv_heads) < 0))
        return -1;
    /* Gemma-4's full layers (transformers Gemma4TextAttention): head_dim global_head_dim,
     * and with attention_k_eq_v num_global_key_value_heads KV heads, V taken from K (the
     * engines still cache both) */
    if (l->full_head_dim == s->head_dim)
        l->full_head_dim = 0;
    if (l->full_kv_heads == s->kv_heads)
        l->full_kv_heads = 0;
    if ((window_given = get_int(c, "sliding_window", 1, MAX_TOKENS, &window)) < 0 ||
        get_int(c, "attention_chunk_size", 1, MAX_TOKENS, &chunk) < 0 ||
        get_bool(c, "use_sliding_window", &use_sliding) < 0)
        return -1;
    size_t types = find(c, "layer_types"), no_rope = find(c, "no_rope_layers");
    size_t hybrid = find(c, "hybrid_override_pattern"), attn_idxs, kda;
    /* Falcon-H1 (FalconH1ForCausalLM): every decoder layer runs attention and a Mamba-2
     * mixer side by side (FalconH1ParallelHybrid: self.mamba and self.self_attn), so it
     * keeps a cache and a state; mamba_d_ssm, the mixer's width, is its config's mark */
    char type[32] = "";
    if (get_string(c, "model_type", type, sizeof type) < 0)
        return -1;
    size_t parallel = find(c, "mamba_d_ssm");
    if (!parallel && strcmp(type, "falcon_h1") == 0) /* the width then heads x head size */
        parallel = find(c, "model_type");
    if (parallel && (types || hybrid))
        return cfg_fail(c, parallel, "mamba_d_ssm: a parallel attention-and-Mamba model with "
                                     "a per-layer list (%s) is not one kvcalc knows",
                        types ? "layer_types" : "hybrid_override_pattern");
    l->parallel_state = parallel != 0;

    if (types) {
        if (read_layer_types(c, types, s) < 0)
            return -1;
    } else if (hybrid) {
        if (read_hybrid_pattern(c, hybrid, s) < 0)
            return -1;
    } else if ((kda = find(c, "linear_attn_config")) != 0) {
        if (read_kda_layers(c, kda, s) < 0)
            return -1;
    } else if ((attn_idxs = find(c, "full_attn_idxs")) != 0) {
        if (read_full_attn_idxs(c, attn_idxs, s) < 0)
            return -1;
    } else if (fam->rule == RULE_ALTERNATE) {
        fill_pattern(l, 2, 1, KV_LAYER_SLIDING, KV_LAYER_FULL);
    } else if (fam->rule == RULE_EVERY_NTH) {
        pattern = fam->pattern;
        if (get_int(c, "sliding_window_pattern", 1, KV_MAX_PATTERN, &pattern) < 0)
            return -1;
        fill_pattern(l, (size_t)pattern, (size_t)pattern - 1, KV_LAYER_SLIDING, KV_LAYER_FULL);
    } else if (fam->rule == RULE_CHUNKED) {
        if (no_rope) {
            if (read_no_rope_layers(c, no_rope, s) < 0)
                return -1;
        } else {
            fill_pattern(l, 4, 3, KV_LAYER_CHUNKED, KV_LAYER_FULL);
        }
    } else if (get_int(c, "attn_layer_period", 1, KV_MAX_PATTERN, &period) == 1) {
        if (get_int(c, "attn_layer_offset", 0, period - 1, &offset) < 0)
            return -1;
        fill_pattern(l, (size_t)period, (size_t)offset, KV_LAYER_STATE, KV_LAYER_FULL);
    } else if (get_int(c, "full_attention_interval", 1, KV_MAX_PATTERN, &period) == 1) {
        fill_pattern(l, (size_t)period, (size_t)period - 1, KV_LAYER_STATE, KV_LAYER_FULL);
    } else if (use_sliding == 1) {
        if (read_qwen_window(c, s) < 0)
            return -1;
    } else if (use_sliding == -1 && window_given == 1) {
        fill_pattern(l, 1, 0, KV_LAYER_SLIDING, KV_LAYER_SLIDING); /* Mistral-7B-v0.1 */
    }
    if (c->err[0])
        return -1; /* an attn_layer_period / full_attention_interval value was bad */

    /* a sliding layer without a window, or a chunked one without a chunk, is full */
    for (size_t i = 0; i < l->pattern_len; i++) {
        if ((l->pattern[i] == KV_LAYER_SLIDING && window <= 0) ||
            (l->pattern[i] == KV_LAYER_CHUNKED && chunk <= 0))
            l->pattern[i] = KV_LAYER_FULL;
    }
    l->window = window;
    l->chunk = chunk;
    return 0;
}

/* A sliding window at least as long as the model's context (max_context, when known) never
 * drops a token: those layers are full attention (Phi-4-mini: window 262,144, context
 * 131,072). */
static void full_when_window_covers(kv_layout *l, int64_t max_context)
{
    if (max_context <= 0 || l->window < max_context)
        return;
    for (size_t i = 0; i < l->pattern_len; i++)
        if (l->pattern[i] == KV_LAYER_SLIDING)
            l->pattern[i] = KV_LAYER_FULL;
    l->window = 0;
}

/* An integer key of one object (no fallback to the top object): 1 read, 0 absent, -1 bad. */
static int obj_int(cfg *c, size_t obj, const char *const *keys, int64_t lo, int64_t hi,
                   int64_t *out)
{
    for (; *keys; keys++) {
        size_t v = lookup(c, obj, *keys);
        if (v && c->toks[v].type != KV_JSON_NULL)
            return int_value(c, v, *keys, lo, hi, out) == 0 ? 1 : -1;
    }
    return 0;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Per-request state of one Mamba / linear-attention layer, in elements, when the config
 * gives the sizes: gated delta net (Qwen3-Next), Mamba-2, or Mamba-1 (Jamba). -1 when it
 * does not. */
static int read_state(cfg *c, kv_arch *a, kv_layout *l)
{
    int any_state = 0;
    for (size_t i = 0; i < l->pattern_len; i++)
        any_state |= (l->pattern[i] == KV_LAYER_STATE);
    any_state |= l->parallel_state;
    l->state_elems = -1;
    if (!any_state)
        return 0;
    char ssm[16] = "";
    if (get_string(c, "mamba_ssm_cache_dtype", ssm, sizeof ssm) < 0 ||
        (!ssm[0] && get_string(c, "mamba_ssm_dtype", ssm, sizeof ssm) < 0))
        return -1;
    l->state_ssm_f32 = strcmp(ssm, "float32") == 0;
    kv_mixer *m = &a->mixer;
    int64_t nk = 0, nv = 0, dk = 0, dv = 0, kernel = 4, heads = 0, hd = 0, n = 0, groups = 1,
            expand = 2, lcache = 0;
    /* Falcon-H1's defaults (FalconH1Config, transformers configuration_falcon_h1.py):
     * mamba_conv_bias true, mamba_rms_norm false (no gated norm) */
    int conv_bias = l->parallel_state, proj_bias = 0, use_bias = 0, rms_norm = !l->parallel_state;
    if (get_bool(c, "mamba_rms_norm", &rms_norm) < 0 || get_bool(c, "use_conv_bias", &conv_bias) < 0 ||
        get_bool(c, "mamba_conv_bias", &conv_bias) < 0 ||
        get_bool(c, "conv_bias", &conv_bias) < 0 || get_bool(c, "use_bias", &use_bias) < 0 ||
        get_bool(c, "mamba_proj_bias", &proj_bias) < 0)
        return -1;
    m->conv_bias = conv_bias;
    m->proj_bias = proj_bias || use_bias;
    m->no_norm = !rms_norm;
    double elems = -1, conv = 0;
    size_t kda = find(c, "linear_attn_config");
    if (kda && c->toks[kda].type == KV_JSON_OBJECT) {
        /* KDA (vllm/model_executor/layers/mamba/mamba_utils.py @ 02d710837549,
         * kda_state_shape / kda_state_dtype): one conv state over q (num_heads x head_dim)
         * and k, v (num_k_heads x head_k_dim, by default the same), kernel - 1 rows; the
         * recurrent state num_heads x head_dim x head_dim, always float32. llama.cpp sizes
         * the same (n_embd_r = 3 x (d_conv - 1) x n_head x head_dim, n_embd_s = head_dim^2 x
         * n_head, src/llama-hparams.cpp), SGLang too (KimiLinearStateShape). */
        int64_t h = 0, d = 0, hk = 0, dkk = 0;
        if (obj_int(c, kda, KEYS("num_heads"), 1, MAX_COUNT, &h) < 0 ||
            obj_int(c, kda, KEYS("head_dim"), 1, MAX_COUNT, &d) < 0 ||
            obj_int(c, kda, KEYS("num_k_heads"), 1, MAX_COUNT, &hk) < 0 ||
            obj_int(c, kda, KEYS("head_k_dim"), 1, MAX_COUNT, &dkk) < 0 ||
            obj_int(c, kda, KEYS("short_conv_kernel_size"), 2, MAX_COUNT, &kernel) < 0)
            return -1;
        if (!h || !d)
            return cfg_fail(c, kda, "linear_attn_config: num_heads and head_dim are needed for "
                                    "the KDA layers' state");
        hk = hk ? hk : h;
        dkk = dkk ? dkk : d;
        conv = (double)(h * d + 2 * hk * dkk) * (double)(kernel - 1);
        elems = conv + (double)h * (double)d * (double)d;
        *m = (kv_mixer){.kind = KV_MIXER_KDA, .conv_kernel = kernel, .key_heads = hk,
                        .key_dim = dkk, .value_heads = h, .value_dim = d};
        l->state_ssm_f32 = 1;
    } else if (get_int(c, "linear_num_value_heads", 1, MAX_COUNT, &nv) == 1) {
        if (get_int(c, "linear_num_key_heads", 1, MAX_COUNT, &nk) < 0 ||
            get_int(c, "linear_key_head_dim", 1, MAX_COUNT, &dk) < 0 ||
            get_int(c, "linear_value_head_dim", 1, MAX_COUNT, &dv) < 0 ||
            get_int(c, "linear_conv_kernel_dim", 1, MAX_COUNT, &kernel) < 0)
            return -1;
        if (nk && dk && dv) { /* conv state over q, k, v + the recurrent state */
            conv = (double)(2 * nk * dk + nv * dv) * (double)(kernel - 1);
            elems = conv + (double)nv * (double)dk * (double)dv;
            *m = (kv_mixer){.kind = KV_MIXER_GDN, .conv_kernel = kernel, .key_heads = nk,
                            .key_dim = dk, .value_heads = nv, .value_dim = dv};
        }
    } else if (get_int(c, "conv_L_cache", 1, MAX_COUNT, &lcache) == 1) { /* LFM2 */
        if (a->hidden) {
            conv = elems = (double)a->hidden * (double)(lcache - 1);
            m->kind = KV_MIXER_SHORT_CONV;
            m->conv_kernel = lcache;
            m->proj_bias = 0;
        }
    } else if (get_int(c, "mamba_n_heads", 1, MAX_COUNT, &heads) == 1 ||
               get_int(c, "mamba_num_heads", 1, MAX_COUNT, &heads) == 1) { /* Nemotron-H */
        static const char *const state_keys[] = {"ssm_state_size", "mamba_d_state",
                                                 "state_size", NULL};
        static const char *const conv_keys[] = {"mamba_d_conv", "conv_kernel", NULL};
        size_t auto_hd = find(c, "mamba_d_head");
        if (!(auto_hd && c->toks[auto_hd].type == KV_JSON_STRING &&
              kv_json_string_eq(c->text, &c->toks[auto_hd], "auto")))
            auto_hd = 0;
        int64_t d_ssm = 0;
        if ((!auto_hd && get_int(c, "mamba_d_head", 1, MAX_COUNT, &hd) < 0) ||
            get_int(c, "mamba_d_ssm", 1, MAX_COUNT, &d_ssm) < 0 ||
            get_int(c, "mamba_head_dim", 1, MAX_COUNT, &hd) < 0 ||
            get_int_alias(c, state_keys, 1, MAX_COUNT, &n) < 0 ||
            get_int(c, "mamba_n_groups", 1, MAX_COUNT, &groups) < 0 ||
            (!find(c, "mamba_n_groups") && /* Nemotron-H: n_groups (n_group is MoE routing) */
             get_int(c, "n_groups", 1, MAX_COUNT, &groups) < 0) ||
            get_int_alias(c, conv_keys, 1, MAX_COUNT, &kernel) < 0)
            return -1;
        /* Falcon-H1's mamba_d_head "auto": mamba_d_ssm / mamba_n_heads (FalconH1Config,
         * transformers configuration_falcon_h1.py) */
        if (auto_hd && d_ssm > 0)
            hd = d_ssm / heads;
        if (d_ssm > 0 && hd > 0 && d_ssm != heads * hd)
            return cfg_fail(c, find(c, "mamba_d_ssm"), "mamba_d_ssm: %lld channels are not "
                            "mamba_n_heads x mamba_d_head = %lld x %lld", (long long)d_ssm,
                            (long long)heads, (long long)hd);
        if (hd && n) {
            double inner = (double)heads * (double)hd;
            conv = (inner + 2.0 * (double)groups * (double)n) * (double)(kernel - 1);
            elems = conv + inner * (double)n;
            m->kind = KV_MIXER_MAMBA2;
            m->heads = heads;
            m->head_dim = hd;
            m->inner = heads * hd;
            m->d_state = n;
            m->groups = groups;
            m->conv_kernel = kernel;
        }
    } else if (get_int(c, "mamba_d_state", 1, MAX_COUNT, &n) == 1) {
        int64_t rank = 0;
        if (get_int(c, "mamba_d_conv", 1, MAX_COUNT, &kernel) < 0 ||
            get_int(c, "mamba_expand", 1, MAX_COUNT, &expand) < 0 ||
            get_int(c, "mamba_dt_rank", 1, MAX_COUNT, &rank) < 0)
            return -1;
        if (a->hidden) {
            double inner = (double)expand * (double)a->hidden;
            conv = inner * (double)(kernel - 1);
            elems = conv + inner * (double)n;
            /* Jamba: mamba_dt_rank, else "auto" = ceil(hidden / 16) */
            *m = (kv_mixer){.kind = KV_MIXER_MAMBA1, .inner = expand * a->hidden, .d_state = n,
                            .conv_kernel = kernel, .conv_bias = m->conv_bias,
                            .proj_bias = m->proj_bias,
                            .dt_rank = rank ? rank : (a->hidden + 15) / 16};
        }
    }
    if (c->err[0])
        return -1;
    /* ModelConfig.get_mamba_chunk_size (vllm/config/model.py @ 28be48fa9): mamba_chunk_size
     * (Bamba, FalconH1, Granite), else chunk_size (Mamba2, NemotronH, Zamba), else 2048 */
    m->chunk_size = 2048;
    if (m->kind != KV_MIXER_NONE &&
        (get_int(c, "chunk_size", 1, MAX_COUNT, &m->chunk_size) < 0 ||
         get_int(c, "mamba_chunk_size", 1, MAX_COUNT, &m->chunk_size) < 0))
        return -1;
    if (elems > 4e18)
        return cfg_fail(c, c->model, "state size of %.3g elements per layer is absurd", elems);
    l->state_elems = elems < 0 ? -1 : (int64_t)elems;
    l->state_conv_elems = elems < 0 ? 0 : (int64_t)conv;
    if (m->kind == KV_MIXER_NONE) /* the weights of an unknown mixer are not guessed */
        kv_snprintf(a->unknown, sizeof a->unknown, "its state layers' mixer is not one it counts");
    return 0;
}

/* The parts of 2025-26 models: attention traits, plain MLPs, Nemotron-H's shared expert,
 * router biases, MTP layers and the sparse-attention indexer. */
static int read_arch_parts(cfg *c, const family *fam, kv_arch *a)
{
    char type[64] = "", act[16] = "", topk[16] = "";
    int gate = 0, qk = 0, dedicated = 0, moe_block = 0, k_eq_v = 0;
    int64_t shared_width = 0, nextn = 0, mtp = 0;
    if (get_string(c, "model_type", type, sizeof type) < 0 ||
        get_string(c, "mlp_hidden_act", act, sizeof act) < 0 ||
        get_string(c, "topk_method", topk, sizeof topk) < 0 ||
        get_bool(c, "attn_output_gate", &gate) < 0 || get_bool(c, "use_qk_norm", &qk) < 0 ||
        get_int(c, "moe_shared_expert_intermediate_size", 0, MAX_WIDTH, &shared_width) < 0 ||
        get_int(c, "num_nextn_predict_layers", 0, MAX_COUNT, &nextn) < 0 ||
        get_int(c, "mtp_num_hidden_layers", 0, MAX_COUNT, &mtp) < 0 ||
        get_bool(c, "mtp_use_dedicated_embeddings", &dedicated) < 0 ||
        get_int(c, "index_n_heads", 0, MAX_COUNT, &a->index_heads) < 0 ||
        get_bool(c, "enable_moe_block", &moe_block) < 0 ||
        get_bool(c, "attention_k_eq_v", &k_eq_v) < 0)
        return -1;
    a->moe_with_dense = moe_block; /* Gemma-4: every layer keeps its dense MLP beside the
                                      experts */
    /* LFM2: block_auto_adjust_ff_dim shrinks the MLP as SwiGLU models do (transformers
     * Lfm2MLP: int(2 x ff / 3), times block_ffn_dim_multiplier, up to block_multiple_of):
     * LFM2-1.2B's 12,288 is 8,192 wide, its count exact (1,170,340,608) */
    int adjust = 0;
    int64_t multiple = 256;
    if (get_bool(c, "block_auto_adjust_ff_dim", &adjust) < 0 ||
        get_int(c, "block_multiple_of", 1, MAX_WIDTH, &multiple) < 0)
        return -1;
    if (adjust && a->intermediate > 0) {
        size_t mv = find(c, "block_ffn_dim_multiplier");
        double mult = mv && c->toks[mv].type == KV_JSON_NUMBER ? kv_json_number(c->text, &c->toks[mv]) : 1.0;
        if (!(mult > 0 && mult <= 100))
            return cfg_fail(c, mv, "block_ffn_dim_multiplier: expected a number in (0, 100]");
        int64_t ff = (int64_t)(mult * (double)(2 * a->intermediate / 3));
        a->intermediate = multiple * ((ff + multiple - 1) / multiple);
    }
    /* Gemma-3n / Gemma-4 E2B, E4B: per-layer embeddings and the shared layers' double-wide
     * MLPs, whose tensors kvcalc has not counted: the weights are not guessed */
    int64_t ple = 0;
    int double_wide = 0;
    if (get_int(c, "hidden_size_per_layer_input", 0, MAX_WIDTH, &ple) < 0 ||
        get_bool(c, "use_double_wide_mlp", &double_wide) < 0)
        return -1;
    /* Gemma-4 (gemma4_text) counts them as vLLM's Gemma4 model builds them
     * (vllm/model_executor/models/gemma4.py @ 28be48fa9); Gemma-3n's AltUp and Laurel blocks
     * beside them are not counted: its weights are refused */
    if ((ple > 0 || double_wide) && strncmp(type, "gemma4", 6) == 0) {
        a->ple_dim = ple;
        a->ple_vocab = a->vocab;
        if (get_int(c, "vocab_size_per_layer_input", 1, MAX_WIDTH, &a->ple_vocab) < 0)
            return -1;
        a->double_wide_mlp = double_wide;
    } else if (ple > 0) {
        kv_snprintf(a->unknown, sizeof a->unknown, "hidden_size_per_layer_input: per-layer "
                                                "embeddings");
    } else if (double_wide) {
        kv_snprintf(a->unknown, sizeof a->unknown, "use_double_wide_mlp");
    }
    a->attn_k_eq_v = k_eq_v;      /* its full layers have no v_proj */
    (void)fam;
    int own = dedicated;
    int64_t mtp_default = 0;
    for (size_t i = 0; i < sizeof family_traits / sizeof family_traits[0]; i++)
        if (strcmp(type, family_traits[i].model_type) == 0) {
            mtp_default = family_traits[i].mtp_layers;
            a->norms_per_layer = family_traits[i].norms;
            a->qk_norm = family_traits[i].qk_norm;
            a->attn_sinks = family_traits[i].sinks;
            gate |= family_traits[i].gate;
            own |= family_traits[i].mtp_embeddings;
        }
    if (qk && !a->qk_norm) /* use_qk_norm: head_dim each, unless the family says wider */
        a->qk_norm = 1;
    a->attn_gate = gate;
    a->mlp_plain = strcmp(act, "relu2") == 0; /* Nemotron-H: up and down projections */
    if (shared_width > 0) { /* Nemotron-H: shared experts of their own width */
        a->shared_intermediate = (a->shared_experts > 0 ? a->shared_experts : 1) * shared_width;
        a->shared_experts = 0;
    }
    /* a stored e_score_correction_bias: DeepSeek's noaux_tc; Kimi-Linear's sigmoid router
     * keeps one too (its checkpoint's gate.e_score_correction_bias, 256 a MoE layer: the
     * report of code index file 62691149540) */
    a->router_bias = a->experts > 0 &&
                     (strcmp(topk, "noaux_tc") == 0 || strcmp(type, "kimi_linear") == 0);
    a->mtp_layers = nextn > 0 ? nextn : mtp > 0 ? mtp : mtp_default;
    a->mtp_own_embeddings = own;
    if (!a->known && !a->unknown[0]) /* the field whose absence leaves it uncounted */
        kv_snprintf(a->unknown, sizeof a->unknown, "%s",
                 a->hidden <= 0 ? "no hidden_size" : a->vocab <= 0 ? "no vocab_size"
                                                                   : "no intermediate_size");
    if (a->unknown[0])
        a->known = 0; /* what the estimate cannot count is not guessed */
    return 0;
}

/* DeepSeek-V4's compress_ratios, one a layer (and one more for the MTP layer, which vLLM
 * takes as ratio 1 whatever it says): 0 keeps only the sliding window, 4 and 128 a latent
 * compressed that many tokens to one entry beside it (max(1, compress_ratios[i]),
 * vllm/models/deepseek_v4/nvidia/model.py @ 28be48fa). Its cache is fp8_ds_mla in every
 * engine that serves it ("DeepseekV4 only supports fp8 kv-cache format for now"), and its
 * layers' tensors (hyper-connections, the grouped output projection, the compressors) are
 * not counted: the weights are refused until given. */
static int read_csa(cfg *c, kv_spec *s)
{
    size_t v = find(c, "compress_ratios");
    if (!v)
        return 0;
    const kv_json_tok *arr = &c->toks[v];
    if (arr->type != KV_JSON_ARRAY || (int64_t)arr->size < s->layers)
        return cfg_fail(c, v, "compress_ratios: expected an array of a ratio for each of the "
                              "%lld layers", (long long)s->layers);
    kv_layout *l = &s->layout;
    int64_t c4 = 0, c128 = 0;
    size_t e = v + 1;
    for (int64_t i = 0; i < s->layers; i++, e = c->toks[e].next) {
        int64_t r;
        if (int_value(c, e, "compress_ratios", 0, 128, &r) < 0)
            return -1;
        if (r != 0 && r != 4 && r != 128)
            return cfg_fail(c, e, "compress_ratios: layer %lld has ratio %lld; kvcalc sizes "
                                  "0 (the window only), 4 and 128", (long long)i, (long long)r);
        c4 += r == 4;
        c128 += r == 128;
    }
    if (c4 + c128 == 0) /* vLLM's groups need a compressed layer (its latent group) */
        return cfg_fail(c, v, "compress_ratios: no layer at 4 or 128; kvcalc sizes DeepSeek-V4 "
                              "with its compressed layers");
    int64_t window = 0, rope = 0, index = 0;
    if (get_int(c, "sliding_window", 1, MAX_TOKENS, &window) != 1)
        return cfg_fail(c, v, "compress_ratios: DeepSeek-V4's layers need sliding_window");
    if (get_int(c, "qk_rope_head_dim", 0, MAX_COUNT, &rope) != 1 || rope >= s->head_dim)
        return cfg_fail(c, v, "compress_ratios: DeepSeek-V4's latent needs qk_rope_head_dim "
                              "below head_dim");
    if (c4 > 0 && get_int(c, "index_head_dim", 1, MAX_COUNT, &index) != 1)
        return cfg_fail(c, v, "compress_ratios: its 4:1 layers need index_head_dim (their "
                              "indexer)");
    if (s->kv_heads != 1)
        return cfg_fail(c, v, "compress_ratios: DeepSeek-V4's latent is one head "
                              "(num_key_value_heads 1)");
    /* the window is every layer's own cache here, not a sliding-layer pattern */
    l->pattern_len = 0;
    l->window = 0;
    l->index_dim = 0;
    l->csa_c4 = c4;
    l->csa_c128 = c128;
    l->csa_window = window;
    l->csa_index_dim = index;
    s->arch.qk_rope_dim = rope;
    s->dtype = KV_DTYPE_FP8;
    snprintf(s->arch.unknown, sizeof s->arch.unknown,
             "compress_ratios: DeepSeek-V4's layers");
    s->arch.known = 0;
    return 0;
}

static int read_arch(cfg *c, const family *fam, kv_arch *a)
{
    static const char *const expert_keys[] = {"n_routed_experts", "num_local_experts",
                                              "num_experts", NULL};
    static const char *const step_keys[] = {"interleave_moe_layer_step", "decoder_sparse_step",
                                            "moe_layer_freq", "expert_layer_period", NULL};
    /* block_ff_dim first: LFM2's original key, which transformers' Lfm2Config takes over
     * intermediate_size (kwargs.get("block_ff_dim", intermediate_size)) */
    static const char *const width_keys[] = {"block_ff_dim", "intermediate_size",
                                             "ffn_hidden_size", NULL};
    static const char *const vocab_keys[] = {"vocab_size", "padded_vocab_size", NULL};
    static const char *const top_k_keys[] = {"num_experts_per_tok", "experts_per_token", NULL};
    int bias = 0, tie = fam->tie;
    a->vocab = fam->vocab;
    a->moe_step = 1;
    if (get_int_alias(c, width_keys, 1, MAX_WIDTH, &a->intermediate) < 0 ||
        get_int_alias(c, vocab_keys, 1, MAX_WIDTH, &a->vocab) < 0 ||
        get_bool(c, "tie_word_embeddings", &tie) < 0 ||
        get_bool(c, "tie_embedding", &tie) < 0 || /* LFM2's original key, which wins */
        get_bool(c, "attention_bias", &bias) < 0 ||
        get_int_alias(c, expert_keys, 0, MAX_COUNT, &a->experts) < 0 ||
        get_int(c, "moe_intermediate_size", 1, MAX_WIDTH, &a->moe_intermediate) < 0 ||
        get_int(c, "n_shared_experts", 0, MAX_COUNT, &a->shared_experts) < 0 ||
        get_int(c, "num_shared_experts", 0, MAX_COUNT, &a->shared_experts) < 0 || /* Kimi */
        get_int_alias(c, top_k_keys, 0, MAX_COUNT, &a->experts_per_token) < 0 ||
        get_int(c, "shared_expert_intermediate_size", 0, MAX_WIDTH, &a->shared_intermediate) < 0 ||
        /* GraniteMoeHybrid's shared MLP beside its experts (granite-4.0-h-tiny: 1,024) */
        (a->experts > 0 &&
         get_int(c, "shared_intermediate_size", 0, MAX_WIDTH, &a->shared_intermediate) < 0) ||
        get_int(c, "first_k_dense_replace", 0, MAX_COUNT, &a->first_dense) < 0 ||
        get_int_alias(c, step_keys, 1, MAX_COUNT, &a->moe_step) < 0 ||
        get_int(c, "intermediate_size_mlp", 1, MAX_WIDTH, &a->dense_intermediate) < 0)
        return -1;
    a->tie_embeddings = tie;
    a->qkv_bias = bias || fam->qkv_bias;
    /* the class transformers and the engines load: the first of the top object's list (an
     * engine's rule may name it; anything else there is not read) */
    size_t names = lookup(c, c->root, "architectures");
    if (names && c->toks[names].type == KV_JSON_ARRAY && c->toks[names].size > 0 &&
        c->toks[names + 1].type == KV_JSON_STRING)
        if (kv_json_string_decode(c->text, &c->toks[names + 1], a->architecture,
                                  sizeof a->architecture) != strlen(a->architecture) &&
            strlen(a->architecture) + 1 < sizeof a->architecture) /* not a cut: a \u0000 */
            return cfg_fail(c, names + 1, "architectures: holds \\u0000 (NUL), which kvcalc "
                                          "cannot read");
    a->o_bias = bias;
    a->expert_bias = fam->expert_bias;
    if (fam->rule == RULE_CHUNKED && a->experts > 0)
        a->shared_intermediate = a->intermediate; /* Llama-4: one shared expert per MoE layer */
    /* an all-MoE model (Qwen3.5-MoE) may give no dense intermediate_size: its experts suffice */
    a->known = a->hidden > 0 && a->vocab > 0 &&
               (a->intermediate > 0 ||
                (a->experts > 0 && a->moe_intermediate > 0 && a->first_dense == 0 &&
                 a->moe_step == 1));
    return read_arch_parts(c, fam, a);
}

/* ---- vision and audio towers ------------------------------------------------------------- */

/* Where a tower's position embeddings come from. */
typedef enum {
    POS_KEY,      /* num_position_embeddings, when given (Qwen3-VL) */
    POS_GRID,     /* one per patch of image_size: (image / patch)^2 (SigLIP) */
    POS_GRID_CLS, /* the same plus a class token (Llama-4) */
    POS_NONE,     /* rotary only (Qwen2.5-VL, Pixtral) */
    POS_2D        /* a table of position_embedding_size rows for each of x and y (Gemma-4) */
} pos_rule;

/* How each family builds its tower, by vision_config.model_type (from the transformers
 * modeling files: siglip, qwen2_5_vl, qwen3_vl, pixtral + mistral3, llama4). An unknown
 * type is a plain ViT with biases and LayerNorms and a linear projector. */
static const struct {
    const char *type;
    kv_tower_kind kind;
    int gated, bias, rms, patch_bias, proj_bias;
    pos_rule pos;
} tower_families[] = {
    /* type                 kind             gated bias rms pbias projb  positions */
    {"siglip_vision_model", KV_TOWER_SIGLIP, 0, 1, 0, 1, 0, POS_GRID},
    {"qwen3_vl", KV_TOWER_QWEN_VL, 0, 1, 0, 1, 1, POS_KEY},
    {"qwen3_vl_moe", KV_TOWER_QWEN_VL, 0, 1, 0, 1, 1, POS_KEY},
    {"qwen3_5", KV_TOWER_QWEN_VL, 0, 1, 0, 1, 1, POS_KEY},
    {"qwen3_5_moe", KV_TOWER_QWEN_VL, 0, 1, 0, 1, 1, POS_KEY},
    {"qwen2_5_vl", KV_TOWER_QWEN_VL, 1, 1, 1, 0, 1, POS_NONE},
    {"pixtral", KV_TOWER_PIXTRAL, 1, 0, 1, 0, 1, POS_NONE},
    {"llama4_vision_model", KV_TOWER_LLAMA4, 0, 1, 0, 0, 0, POS_GRID_CLS},
    {"gemma4_vision", KV_TOWER_GEMMA4, 1, 0, 1, 0, 0, POS_2D},
};


/* A tower's family row (its defaults) from its model_type; -1 for an unknown type. */
static int tower_family(cfg *c, size_t obj)
{
    size_t v = lookup(c, obj, "model_type");
    for (size_t i = 0; v && i < sizeof tower_families / sizeof tower_families[0]; i++)
        if (c->toks[v].type == KV_JSON_STRING &&
            kv_json_string_eq(c->text, &c->toks[v], tower_families[i].type))
            return (int)i;
    return -1;
}

static void tower_defaults(int fam, kv_tower *t)
{
    t->kind = fam < 0 ? KV_TOWER_VIT : (int)tower_families[fam].kind;
    t->gated = fam >= 0 && tower_families[fam].gated;
    t->bias = fam < 0 || tower_families[fam].bias;
    t->rms_norm = fam >= 0 && tower_families[fam].rms;
    t->patch_bias = fam < 0 || tower_families[fam].patch_bias;
    t->proj_bias = fam < 0 || tower_families[fam].proj_bias;
    t->merge = 1;
    t->mergers = 1;
}

/* The widths: encoder, MLP, depth (Kimi's MoonViT says vt_*, Whisper-style audio d_model /
 * encoder_*), and what the projector maps to. */
static int tower_widths(cfg *c, size_t obj, kv_tower *t)
{
    if (obj_int(c, obj, KEYS("hidden_size", "vt_hidden_size", "d_model"), 1, MAX_WIDTH,
                &t->hidden) < 0 ||
        obj_int(c, obj, KEYS("intermediate_size", "vt_intermediate_size", "encoder_ffn_dim"), 1,
                MAX_WIDTH, &t->intermediate) < 0 ||
        obj_int(c, obj, KEYS("num_hidden_layers", "depth", "vt_num_hidden_layers",
                             "encoder_layers"), 1, MAX_COUNT, &t->layers) < 0 ||
        obj_int(c, obj, KEYS("out_hidden_size", "text_hidden_size", "output_dim"), 1, MAX_WIDTH,
                &t->out) < 0 ||
        obj_int(c, obj, KEYS("projector_input_dim"), 1, MAX_WIDTH, &t->adapter_in) < 0 ||
        obj_int(c, obj, KEYS("projector_output_dim", "vision_output_dim"), 1, MAX_WIDTH,
                &t->adapter_out) < 0)
        return -1;
    return 0;
}

/* Patch embedding inputs and learned positions. */
static int tower_patches(cfg *c, size_t obj, pos_rule pos, kv_tower *t)
{
    int64_t channels = 3, patch = 0, temporal = 1, image = 0, npos = 0, ph = 0, pw = 0;
    if (obj_int(c, obj, KEYS("num_channels", "in_channels", "in_chans"), 1, MAX_COUNT, &channels) < 0 ||
        obj_int(c, obj, KEYS("patch_size"), 1, MAX_COUNT, &patch) < 0 ||
        obj_int(c, obj, KEYS("temporal_patch_size"), 1, MAX_COUNT, &temporal) < 0 ||
        obj_int(c, obj, KEYS("image_size"), 1, MAX_COUNT, &image) < 0 ||
        obj_int(c, obj, KEYS("num_position_embeddings"), 1, MAX_WIDTH, &npos) < 0 ||
        obj_int(c, obj, KEYS("init_pos_emb_height"), 1, MAX_COUNT, &ph) < 0 ||
        obj_int(c, obj, KEYS("init_pos_emb_width"), 1, MAX_COUNT, &pw) < 0 ||
        (pos == POS_2D &&
         obj_int(c, obj, KEYS("position_embedding_size"), 1, MAX_WIDTH, &npos) < 0))
        return -1;
    t->patch_inputs = channels * patch * patch * temporal;
    int64_t side = patch > 0 ? image / patch : 0;
    if (pos == POS_GRID || pos == POS_GRID_CLS)
        t->positions = side * side + (pos == POS_GRID_CLS && side > 0);
    else if (pos == POS_KEY)
        t->positions = npos > 0 ? npos : ph * pw; /* MoonViT: a height x width grid */
    else if (pos == POS_2D)
        t->positions = 2 * npos;
    return 0;
}

/* The projector's merge: spatial_merge_size in the tower, else at the top (Mistral-3);
 * Qwen3-VL's deepstack adds one merger per entry of deepstack_visual_indexes. */
static int tower_merge(cfg *c, size_t obj, kv_tower *t)
{
    static const char *const keys[] = {"spatial_merge_size", NULL};
    int rc = obj_int(c, obj, keys, 1, MAX_COUNT, &t->merge);
    if (rc == 0)
        rc = obj_int(c, c->root, keys, 1, MAX_COUNT, &t->merge);
    if (rc < 0)
        return -1;
    size_t deep = lookup(c, obj, "deepstack_visual_indexes");
    if (deep && c->toks[deep].type == KV_JSON_ARRAY)
        t->mergers = 1 + (int64_t)c->toks[deep].size;
    int bias = t->proj_bias; /* Mistral-3 / Llama-4 say whether the projector has biases */
    size_t b = lookup(c, c->root, "multimodal_projector_bias");
    if (!b)
        b = lookup(c, obj, "multi_modal_projector_bias");
    if (b && (c->toks[b].type == KV_JSON_TRUE || c->toks[b].type == KV_JSON_FALSE))
        bias = c->toks[b].type == KV_JSON_TRUE;
    t->proj_bias = bias;
    return 0;
}

/* The tower under key (vision_config / audio_config) of the top object, if any. */
static int read_tower(cfg *c, const char *key, kv_tower *t)
{
    memset(t, 0, sizeof *t);
    size_t obj = lookup(c, c->root, key);
    if (!obj || c->toks[obj].type != KV_JSON_OBJECT)
        return 0;
    int fam = tower_family(c, obj);
    tower_defaults(fam, t);
    if (tower_widths(c, obj, t) < 0 ||
        tower_patches(c, obj, fam < 0 ? POS_KEY : tower_families[fam].pos, t) < 0 ||
        tower_merge(c, obj, t) < 0)
        return -1;
    return 0;
}

/* ---- entry point --------------------------------------------------------------------- */

kv_status kv_config_read(const char *text, size_t len, const char *file, kv_spec *s, kv_model_info *info,
                char *err, size_t errcap)
{
    kv_json_error jerr;
    size_t cap = len / 2 + 4;
    if (cap > CONFIG_MAX_VALUES)
        cap = CONFIG_MAX_VALUES;
    kv_json_tok *toks = malloc(cap * sizeof *toks);
    if (!toks) {
        kv_snprintf(err, errcap, "%s: out of memory", file);
        return KV_ERR_NO_MEMORY;
    }
    err[0] = '\0';
    memset(info, 0, sizeof *info);
    long n = kv_json_parse(text, len, toks, cap, CONFIG_MAX_DEPTH, &jerr);
    if (n < 0) {
        kv_snprintf(err, errcap, "%s:%zu:%zu: %s", file, jerr.line, jerr.col, jerr.msg);
        free(toks);
        return KV_ERR_FORMAT;
    }
    /* Room for len / 2 tokens, and a config holds about one in ten bytes: what is left goes
     * back to the heap, so the key indexes below come right after the tokens instead of
     * three pages further (each heap page a run writes is a page fault; issue 22). */
    kv_json_tok *fit = realloc(toks, (size_t)(n > 0 ? n : 1) * sizeof *toks);
    if (fit)
        toks = fit;
    cfg c;
    memset(&c, 0, sizeof c);
    c.text = text, c.len = len, c.file = file, c.toks = toks, c.err = err, c.errcap = errcap;
    int rc = -1;
    if (toks[0].type != KV_JSON_OBJECT) {
        cfg_fail(&c, 0, "expected a JSON object at the top level, got %s",
                 type_name(toks[0].type));
        goto done;
    }
    index_build(&c, &c.ix[0], 0);
    /* multimodal models keep the language model in a nested object */
    static const char *const nested[] = {"text_config", "llm_config", "language_config"};
    for (size_t i = 0; i < sizeof nested / sizeof nested[0] && c.model == 0; i++) {
        size_t v = lookup(&c, 0, nested[i]);
        if (v && toks[v].type == KV_JSON_OBJECT)
            c.model = v;
    }
    if (c.model != c.root)
        index_build(&c, &c.ix[1], c.model);
    static const char *const context_keys[] = {"max_position_embeddings", "seq_length", NULL};
    kv_spec out = *s;
    memset(&out.layout, 0, sizeof out.layout);
    memset(&out.arch, 0, sizeof out.arch);
    if (get_string(&c, "model_type", info->model_type, sizeof info->model_type) < 0 ||
        get_string(&c, "_name_or_path", info->name, sizeof info->name) < 0)
        goto done;
    const family *fam = find_family(info->model_type);
    info->max_context = fam->max_context;
    if (read_geometry(&c, fam, &out, &out.arch) < 0 || read_dtypes(&c, &out) < 0 ||
        read_mla(&c, &out, &out.arch) < 0 || read_layout(&c, fam, &out) < 0 ||
        read_state(&c, &out.arch, &out.layout) < 0 || read_arch(&c, fam, &out.arch) < 0 ||
        read_csa(&c, &out) < 0 ||
        get_int_alias(&c, context_keys, 1, MAX_TOKENS, &info->max_context) < 0 ||
        read_tower(&c, "vision_config", &out.arch.vision) < 0 ||
        read_tower(&c, "audio_config", &out.arch.audio) < 0)
        goto done;
    full_when_window_covers(&out.layout, info->max_context);
    /* a tower the config describes but the estimate cannot size (no MLP width: Gemma-4's
     * conformer audio encoder, its FFNs, convolution module and subsampling unstated) is not
     * left out silently: the weights are refused, naming it */
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "audio_config" : "vision_config";
        const kv_tower *t = k ? &out.arch.audio : &out.arch.vision;
        size_t obj = lookup(&c, 0, key);
        char tower_type[32] = "";
        size_t mt = obj && c.toks[obj].type == KV_JSON_OBJECT ? lookup(&c, obj, "model_type") : 0;
        if (mt && c.toks[mt].type == KV_JSON_STRING)
            kv_json_string_decode(c.text, &c.toks[mt], tower_type, sizeof tower_type);
        /* a conformer (Gemma-4's and Gemma-3n's audio: two FFNs, a convolution module and
         * subsampling a ViT block has not) is not the generic tower the estimate counts */
        int conformer = strcmp(tower_type, "gemma4_audio") == 0 ||
                        strcmp(tower_type, "gemma3n_audio") == 0;
        if (obj && c.toks[obj].type == KV_JSON_OBJECT && out.arch.known &&
            !out.arch.unknown[0] &&
            (conformer || t->hidden <= 0 || t->intermediate <= 0 || t->layers <= 0)) {
            kv_snprintf(out.arch.unknown, sizeof out.arch.unknown, "%s: %s", key,
                        conformer ? "its conformer audio encoder is not counted"
                                  : "its tower's widths are not counted");
            out.arch.known = 0;
        }
    }
    /* a vision or audio tower: SGLang leaves more headroom for such models */
    out.arch.vision_tower = lookup(&c, 0, "vision_config") != 0 ||
                            lookup(&c, 0, "audio_config") != 0;
    out.params_estimated = out.arch.known;
    *s = out;
    rc = 0;
done:
    index_free(&c.ix[0]);
    index_free(&c.ix[1]);
    free(toks);
    return rc == 0 ? KV_OK : KV_ERR_FORMAT;
}
