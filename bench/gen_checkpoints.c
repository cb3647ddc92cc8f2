/*
 * gen_checkpoints.c - synthetic checkpoints for timing kvcalc's readers (issue 22): a
 * safetensors folder (config.json, model.safetensors.index.json and its shards, written as
 * the hub's libraries write them) and a GGUF file, both with as many tensors as asked, the
 * tensors tiny so that the files are mostly header. Also a folder of the same config and
 * ten tensors, and a GGUF of ten, the fixed cost to subtract.
 *
 * Usage: gen_checkpoints DIR [safetensors tensors, 100000] [shards, 10] [gguf tensors, 1000000]
 * Writes DIR/st (the big folder), DIR/st-small, DIR/big.gguf, DIR/small.gguf; the folders
 * DIR/st and DIR/st-small must exist (standard C makes no directory). ISO C11 only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static FILE *open_w(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die(path);
    return f;
}

static const char config[] =
    "{\n  \"architectures\": [\"Qwen3MoeForCausalLM\"],\n  \"head_dim\": 128,\n"
    "  \"hidden_size\": 4096,\n  \"intermediate_size\": 12288,\n"
    "  \"max_position_embeddings\": 40960,\n  \"model_type\": \"qwen3_moe\",\n"
    "  \"num_attention_heads\": 64,\n  \"num_hidden_layers\": 94,\n"
    "  \"num_key_value_heads\": 4,\n  \"num_experts\": 128,\n"
    "  \"moe_intermediate_size\": 1536,\n  \"torch_dtype\": \"bfloat16\",\n"
    "  \"vocab_size\": 151936\n}\n";

/* Tensor i's name: 94 layers of experts' projections, as a large MoE names them. */
static void st_name(char *out, size_t cap, long i, long n)
{
    static const char *const proj[] = {"gate_proj", "up_proj", "down_proj"};
    long per = n / 94 + 1;
    snprintf(out, cap, "model.layers.%ld.mlp.experts.%ld.%s.weight", i / per, (i % per) / 3,
             proj[i % 3]);
}

#define ST_BYTES 16 /* each tensor: BF16 [2, 4] */

/* A folder of n tensors in `shards` shards (n >= shards). */
static void write_folder(const char *dir, long n, long shards)
{
    char name[256], shard[64];
    FILE *f = open_w(dir, "config.json");
    fputs(config, f);
    fclose(f);
    f = open_w(dir, "model.safetensors.index.json");
    fprintf(f, "{\n  \"metadata\": {\n    \"total_size\": %ld\n  },\n  \"weight_map\": {\n",
            n * ST_BYTES);
    for (long i = 0; i < n; i++) {
        st_name(name, sizeof name, i, n);
        fprintf(f, "    \"%s\": \"model-%05ld-of-%05ld.safetensors\"%s\n", name,
                i * shards / n + 1, shards, i + 1 < n ? "," : "");
    }
    fputs("  }\n}\n", f);
    fclose(f);
    for (long s = 0; s < shards; s++) {
        long first = (s * n + shards - 1) / shards, end = ((s + 1) * n + shards - 1) / shards;
        size_t cap = 64 + (size_t)(end - first) * 160, len = 0;
        char *h = malloc(cap);
        if (!h)
            die("malloc");
        len += (size_t)snprintf(h + len, cap - len, "{\"__metadata__\":{\"format\":\"pt\"}");
        for (long i = first; i < end; i++) {
            st_name(name, sizeof name, i, n);
            long at = (i - first) * ST_BYTES;
            len += (size_t)snprintf(h + len, cap - len,
                                    ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[2,4],"
                                    "\"data_offsets\":[%ld,%ld]}",
                                    name, at, at + ST_BYTES);
        }
        h[len++] = '}';
        while (len % 8)
            h[len++] = ' ';
        snprintf(shard, sizeof shard, "model-%05ld-of-%05ld.safetensors", s + 1, shards);
        f = open_w(dir, shard);
        unsigned char le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (unsigned char)((uint64_t)len >> (8 * b));
        fwrite(le, 1, 8, f);
        fwrite(h, 1, len, f);
        static const char zeros[ST_BYTES];
        for (long i = first; i < end; i++)
            fwrite(zeros, 1, ST_BYTES, f);
        if (fclose(f) != 0)
            die(shard);
        free(h);
    }
}

static void put_le(FILE *f, uint64_t v, int n)
{
    for (int b = 0; b < n; b++)
        fputc((int)((v >> (8 * b)) & 0xFF), f);
}

static void put_str(FILE *f, const char *s)
{
    put_le(f, strlen(s), 8);
    fputs(s, f);
}

static void kv_u32(FILE *f, const char *key, uint32_t v)
{
    put_str(f, key);
    put_le(f, 4, 4); /* UINT32 */
    put_le(f, v, 4);
}

/* A llama GGUF of n tensors, F32 [8] each (32 bytes: no padding at alignment 32). */
static void write_gguf(const char *dir, const char *file, long n)
{
    FILE *f = open_w(dir, file);
    fputs("GGUF", f);
    put_le(f, 3, 4);
    put_le(f, (uint64_t)n, 8);
    put_le(f, 7, 8);
    put_str(f, "general.architecture");
    put_le(f, 8, 4); /* STRING */
    put_str(f, "llama");
    kv_u32(f, "llama.block_count", 64);
    kv_u32(f, "llama.context_length", 131072);
    kv_u32(f, "llama.embedding_length", 4096);
    kv_u32(f, "llama.attention.head_count", 32);
    kv_u32(f, "llama.attention.head_count_kv", 8);
    kv_u32(f, "llama.feed_forward_length", 14336);
    for (long i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "blk.%ld.ffn_down_exps.%ld.weight", i % 64, i / 64);
        put_str(f, name);
        put_le(f, 1, 4);  /* dimensions */
        put_le(f, 8, 8);  /* ne[0] */
        put_le(f, 0, 4);  /* F32 */
        put_le(f, (uint64_t)i * 32, 8);
    }
    for (long pos = ftell(f); pos % 32; pos++)
        fputc(0, f);
    static const char zeros[32];
    for (long i = 0; i < n; i++)
        fwrite(zeros, 1, sizeof zeros, f);
    if (fclose(f) != 0)
        die(file);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_checkpoints DIR [st tensors] [shards] [gguf tensors]\n");
        return 2;
    }
    long st = argc > 2 ? atol(argv[2]) : 100000, shards = argc > 3 ? atol(argv[3]) : 10;
    long gg = argc > 4 ? atol(argv[4]) : 1000000;
    if (st < shards || shards < 1 || gg < 0) {
        fprintf(stderr, "gen_checkpoints: want st tensors >= shards >= 1\n");
        return 2;
    }
    char d[4096];
    snprintf(d, sizeof d, "%s/st", argv[1]);
    write_folder(d, st, shards);
    snprintf(d, sizeof d, "%s/st-small", argv[1]);
    write_folder(d, 10, 1);
    write_gguf(argv[1], "big.gguf", gg);
    write_gguf(argv[1], "small.gguf", 10);
    return 0;
}
