/*
 * folder.c - a model folder (what `huggingface-cli download` or `git clone` leaves): its
 * config.json for the geometry and its safetensors headers for the weights as stored; or,
 * without a config.json, its GGUF file. Also the offline look-up of a model id in the local
 * Hugging Face hub cache. Only headers are read, each shard once.
 */
#include "config.h"
#include "json_scan.h"
#include "kvcalc_json.h"
#include "kvprint.h"
#include "safetensors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INDEX_MAX_BYTES (64u << 20) /* DeepSeek-V3's index is 9 MB; refuse more than 64 MiB */
#define INDEX_MAX_DEPTH 8

/* dir + "/" + name into out; -1 when it does not fit (never a truncated path). */
static int join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
    int n = kv_snprintf(out, cap, "%s%s%s", dir, sep, name);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static void free_names(char **v, long n)
{
    for (long i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* 1 when path is a directory: "PATH/." opens only then (fopen fails with ENOTDIR for a
 * file); where a directory cannot be opened at all, a folder is still recognised by the
 * config.json it holds. Standard C has no stat(). */
static int dir_exists(const char *path)
{
    char dot[4096];
    if (kv_snprintf(dot, sizeof dot, "%s/.", path) >= (int)sizeof dot)
        return 0;
    FILE *f = fopen(dot, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL && !dir_exists(path);
}

int kv_folder_probe(const char *path)
{
    char cfg[4096];
    /* a directory, or (where a directory cannot be opened) one holding a config.json */
    return dir_exists(path) ||
           (join(cfg, sizeof cfg, path, "config.json") == 0 && file_exists(cfg));
}

/* Reads a whole file of at most max bytes (a safetensors index). Returns 0 or 2. */
static int slurp(const char *path, const char *shown, size_t max, char **text, size_t *len,
                 char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        kv_snprintf(err, errcap, "%s: cannot open: %s", shown, strerror(errno));
        return KV_ERR_FILE;
    }
    size_t cap = 1u << 16, n = 0;
    char *buf = NULL;
    int rc = 0;
    for (;;) {
        char *bigger = realloc(buf, cap);
        if (!bigger) {
            kv_snprintf(err, errcap, "%s: out of memory", shown);
            rc = KV_ERR_NO_MEMORY;
            break;
        }
        buf = bigger;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            if (ferror(f)) {
                kv_snprintf(err, errcap, "%s: read error", shown);
                rc = KV_ERR_FILE;
            }
            break;
        }
        if (cap >= max) {
            kv_snprintf(err, errcap, "%s: file too large (over %zu MiB)", shown,
                     max >> 20);
            rc = KV_ERR_FORMAT;
            break;
        }
        cap = cap * 2 > max ? max : cap * 2;
    }
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return 0;
}

/* "FILE:LINE:COL: what" at byte `at` of a JSON text (config.json's style). */
static int json_fail(const char *shown, const char *text, size_t len, size_t at,
                     const char *what, const char *detail, char *err, size_t errcap)
{
    size_t line, col;
    kv_json_locate(text, len, at, &line, &col);
    kv_snprintf(err, errcap, "%s:%zu:%zu: %s%s", shown, line, col, what, detail);
    return KV_ERR_FORMAT;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A shard name from weight_map (its n bytes, decoded) must be a plain file of this folder:
 * no NUL (a \u0000 would cut the path), no '/', no "..". */
static int plain_file_name(const char *s, size_t n)
{
    return n > 0 && !memchr(s, '\0', n) && !memchr(s, '/', n) && !memchr(s, '\\', n) &&
           s[0] != '.';
}

/* The distinct shard names seen so far: the names (malloc'ed) and an open-addressing table
 * of their indices + 1 by hash, so that each weight_map entry costs a look-up, not a string
 * of its own (an index names 100,000 tensors and a handful of shards). */
typedef struct {
    char **v;
    size_t n, cap;      /* names, room in v */
    size_t *slot;       /* index + 1 of a name; 0: empty */
    size_t *hash;       /* each name's hash */
    size_t slots;       /* a power of two, at least twice n */
} name_set;

static size_t bytes_hash(const char *s, size_t n)
{
    size_t h = (size_t)14695981039346656037ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * (size_t)1099511628211u;
    return h;
}

/* The index + 1 of the name s (n bytes, hash h), or 0. */
static size_t set_find(const name_set *ns, const char *s, size_t n, size_t h)
{
    for (size_t k = h & (ns->slots - 1); ns->slot[k]; k = (k + 1) & (ns->slots - 1)) {
        size_t i = ns->slot[k] - 1;
        if (ns->hash[i] == h && strlen(ns->v[i]) == n && memcmp(ns->v[i], s, n) == 0)
            return i + 1;
    }
    return 0;
}

/* Adds s (malloc'ed, n bytes, hash h, not in the set): 0, or -1 out of memory (s freed). */
static int set_add(name_set *ns, char *s, size_t h)
{
    if (ns->n == ns->cap) {
        size_t cap = ns->cap * 2 + 8;
        char **v = realloc(ns->v, cap * sizeof *v);
        size_t *hash = v ? realloc(ns->hash, cap * sizeof *hash) : NULL;
        if (v)
            ns->v = v;
        if (!v || !hash) {
            free(s);
            return -1;
        }
        ns->hash = hash;
        ns->cap = cap;
    }
    if (2 * (ns->n + 1) > ns->slots) { /* rehash into twice the slots */
        size_t slots = ns->slots ? ns->slots * 2 : 16;
        size_t *slot = calloc(slots, sizeof *slot);
        if (!slot) {
            free(s);
            return -1;
        }
        for (size_t i = 0; i < ns->n; i++) {
            size_t k = ns->hash[i] & (slots - 1);
            while (slot[k])
                k = (k + 1) & (slots - 1);
            slot[k] = i + 1;
        }
        free(ns->slot);
        ns->slot = slot;
        ns->slots = slots;
    }
    size_t k = h & (ns->slots - 1);
    while (ns->slot[k])
        k = (k + 1) & (ns->slots - 1);
    ns->v[ns->n] = s;
    ns->hash[ns->n] = h;
    ns->slot[k] = ++ns->n;
    return 0;
}

static void set_free(name_set *ns)
{
    free_names(ns->v, (long)ns->n);
    free(ns->slot);
    free(ns->hash);
}

/* The set's names, sorted (one header read per shard, however many tensors, in the order of
 * their names), as the caller's malloc'ed array; the rest of the set freed. -1 out of
 * memory (the set freed). */
static long set_sorted(name_set *ns, char ***out)
{
    free(ns->slot);
    free(ns->hash);
    if (!ns->v && !(ns->v = malloc(sizeof *ns->v))) /* an empty map: an empty list */
        return -1;
    qsort(ns->v, ns->n, sizeof *ns->v, by_string);
    *out = ns->v;
    return (long)ns->n;
}

/* The distinct shard names of weight_map (object token wm), sorted, malloc'ed. An entry whose
 * bytes are those of the entry before it (the usual case: the map is sorted by tensor, the
 * shards in runs) is the same shard; one without escapes is looked up by its bytes as
 * written (they are its decoded name); only a new name is decoded, checked and kept. */
static long shard_names(const char *text, size_t len, const kv_json_tok *t, size_t wm,
                        const char *shown, char ***out, char *err, size_t errcap)
{
    name_set ns = {NULL, 0, 0, NULL, NULL, 0};
    size_t i = wm + 1, last_at = 0, last_len = 0;
    int have_last = 0;
    for (size_t k = 0; k < t[wm].size; k++, i = t[i + 1].next) {
        const kv_json_tok *val = &t[i + 1];
        const char *raw = text + val->start;
        size_t rl = val->end - val->start;
        if (val->type == KV_JSON_STRING && have_last && rl == last_len &&
            memcmp(raw, text + last_at, rl) == 0)
            continue;
        int plain = val->type == KV_JSON_STRING && !memchr(raw, '\\', rl);
        size_t h = plain ? bytes_hash(raw, rl) : 0;
        if (plain && ns.slots && set_find(&ns, raw, rl, h)) {
            have_last = 1, last_at = val->start, last_len = rl;
            continue;
        }
        size_t need = kv_json_string_decode(text, val, NULL, 0) + 1;
        char *s = val->type == KV_JSON_STRING ? malloc(need) : NULL;
        if (s)
            kv_json_string_decode(text, val, s, need);
        if (!s || !plain_file_name(s, need - 1)) {
            free(s);
            set_free(&ns);
            json_fail(shown, text, len, val->start, "weight_map: ",
                      val->type != KV_JSON_STRING ? "a shard must be a file name (a string)"
                                               : "a shard must be a file of this folder",
                      err, errcap);
            return -1;
        }
        h = bytes_hash(s, need - 1); /* the decoded name's (the same bytes when plain) */
        if (ns.slots && set_find(&ns, s, need - 1, h)) {
            free(s);
        } else if (set_add(&ns, s, h) < 0) {
            set_free(&ns);
            kv_snprintf(err, errcap, "%s: out of memory", shown);
            return -1;
        }
        have_last = 1, last_at = val->start, last_len = rl;
    }
    long n = set_sorted(&ns, out);
    if (n < 0)
        kv_snprintf(err, errcap, "%s: out of memory", shown);
    return n;
}

/* Tokenizes an index file; the token array grows as the file needs. */
static long index_tokens(const char *text, size_t len, const char *shown, kv_json_tok **toks,
                         char *err, size_t errcap)
{
    kv_json_error je = {0, 0, NULL};
    long used = kv_json_parse_grow(text, len, toks, 4096, len / 2 + 2, INDEX_MAX_DEPTH, &je);
    if (used < 0)
        kv_snprintf(err, errcap, "%s:%zu:%zu: %s", shown, je.line, je.col, je.msg);
    return used;
}

/* ---- an index in one pass ----
 *
 * A 100,000-tensor index is 9 MB of JSON that the tokenizer turns into 200,000 tokens, for
 * a handful of shard names (issue 22). Indexes are written by the hub's libraries and look
 * alike: {"metadata": {"total_size": N}, "weight_map": {"tensor": "shard", ...}}, strings
 * of printable ASCII. index_fast reads such an index in one pass with no token: a name of
 * the shard before it is seen from its bytes alone, and only a new name is checked and kept.
 *
 * It reads a strict subset of JSON (json.c's grammar and whitespace, json_scan.h) and gives
 * up - the tokens then read the index from the start - on anything else: a string with an
 * escape, UTF-8 or a control character; a top-level value other than weight_map that is not
 * an object of such strings and plain integers; weight_map twice or not at all; a shard name
 * shard_names would refuse; more tokens than the tokenizer allows; any JSON error. So its
 * names are those shard_names finds, and every message is still the token path's. */

/* weight_map's object at c: its shard names into ns. The byte after its '}', or NULL. */
static const unsigned char *fast_weight_map(const unsigned char *c, const unsigned char *e,
                                            name_set *ns, size_t *toks)
{
    const unsigned char *last = NULL; /* the value before, its bytes as written */
    size_t last_len = 0;
    if (c >= e || *c != '{')
        return NULL;
    ++*toks;
    c = kv_json_ws_end(c + 1, e);
    if (c < e && *c == '}')
        return c + 1;
    for (;;) {
        const unsigned char *s, *q = kv_json_plain_string(c, e, &s);
        if (!q || !(c = kv_json_expect(q + 1, e, ':')))
            return NULL;
        c = kv_json_ws_end(c, e);
        if (last && c < e && *c == '"' && (size_t)(e - c) > last_len + 1 &&
            c[last_len + 1] == '"' && memcmp(c + 1, last, last_len) == 0) {
            c += last_len + 2; /* the bytes of the name before and its end: that name again */
        } else {
            if (!(q = kv_json_plain_string(c, e, &s)))
                return NULL;
            size_t n = (size_t)(q - s), h = bytes_hash((const char *)s, n);
            if (!plain_file_name((const char *)s, n))
                return NULL;
            if (!ns->slots || !set_find(ns, (const char *)s, n, h)) {
                char *copy = malloc(n + 1);
                if (!copy)
                    return NULL; /* the token path says "out of memory" if it is so */
                memcpy(copy, s, n);
                copy[n] = '\0';
                if (set_add(ns, copy, h) < 0)
                    return NULL;
            }
            last = s, last_len = n;
            c = q + 1;
        }
        *toks += 2;
        int k = kv_json_after_member(&c, e, '}');
        if (k > 0)
            continue;
        return k == 0 ? c + 1 : NULL;
    }
}

/* The shard names of the index text[0..len) in one pass, as shard_names gives them; -1 when
 * the tokens must read it. */
static long index_fast(const char *text, size_t len, char ***out)
{
    const unsigned char *c = (const unsigned char *)text, *e = c + len;
    name_set ns = {NULL, 0, 0, NULL, NULL, 0};
    size_t toks = 1;
    int have_map = 0;
    c = kv_json_ws_end(c, e);
    if (c >= e || *c != '{')
        goto give_up;
    c = kv_json_ws_end(c + 1, e);
    for (;;) {
        const unsigned char *k, *q = kv_json_plain_string(c, e, &k);
        if (!q || !(c = kv_json_expect(q + 1, e, ':')))
            goto give_up;
        c = kv_json_ws_end(c, e);
        if (q - k == 10 && memcmp(k, "weight_map", 10) == 0) {
            if (have_map++ || !(c = fast_weight_map(c, e, &ns, &toks)))
                goto give_up; /* twice: the last one counts, as kv_json_find says */
        } else if (!(c = kv_json_flat_object(c, e, &toks, 1))) {
            goto give_up;
        }
        toks++; /* the key */
        int next = kv_json_after_member(&c, e, '}');
        if (next > 0)
            continue;
        if (next == 0)
            break;
        goto give_up;
    }
    if (!have_map || kv_json_ws_end(c + 1, e) != e || toks > len / 2 + 2) /* index_tokens' */
        goto give_up;
    return set_sorted(&ns, out);
give_up:
    set_free(&ns);
    return -1;
}

long kv_index_shards(const char *text, size_t len, const char *shown, int fast,
                     int *took_fast, char ***names, char *err, size_t errcap)
{
    if (took_fast)
        *took_fast = 0;
    long n = fast ? index_fast(text, len, names) : -1;
    if (n >= 0) {
        if (took_fast)
            *took_fast = 1;
        return n;
    }
    kv_json_tok *t = NULL;
    if (index_tokens(text, len, shown, &t, err, errcap) > 0) {
        size_t wm = t[0].type == KV_JSON_OBJECT ? kv_json_find(text, t, 0, "weight_map") : 0;
        if (!wm || t[wm].type != KV_JSON_OBJECT)
            json_fail(shown, text, len, wm ? t[wm].start : 0,
                      "no weight_map object (the tensor -> shard table)", "", err, errcap);
        else
            n = shard_names(text, len, t, wm, shown, names, err, errcap);
    }
    free(t);
    return n;
}

/* model.safetensors.index.json: every shard its weight_map names, each header once. */
static int read_index(const char *dir, const char *path, int64_t layers,
                      kv_safetensors_info *st, char *err, size_t errcap)
{
    char shown[1024], shard[4096];
    config_path_shown(shown, sizeof shown, path);
    char *text = NULL, **names = NULL;
    size_t len = 0;
    long n = -1;
    int rc = slurp(path, shown, INDEX_MAX_BYTES, &text, &len, err, errcap);
    if (rc == 0)
        n = kv_index_shards(text, len, shown, 1, NULL, &names, err, errcap);
    rc = n < 0 ? KV_ERR_FORMAT : KV_OK;
    for (long i = 0; i < n && rc == 0; i++) {
        if (join(shard, sizeof shard, dir, names[i]) < 0)
            rc = KV_ERR_FORMAT, kv_snprintf(err, errcap, "%s: shard path too long", shown);
        else
            rc = kv_safetensors_load_file(shard, layers, st, err, errcap);
    }
    if (names)
        free_names(names, n);
    free(text);
    return rc;
}

/* Whether the folder holds a first shard of the hub's naming, model-00001-of-NNNNN.safetensors,
 * for NNNNN up to 1,000 (standard C lists no directory: the names are tried). */
static int has_shards(const char *dir)
{
    char name[64], path[4096];
    for (int n = 1; n <= 1000; n++) {
        kv_snprintf(name, sizeof name, "model-00001-of-%05d.safetensors", n);
        if (join(path, sizeof path, dir, name) == 0 && file_exists(path))
            return 1;
    }
    return 0;
}

/* The weights: from the index (its shards), model.safetensors or Mistral's
 * consolidated.safetensors - the names the hub's libraries write. Other file names would
 * need a directory listing, which standard C does not have: the estimate is used then. */
static kv_status folder_weights(const char *dir, kv_spec *s, kv_folder_info *f, char *err,
                                size_t errcap)
{
    char path[4096];
    int rc;
    if (join(path, sizeof path, dir, "model.safetensors.index.json") == 0 && file_exists(path))
        rc = read_index(dir, path, s->layers, &f->st, err, errcap);
    else if (join(path, sizeof path, dir, "model.safetensors") == 0 && file_exists(path))
        rc = kv_safetensors_load_file(path, s->layers, &f->st, err, errcap);
    else if (join(path, sizeof path, dir, "consolidated.safetensors") == 0 && file_exists(path))
        rc = kv_safetensors_load_file(path, s->layers, &f->st, err, errcap);
    else
        rc = 0;
    if (rc)
        return (kv_status)rc;
    /* the weights a server loads: MTP / draft heads only serve speculative decoding, so they
     * are left out (as the estimate leaves them out) and reported apart */
    double bytes = 0, params = 0;
    for (int p = 0; p < KV_PARTS; p++) {
        bytes += p == KV_PART_MTP ? 0 : (double)f->st.bytes[p];
        params += p == KV_PART_MTP ? 0 : (double)f->st.params[p];
    }
    if (bytes <= 0) { /* no safetensors (or only empty ones): the estimate, and say so */
        s->weights_source = has_shards(dir) ? KV_WEIGHTS_NO_INDEX : KV_WEIGHTS_NO_FILES;
        return 0;
    }
    s->checkpoint_tower_bytes =
        (double)(f->st.bytes[KV_PART_VISION] + f->st.bytes[KV_PART_AUDIO]);
    s->checkpoint_mtp_bytes = (double)f->st.bytes[KV_PART_MTP];
    s->checkpoint_weights_bytes = bytes;
    s->checkpoint_params = params;
    s->params_b = params / 1e9;
    s->params_estimated = 0;
    s->weights_source = KV_WEIGHTS_SAFETENSORS;
    return 0;
}

/* A folder without config.json. A lone .gguf file inside would need a directory listing,
 * which standard C does not have: the message says to name the file. */
static int folder_gguf(const char *shown, kv_folder_info *f, char *err, size_t errcap)
{
    kv_snprintf(err, errcap, "%s: no config.json in this folder (for a GGUF model, give "
             "the .gguf file itself)", shown);
    f->gguf = 0;
    return KV_ERR_FORMAT;
}

kv_status kv_folder_load(const char *dir, kv_spec *s, kv_model_info *info, kv_folder_info *f,
                   char *err, size_t errcap)
{
    char shown[1024];
    config_path_shown(shown, sizeof shown, dir);
    memset(f, 0, sizeof *f);
    if (join(f->model_file, sizeof f->model_file, dir, "config.json") < 0) {
        kv_snprintf(err, errcap, "%s: path too long", shown);
        return KV_ERR_FORMAT;
    }
    if (!file_exists(f->model_file))
        return folder_gguf(shown, f, err, errcap);
    char *text = NULL, label[1024];
    size_t len = 0;
    config_path_shown(label, sizeof label, f->model_file);
    int rc = kv_config_load_file(f->model_file, &text, &len, err, errcap);
    if (rc == 0) {
        rc = kv_config_read(text, len, label, s, info, err, errcap);
        free(text);
    }
    return rc ? (kv_status)rc : folder_weights(dir, s, f, err, errcap);
}

/* ---- the Hugging Face hub cache ---- */

/* An id the hub could hold: "org/name", each part of [A-Za-z0-9._-], not starting with '.'
 * (so that it can only name a folder inside the cache). */
static int hub_id(const char *id, const char **slash)
{
    const char *p = strchr(id, '/');
    if (!p || p == id || !p[1] || strchr(p + 1, '/') || id[0] == '.' || p[1] == '.')
        return 0;
    for (const char *c = id; *c; c++)
        if (c != p && !(*c == '.' || *c == '_' || *c == '-' || (*c >= '0' && *c <= '9') ||
                        (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')))
            return 0;
    *slash = p;
    return 1;
}

/* The cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
static int hub_folder(char *out, size_t cap)
{
    const char *v = getenv("HF_HUB_CACHE");
    if (v && *v)
        return kv_snprintf(out, cap, "%s", v) < (int)cap ? 0 : -1;
    v = getenv("HF_HOME");
    if (v && *v)
        return join(out, cap, v, "hub");
    v = getenv("HOME");
    if (v && *v)
        return join(out, cap, v, ".cache/huggingface/hub");
    return -1;
}

/* refs/main's revision (a commit hash): one line of [A-Za-z0-9._-]. */
static int read_ref(const char *path, char *rev, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(rev, 1, cap - 1, f);
    fclose(f);
    while (n > 0 && (rev[n - 1] == '\n' || rev[n - 1] == '\r' || rev[n - 1] == ' '))
        n--;
    rev[n] = '\0';
    const char *dummy;
    char probe[300];
    kv_snprintf(probe, sizeof probe, "x/%s", rev); /* the same alphabet as an id's part */
    return n > 0 && n < 256 && hub_id(probe, &dummy) ? 0 : -1;
}

int kv_hf_cache_find(const char *id, char *dir, size_t cap, char *looked, size_t lcap)
{
    char hub[2048], repo[3072], path[4096], rev[256];
    const char *slash;
    if (lcap)
        looked[0] = '\0';
    if (hub_folder(hub, sizeof hub) < 0)
        return 0;
    if (lcap)
        kv_snprintf(looked, lcap, "%s", hub);
    if (!hub_id(id, &slash))
        return 0;
    /* models--org--name: the hub's folder for a model repository */
    if (kv_snprintf(repo, sizeof repo, "%s/models--%.*s--%s", hub, (int)(slash - id), id,
                 slash + 1) >= (int)sizeof repo || !dir_exists(repo))
        return 0;
    if (join(path, sizeof path, repo, "refs/main") == 0 && read_ref(path, rev, sizeof rev) == 0 &&
        kv_snprintf(path, sizeof path, "%s/snapshots/%s", repo, rev) < (int)sizeof path &&
        dir_exists(path))
        return kv_snprintf(dir, cap, "%s", path) < (int)cap;
    return 0; /* no refs/main: which snapshot is meant cannot be told without a listing */
}
