/*
 * gguf_models.c - see gguf_models.h. Metadata from ground-truth.md §2 (the logs' dumps).
 */
#include "gguf_models.h"

#include <string.h>

const char *const gguf_model_ids[] = {"L01", "L06", "L08", "L09", NULL};

/* pythia-1.4B f16: no head_count_kv, no key_length (16 KV heads of 2048 / 16 = 128). */
static void l01(gguf_writer *w)
{
    static const int64_t embd[2] = {2048, 8}, qkv[2] = {2048, 64}, norm[1] = {2048};
    gw_str(w, "general.architecture", "gptneox");
    gw_u32(w, "gptneox.context_length", 2048);
    gw_u32(w, "gptneox.embedding_length", 2048);
    gw_u32(w, "gptneox.block_count", 24);
    gw_u32(w, "gptneox.attention.head_count", 16);
    gw_tensor(w, "token_embd.weight", 2, embd, GW_F16);
    gw_tensor(w, "blk.0.attn_qkv.weight", 2, qkv, GW_F16);
    gw_tensor(w, "blk.0.attn_norm.weight", 1, norm, GW_F32);
}

/* Qwen3.5-4B-MTP: 33 blocks (32 + one MTP block), every 4th layer attention. */
static void l06(gguf_writer *w)
{
    static const int64_t embd[2] = {2560, 8}, k[2] = {2560, 32}, norm[1] = {2560};
    gw_str(w, "general.architecture", "qwen35");
    gw_u32(w, "qwen35.block_count", 33);
    gw_u32(w, "qwen35.nextn_predict_layers", 1);
    gw_u32(w, "qwen35.full_attention_interval", 4);
    gw_u32(w, "qwen35.context_length", 262144);
    gw_u32(w, "qwen35.embedding_length", 2560);
    gw_u32(w, "qwen35.attention.head_count", 16);
    gw_u32(w, "qwen35.attention.head_count_kv", 4);
    gw_u32(w, "qwen35.attention.key_length", 256);
    gw_u32(w, "qwen35.attention.value_length", 256);
    gw_u32(w, "qwen35.ssm.conv_kernel", 4);
    gw_u32(w, "qwen35.ssm.inner_size", 4096);
    gw_u32(w, "qwen35.ssm.state_size", 128);
    gw_u32(w, "qwen35.ssm.group_count", 16);
    gw_u32(w, "qwen35.ssm.time_step_rank", 32);
    gw_tensor(w, "token_embd.weight", 2, embd, GW_Q4_K);
    gw_tensor(w, "blk.3.attn_k.weight", 2, k, GW_Q4_K);
    gw_tensor(w, "blk.3.attn_norm.weight", 1, norm, GW_F32);
}

/* gemma-2-2b-it: 26 layers alternating sliding (window 4096, no pattern key) and full. */
static void l08(gguf_writer *w)
{
    static const int64_t embd[2] = {2304, 8}, k[2] = {2304, 16}, norm[1] = {2304};
    gw_str(w, "general.architecture", "gemma2");
    gw_u32(w, "gemma2.context_length", 8192);
    gw_u32(w, "gemma2.embedding_length", 2304);
    gw_u32(w, "gemma2.block_count", 26);
    gw_u32(w, "gemma2.feed_forward_length", 9216);
    gw_u32(w, "gemma2.attention.head_count", 8);
    gw_u32(w, "gemma2.attention.head_count_kv", 4);
    gw_u32(w, "gemma2.attention.key_length", 256);
    gw_u32(w, "gemma2.attention.value_length", 256);
    gw_u32(w, "gemma2.attention.sliding_window", 4096);
    gw_tensor(w, "token_embd.weight", 2, embd, GW_Q6_K);
    gw_tensor(w, "blk.0.attn_k.weight", 2, k, GW_Q4_K);
    gw_tensor(w, "blk.0.attn_norm.weight", 1, norm, GW_F32);
}

/* gpt-oss-20b: 24 layers, even ones slide (window 128), MXFP4 experts. The tokenizer is cut
 * to four tokens (the real one has 201,088 and 446,189 merges; it does not enter KV). */
static void l09(gguf_writer *w)
{
    static const int64_t embd[2] = {2880, 8}, k[2] = {2880, 512}, exps[3] = {2880, 8, 4},
                         norm[1] = {2880};
    static const char *const tokens[] = {"!", "\"", "#", "<|endoftext|>"};
    gw_str(w, "general.architecture", "gpt-oss");
    gw_u32(w, "gpt-oss.block_count", 24);
    gw_u32(w, "gpt-oss.context_length", 131072);
    gw_u32(w, "gpt-oss.embedding_length", 2880);
    gw_u32(w, "gpt-oss.feed_forward_length", 2880);
    gw_u32(w, "gpt-oss.attention.head_count", 64);
    gw_u32(w, "gpt-oss.attention.head_count_kv", 8);
    gw_u32(w, "gpt-oss.attention.key_length", 64);
    gw_u32(w, "gpt-oss.attention.value_length", 64);
    gw_u32(w, "gpt-oss.attention.sliding_window", 128);
    gw_u32(w, "gpt-oss.expert_count", 32);
    gw_u32(w, "gpt-oss.expert_used_count", 4);
    gw_u32(w, "gpt-oss.expert_feed_forward_length", 2880);
    gw_f32(w, "gpt-oss.rope.freq_base", 150000.0f);
    gw_str(w, "gpt-oss.rope.scaling.type", "yarn");
    gw_f32(w, "gpt-oss.rope.scaling.factor", 32.0f);
    gw_u32(w, "gpt-oss.rope.scaling.original_context_length", 4096);
    gw_str(w, "tokenizer.ggml.model", "gpt2");
    gw_str_array(w, "tokenizer.ggml.tokens", tokens, 4);
    gw_u32(w, "general.file_type", 38);
    gw_tensor(w, "token_embd.weight", 2, embd, GW_Q8_0);
    gw_tensor(w, "blk.0.attn_k.weight", 2, k, GW_Q8_0);
    gw_tensor(w, "blk.0.ffn_gate_exps.weight", 3, exps, GW_MXFP4);
    gw_tensor(w, "blk.0.attn_norm.weight", 1, norm, GW_F32);
}

int gguf_model_build(const char *id, gguf_writer *w)
{
    static const struct { const char *id; void (*build)(gguf_writer *); } models[] = {
        {"L01", l01}, {"L06", l06}, {"L08", l08}, {"L09", l09}};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].id, id) == 0) {
            models[i].build(w);
            return 0;
        }
    return -1;
}
