/*
 * consumer.c - a program outside the kvcalc tree that uses the installed library the way
 * a user would: only <kvcalc.h>, linked through pkg-config or find_package(kvcalc). Built
 * and run by tests/install/run.sh. Exits 0 when every figure matches, 1 otherwise.
 * Define EXPECTED_VERSION ("6.0.0") to check the header against the package metadata.
 */
#include <kvcalc.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "consumer: FAIL: %s\n", what);
        failures++;
    }
}

/* Llama-3.1-8B's config.json (meta-llama/Llama-3.1-8B), the fields that size the cache. */
static const char llama31_8b[] =
    "{\n"
    "  \"architectures\": [\"LlamaForCausalLM\"],\n"
    "  \"hidden_size\": 4096,\n"
    "  \"intermediate_size\": 14336,\n"
    "  \"max_position_embeddings\": 131072,\n"
    "  \"model_type\": \"llama\",\n"
    "  \"num_attention_heads\": 32,\n"
    "  \"num_hidden_layers\": 32,\n"
    "  \"num_key_value_heads\": 8,\n"
    "  \"tie_word_embeddings\": false,\n"
    "  \"torch_dtype\": \"bfloat16\",\n"
    "  \"vocab_size\": 128256\n"
    "}\n";

int main(void)
{
    kv_spec s;
    kv_result r;
    kv_model_info info;
    char err[512];

    printf("kvcalc %s\n", KVCALC_VERSION);
#ifdef EXPECTED_VERSION
    check(strcmp(KVCALC_VERSION, EXPECTED_VERSION) == 0, "KVCALC_VERSION is the package's version");
#endif

    /* The lesson's defaults: 28 layers x 4 KV heads x head_dim 128, fp16 KV; a 7B fp16 model
     * on a 48 GiB GPU with 2 GiB overhead, 4,096-token requests. */
    kv_spec_defaults(&s);
    check(kv_compute(&s, &r) == KV_OK, "kv_compute(defaults) == KV_OK");
    /* K and V x 28 layers x 4 KV heads x 128 x 2 bytes = 2*28*4*128*2 = 57,344 bytes a token */
    check(r.kv_bytes_per_token == 57344.0, "defaults: 57,344 KV bytes per token");
    /* x 4,096 tokens = 234,881,024 bytes = 224 MiB a request */
    check(kv_request_bytes(&s, 4096) == 234881024.0, "kv_request_bytes(defaults, 4096) == 234881024");
    check(r.kv_bytes_per_request == 234881024.0, "defaults: 224 MiB per request");
    /* 48 GiB - 7e9 x 2 bytes of weights (13.04 GiB) - 2 GiB overhead = 32.96 GiB free;
     * 32.96 GiB / 224 MiB = 35,392,123,904 / 234,881,024 = 150.68 -> floor = 150 requests */
    check(r.free_kv_bytes == 35392123904.0, "defaults: 32.96 GiB free for KV");
    check(r.max_concurrency == 150.0, "defaults: max_concurrency == 150");
    printf("defaults: %.0f bytes/token, %.0f bytes/request, max_concurrency %.0f\n",
           r.kv_bytes_per_token, r.kv_bytes_per_request, r.max_concurrency);

    /* A config.json: 32 layers, 8 KV heads, head_dim 4096 / 32 = 128, bf16 (2 bytes):
     * 2 x 32 x 8 x 128 x 2 = 131,072 KV bytes a token. */
    kv_spec_defaults(&s);
    if (kv_config_read(llama31_8b, sizeof llama31_8b - 1, "config.json", &s, &info, err,
                       sizeof err) != 0) {
        fprintf(stderr, "consumer: FAIL: kv_config_read: %s\n", err);
        return 1;
    }
    check(s.layers == 32 && s.kv_heads == 8 && s.head_dim == 128, "config: 32 x 8 x 128");
    check(s.dtype == KV_DTYPE_BF16, "config: bf16 KV cache");
    check(info.max_context == 131072, "config: max_position_embeddings 131072");
    check(kv_compute(&s, &r) == KV_OK, "kv_compute(config) == KV_OK");
    check(r.kv_bytes_per_token == 131072.0, "config: 131,072 KV bytes per token");
    printf("Llama-3.1-8B config: %.0f bytes/token\n", r.kv_bytes_per_token);

    const kv_model_preset *m = kv_model_preset_find("qwen3-8b");
    check(m != NULL && strcmp(m->id, "Qwen/Qwen3-8B") == 0, "kv_model_preset_find(qwen3-8b)");
    const kv_gpu *g = kv_gpu_find("h100");
    check(g != NULL && strcmp(g->name, "H100 80GB") == 0, "kv_gpu_find(h100)");
    if (m && g)
        printf("preset %s, GPU %s (%.2f GiB)\n", m->id, g->name, kv_gpu_gib(g));

    if (failures) {
        fprintf(stderr, "consumer: %d check(s) failed\n", failures);
        return 1;
    }
    puts("consumer: ok");
    return 0;
}
