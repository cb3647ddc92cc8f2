/*
 * workload.c - capacity under a workload: the closed forms, and a deterministic step-level
 * simulation of one replica's scheduler.
 *
 * The engine says how it schedules (kv_sched, from its descriptor's `sched`); this file
 * names no engine. One step is one schedule() call and one forward pass: running requests
 * first, in the order they were admitted, then waiting ones while the step's token budget,
 * the running cap and the cache allow. A request of prompt P and output O computes its P
 * prompt tokens (in chunks when the budget cuts them), samples a token each time its cache
 * has caught up with its known tokens, and finishes with its O-th token, which is never
 * computed: it holds the blocks of P + j - 1 tokens at its j-th step.
 *
 * Time: a step takes tpot, and each prompt token it computes adds c = (ttft - tpot) / (mean
 * prompt), so a request of the mean prompt alone sees its ttft. Both are the user's figures
 * (or a metrics scrape's), or, without a tpot, the step is estimated from the memory-bandwidth
 * roofline of one GPU (kv_workload_roofline(), step_at()): labelled so in the result.
 *
 * The library allocates nothing: the caller gives scratch memory of
 * kv_workload_scratch_bytes().
 */
#include "engine.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kvmath.h"
#include "kvprint.h"

#define Z99 2.3263478740408408 /* the standard normal's 99th percentile */
#define HIST_BINS 65536        /* usage histogram: exact for pools below this many blocks */
#define WARMUP_SHARE 10        /* the first and the last tenth of arrivals are left out of
                                  the means: the run fills, then drains */
#define ONSET_SCAN KV_WORKLOAD_CURVE /* rates scanned for the preemption onset ... */
#define ONSET_STEPS 10         /* ... and bisection steps in the first that preempts */
#define RUN_BUDGET 5e8          /* request-steps of the run at the rate asked for: more is
                                  refused, naming --requests */
#define ONSET_BUDGET 200000000 /* request-steps the search may take (about 2 s here): past it
                                  the search stops and says so (onset_cut) */

kv_status kv_sched_refuse(kv_error *why, const char *msg)
{
    if (why) {
        why->code = KV_ERR_WORKLOAD;
        why->blamed = NULL;
        kv_snprintf(why->msg, sizeof why->msg, "%s", msg);
    }
    return KV_ERR_WORKLOAD;
}

static kv_status refuse(kv_error *why, const char *fmt, const char *a, double x)
{
    if (why) {
        why->code = KV_ERR_WORKLOAD;
        why->blamed = NULL;
        kv_snprintf(why->msg, sizeof why->msg, fmt, a, x);
    }
    return KV_ERR_WORKLOAD;
}

/* ---- the step's roofline ----------------------------------------------------------------- */

/* What the estimate assumes and leaves out (kv_workload_result.step_assumes). */
#define ROOFLINE_WORDS                                                                      \
    "the memory-bandwidth roofline of one GPU: a decode step reads the weights on it once and "  \
    "the KV cache its running requests hold, at its peak bandwidth; the running requests by "   \
    "Little's law at each rate (rate x output x step, decode steps only), or a closed loop's "  \
    "clients, at most the requests the pool holds; each limit's rate at the step where it "     \
    "binds; compute, the kernels' efficiency, communication and prefill are not counted, and "  \
    "within a run the step does not change with its batch"
static const char roofline_words[] = ROOFLINE_WORDS;
static const char roofline_words_moe[] =
    ROOFLINE_WORDS "; every MoE expert is counted read each step (a small batch reads fewer)";

kv_status kv_workload_roofline(const kv_spec *s, const kv_result *r, const kv_sched *sc,
                               const kv_gpu *g, kv_workload *w, kv_error *why)
{
    memset(&w->roofline, 0, sizeof w->roofline);
    if (!g)
        return refuse(why, "no GPU is named whose memory bandwidth kvcalc knows%s", "", 0);
    if (!(g->bandwidth_gbs > 0) || !isfinite(g->bandwidth_gbs))
        return refuse(why, "the memory bandwidth of %s is not known (data/gpus/SOURCES.md)%.0s",
                      g->name, 0);
    if (s->pp > 1)
        return refuse(why, "%sthe roofline times one GPU's reads, and with pipeline parallelism "
                           "a step passes its %.0f stages in turn", "", (double)s->pp);
    double blocks = (double)sc->pool_blocks + (double)sc->reserved_blocks;
    double block = blocks >= 1 ? r->kv_cache_bytes / blocks : 0, host = 0;
    double weights = r->weights_bytes;
    const kv_engine_desc *d = kv_engine_get(s->engine);
    if (d && d->step_reads)
        weights = d->step_reads(s, r, &block, &host);
    if (isnan(host))
        return refuse(why, "kvcalc does not know how %s splits the model between the GPU and "
                           "host memory here, so not what a step reads from each%.0s",
                      d ? d->title : "the engine", 0);
    if (host > 0)
        return refuse(why, "%s reads part of its weights or cache from host memory each step "
                           "(%.2f GiB): the GPU's roofline does not time it",
                      d ? d->title : "the engine", host / KV_GIB);
    if (!(block > 0) || !isfinite(block) || !(weights >= 0) || !isfinite(weights))
        return refuse(why, "the engine's cache or weights give the roofline nothing to read%s", "",
                      0);
    w->roofline.gpu = g->name;
    w->roofline.form = g->bandwidth_form ? g->bandwidth_form : "";
    w->roofline.bandwidth = g->bandwidth_gbs * 1e9;
    w->roofline.weights_bytes = weights;
    w->roofline.block_bytes = block;
    w->roofline.moe = s->arch.experts > 0;
    return KV_OK;
}

/* The step's time at a load: given (tpot, and c = (ttft - tpot) / mean prompt for each prompt
 * token a step computes), or the roofline's: t = (W + K) / B, W the weights' bytes, B the
 * bandwidth, K the bytes of the blocks the running requests hold (k each). At a rate Little's
 * law holds lambda x S x t of them (S a request's blocks summed over its steps, lambda the rate
 * of the requests the engine admits), so t = W / (B - lambda x S x k); a closed loop's N
 * clients hold min(N, fit) x the mean blocks; either at most the requests the pool holds
 * (fit), where t = (W + fit x mean x k) / B. */
typedef struct {
    const kv_roofline *rf;    /* NULL: the step is given */
    double tpot_ms, ttft_ms;  /* the workload's */
    double admitted;          /* the share of requests the engine admits (not refused) */
    double block_steps, blocks_mean, fit, prompt_mean;
} step_model;

/* c for a step of t seconds: (ttft - tpot) / mean prompt when ttft is longer, else 0 */
static double prefill_per_token(const step_model *m, double t_ms)
{
    return m->ttft_ms > t_ms ? (m->ttft_ms - t_ms) / 1000.0 / m->prompt_mean : 0;
}

/* The roofline's step while `blocks` are held */
static double step_holding(const kv_roofline *rf, double blocks)
{
    return (rf->weights_bytes + blocks * rf->block_bytes) / rf->bandwidth;
}

/* The step and c at rate x (or `clients` in a closed loop); *held the blocks the running
 * requests hold (NaN: the step is given). */
static double step_at(const step_model *m, double x, int64_t clients, double *c, double *held)
{
    if (!m->rf) {
        *held = NAN;
        *c = prefill_per_token(m, m->tpot_ms);
        return m->tpot_ms / 1000.0;
    }
    const kv_roofline *rf = m->rf;
    double most = m->fit * m->blocks_mean, t;
    if (clients > 0) {
        *held = ((double)clients < m->fit ? (double)clients : m->fit) * m->blocks_mean;
        t = step_holding(rf, *held);
    } else {
        double lambda = x * m->admitted, t_full = step_holding(rf, most);
        double room = rf->bandwidth - lambda * m->block_steps * rf->block_bytes;
        t = room > 0 ? rf->weights_bytes / room : INFINITY;
        if (t < t_full) {
            *held = lambda * m->block_steps * t;
        } else {
            *held = most;
            t = t_full;
        }
    }
    *c = prefill_per_token(m, t * 1000.0);
    return t;
}

/* ---- lengths ---------------------------------------------------------------------------- */

kv_status kv_dist_lognormal(double mean, double median, double p99, kv_dist *out)
{
    int given = !isnan(mean) + !isnan(median) + !isnan(p99);
    if (given != 2)
        return KV_ERR_WORKLOAD;
    if ((!isnan(mean) && !(mean >= 1 && isfinite(mean))) ||
        (!isnan(median) && !(median >= 1 && isfinite(median))) ||
        (!isnan(p99) && !(p99 >= 1 && isfinite(p99))))
        return KV_ERR_WORKLOAD;
    double mu, sigma;
    if (isnan(mean)) { /* median and p99 */
        if (!(p99 > median))
            return KV_ERR_WORKLOAD;
        mu = kvm_log(median);
        sigma = (kvm_log(p99) - mu) / Z99;
    } else if (isnan(p99)) { /* mean and median: mean = median x exp(sigma^2 / 2) */
        if (!(mean > median))
            return KV_ERR_WORKLOAD;
        mu = kvm_log(median);
        sigma = kvm_sqrt(2.0 * kvm_log(mean / median));
    } else { /* mean and p99: ln mean = mu + s^2/2, ln p99 = mu + z s */
        double c = kvm_log(p99 / mean), disc = Z99 * Z99 - 2.0 * c;
        if (!(p99 > mean) || disc < 0)
            return KV_ERR_WORKLOAD;
        sigma = Z99 - kvm_sqrt(disc);
        mu = kvm_log(mean) - sigma * sigma / 2.0;
    }
    if (!(sigma > 0) || !isfinite(mu))
        return KV_ERR_WORKLOAD;
    out->kind = KV_DIST_LOGNORMAL;
    out->value = 0;
    out->mu = mu;
    out->sigma = sigma;
    return KV_OK;
}

double kv_dist_mean(const kv_dist *d)
{
    return d->kind == KV_DIST_FIXED ? d->value : kvm_exp(d->mu + d->sigma * d->sigma / 2.0);
}

/* splitmix64: small, fast, and the same stream on every machine */
static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* (0, 1): never 0, so its logarithm is finite */
static double uniform(uint64_t *x)
{
    return ((double)(next_u64(x) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int64_t sample(const kv_dist *d, uint64_t *x)
{
    double v = d->value;
    if (d->kind == KV_DIST_LOGNORMAL) { /* Box-Muller, one of the pair */
        double u1 = uniform(x), u2 = uniform(x);
        double z = kvm_sqrt(-2.0 * kvm_log(u1)) * kvm_cos(6.283185307179586 * u2);
        v = kvm_exp(d->mu + d->sigma * z);
    }
    v = kvm_floor(v + 0.5);
    return v < 1 ? 1 : v > 4e18 ? (int64_t)4e18 : (int64_t)v;
}

/* ---- blocks ----------------------------------------------------------------------------- */

static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

/* Blocks a request holds with n tokens in its cache. */
/* Cells a slot holds after n tokens when a context shift drops d of them each time it is full
 * (llama.cpp's and Ollama's runners): n up to the slot, then a saw from slot - d + 1 to slot. */
static int64_t shifted(const kv_sched *sc, int64_t n)
{
    int64_t slot = sc->slot_tokens, d = sc->shift_discard;
    if (d <= 0 || n <= slot)
        return n;
    return slot - d + 1 + (n - slot - 1) % d;
}

/* Tokens of a request of `computed` tokens that a group's layers no longer attend to
 * (get_num_skipped_tokens, vllm/v1/core/single_type_kv_cache_manager.py @ 28be48fa): before
 * the window, max(0, computed - window + 1), or before the current chunk, computed // chunk x
 * chunk. remove_skipped_blocks frees the blocks wholly among them when a step begins. */
static int64_t skipped_tokens(const kv_sched_group *k, int64_t computed)
{
    if (k->fixed)
        return 0;
    if (k->window > 0)
        return computed - k->window + 1 > 0 ? computed - k->window + 1 : 0;
    if (k->chunk > 0)
        return computed / k->chunk * k->chunk;
    return 0;
}

/* Blocks a request holds once a step takes it to n tokens, `want` of them new: a windowed or
 * chunked group's from the first it still attends to (skipped_tokens). */
static int64_t held_at(const kv_sched *sc, int64_t n, int64_t want)
{
    n = shifted(sc, n);
    int64_t total = 0;
    for (size_t g = 0; g < sc->n_groups; g++) {
        const kv_sched_group *k = &sc->group[g];
        int64_t b = k->fixed ? k->cap_blocks : ceil_div(n, k->block_size);
        b -= skipped_tokens(k, n - want) / k->block_size;
        if (k->cap_blocks > 0 && b > k->cap_blocks)
            b = k->cap_blocks;
        total += k->groups * b;
    }
    return total;
}

/* sum over n = 1 .. m of ceil(n / bs): whole blocks of bs give bs x (1 + .. + q) */
static double sum_ceil_to(int64_t m, int64_t bs)
{
    if (m <= 0)
        return 0;
    double q = (double)(m / bs), r = (double)(m % bs);
    return (double)bs * q * (q + 1) / 2.0 + r * (q + 1);
}

/* sum over n = lo .. hi of min(ceil(n / bs), cap) (cap 0: none) */
static double sum_capped(int64_t lo, int64_t hi, int64_t bs, int64_t cap)
{
    if (hi < lo)
        return 0;
    if (cap > 0 && hi > cap * bs) { /* beyond cap x bs tokens every term is cap */
        int64_t edge = cap * bs;
        double capped = (double)(hi - (lo > edge ? lo - 1 : edge)) * (double)cap;
        if (lo > edge)
            return capped;
        return sum_ceil_to(edge, bs) - sum_ceil_to(lo - 1, bs) + capped;
    }
    return sum_ceil_to(hi, bs) - sum_ceil_to(lo - 1, bs);
}

/* sum over n = 1 .. m of floor(n / bs) */
static double sum_floor_to(int64_t m, int64_t bs)
{
    if (m <= 0)
        return 0;
    double q = (double)(m / bs), r = (double)(m % bs);
    return (double)bs * q * (q - 1) / 2.0 + q * (r + 1);
}

/* Blocks a request of prompt p and output o holds, summed over its o steps. */
/* sum over n = 1 .. m of shifted(n), in closed form: the slot's triangle, whole saws and
 * the part of one */
static double sum_shifted_to(const kv_sched *sc, int64_t m)
{
    double slot = (double)sc->slot_tokens, d = (double)sc->shift_discard;
    if (m <= sc->slot_tokens)
        return (double)m * ((double)m + 1) / 2.0;
    int64_t k = m - sc->slot_tokens;
    double full = (double)(k / sc->shift_discard), rem = (double)(k % sc->shift_discard);
    double low = slot - d + 1;
    return slot * (slot + 1) / 2.0 + full * (d * low + d * (d - 1) / 2.0) + rem * low +
           rem * (rem - 1) / 2.0;
}

static double block_steps(const kv_sched *sc, int64_t p, int64_t o)
{
    if (sc->shift_discard > 0) /* slots of cells (block size 1, one group): kv_sched_check */
        return sum_shifted_to(sc, p + o - 1) - sum_shifted_to(sc, p - 1);
    double total = 0;
    for (size_t g = 0; g < sc->n_groups; g++) {
        const kv_sched_group *k = &sc->group[g];
        double s = k->fixed ? (double)o * (double)k->cap_blocks
                            : sum_capped(p, p + o - 1, k->block_size, k->cap_blocks);
        if (!k->fixed && k->window > 0) /* its first step whole, then one token a step: the
                                            blocks from n - window on (held_at) */
            s = sum_capped(p, p, k->block_size, k->cap_blocks) +
                sum_ceil_to(p + o - 1, k->block_size) - sum_ceil_to(p, k->block_size) -
                (sum_floor_to(p + o - 1 - k->window, k->block_size) -
                 sum_floor_to(p - k->window, k->block_size));
        else if (!k->fixed && k->chunk > 0 && o > 1) {
            /* the same, less the blocks before each step's chunk: at n tokens the step began
             * at n - 1 computed, so the skipped part is constant over each chunk of n - 1 */
            s = sum_capped(p, p, k->block_size, k->cap_blocks) +
                sum_ceil_to(p + o - 1, k->block_size) - sum_ceil_to(p, k->block_size);
            for (int64_t c = p; c <= p + o - 2;) { /* c = n - 1 over n = p + 1 .. p + o - 1 */
                int64_t end = (c / k->chunk + 1) * k->chunk - 1; /* the chunk's last c */
                if (end > p + o - 2)
                    end = p + o - 2;
                s -= (double)(end - c + 1) * (double)(c / k->chunk * k->chunk / k->block_size);
                c = end + 1;
            }
        }
        total += (double)k->groups * s;
    }
    return total;
}

/* ---- the simulation --------------------------------------------------------------------- */

typedef struct {
    int64_t p, o;      /* prompt and output, after the limits */
    double unit;       /* arrival at rate 1 (times scale as 1 / rate) */
    double arrive, first;
    int64_t computed;  /* tokens in its cache */
    int64_t gen;       /* tokens generated */
    int64_t held;      /* blocks held of its own */
    int64_t shared;    /* the shared prefix's first blocks it references (prefix caching) */
    int64_t sched;     /* tokens scheduled this step */
    /* preempted with prefix caching: its own full blocks still cached in the free queue
     * (seg_n, the leading blocks of its chain after the seg_shared shared ones) and the free
     * blocks ahead of the first of them to be evicted */
    int64_t seg_n, seg_ahead, seg_shared;
    int64_t slot;      /* llama-server's prompt reuse: the slot it runs in */
    int state;         /* R_* */
} req;

enum { R_LATER, R_WAITING, R_RUNNING, R_DONE, R_REFUSED, R_FAILED };

typedef struct {
    req *r;
    int64_t *wait;   /* ring of indices */
    int64_t *run;    /* in the order admitted */
    int64_t *segs;   /* the preempted requests with blocks still cached, in the order freed */
    double *hist;    /* time in each usage bin */
    size_t n;
    /* the shared prefix's blocks (prefix caching): requests referencing each, whether its
     * tokens are cached, and, while it is free and cached, the free blocks ahead of it in the
     * allocator's queue */
    int32_t *ref;
    unsigned char *cached;
    int64_t *ahead;
    int64_t h, bs, prefix_tokens; /* its full blocks (0: none), their size, its tokens */
    /* llama-server's prompt reuse (kv_sched.slot_reuse): each slot's tokens, those of the
     * shared prefix among them, the cells it keeps while idle, its state's entry in the
     * prompt cache (-1: none), when it was last used and whether it runs a task; the prompt
     * cache's entries (prefix tokens, tokens; 0 tokens: erased) in the order saved */
    int64_t *slot_len, *slot_k, *slot_cells, *slot_ent;
    int64_t *lru_prev, *lru_next; /* the idle slots, least recently used first (-1: none) */
    double *slot_t;
    unsigned char *slot_busy;
    int64_t *ent_k, *ent_len, *ent_slot;
    size_t nslots, ent_cap;
    int64_t reuse_p; /* the shared prefix's tokens (0: no reuse simulated) */
} arena;

/* A shared prefix's blocks the arena keeps state for: at most one a token. */
#define MAX_SHARED_PREFIX (1 << 20)

static size_t prefix_slots(const kv_workload *w)
{
    return w->shared_prefix > 0 && w->shared_prefix <= MAX_SHARED_PREFIX
               ? (size_t)w->shared_prefix
               : 0;
}

size_t kv_workload_scratch_bytes(const kv_workload *w)
{
    size_t n = w->trace ? w->trace_n : (size_t)(w->requests > 0 ? w->requests : 1);
    size_t h = prefix_slots(w);
    /* a shared prefix on llama-server's slots: at most n slots used and 2n entries saved */
    size_t reuse = h > 0 ? n * (6 * sizeof(int64_t) + sizeof(double) + 1) +
                               (2 * n + 2) * 3 * sizeof(int64_t) + 16
                         : 0;
    return n * (sizeof(req) + 3 * sizeof(int64_t)) + HIST_BINS * sizeof(double) +
           h * (sizeof(int64_t) + sizeof(int32_t) + 1) + reuse + 64;
}

typedef struct {
    double rate, c, tpot;
    int64_t preemptions, steps_work, n_meas;
    int64_t budget; /* request-steps a run may take before it stops (0: no bound) */
    int cut;        /* 1: it stopped there */
    double t_lo, t_hi, w_time, run_area, wait_area, used_area, tis_sum, ttft_sum;
    double t_end;
    double looked_up, found; /* prefix caching: tokens looked up and found at admissions */
    int64_t bin_width;
} run_stats;

/* Time-weighted sums over the part of [t, t + dt] inside the measured window. */
static void observe(run_stats *rs, arena *a, double t, double dt, int64_t nrun, int64_t nwait,
                    int64_t used)
{
    double lo = t > rs->t_lo ? t : rs->t_lo, hi = t + dt < rs->t_hi ? t + dt : rs->t_hi;
    if (hi <= lo)
        return;
    double w = hi - lo;
    rs->w_time += w;
    rs->run_area += w * (double)nrun;
    rs->wait_area += w * (double)nwait;
    rs->used_area += w * (double)used;
    int64_t bin = used / rs->bin_width;
    a->hist[bin < HIST_BINS ? bin : HIST_BINS - 1] += w;
}

static void finish(run_stats *rs, req *q, double t)
{
    q->state = R_DONE;
    if (q->arrive >= rs->t_lo && q->arrive <= rs->t_hi) {
        rs->n_meas++;
        rs->tis_sum += t - q->arrive;
        rs->ttft_sum += q->first - q->arrive;
    }
}

/* One run's moving parts. */
typedef struct {
    const kv_sched *sc;
    arena *a;
    run_stats *rs;
    size_t n, whead, wcount, done;
    int64_t free_b, nrun;
    double ratio; /* SGLang's new_token_ratio */
    size_t closed_next; /* a closed loop: the next request a client sends */
    double now;         /* the step's start */
    int closed;
    /* prefix caching: the shared prefix's full blocks, those free and cached, the block
     * size, the prefix's tokens, and the tokens looked up and found at admissions */
    int64_t h, n_free_cached, bs, prefix_tokens;
    double looked_up, found;
    int own_hits;  /* a preempted request finds its own cached blocks again (vLLM V1) */
    size_t nseg;   /* entries of a->segs */
    /* the prompt cache: its live entries between ent_head and ent_tail, their bytes and
     * tokens */
    size_t ent_head, ent_tail;
    double ent_bytes;
    int64_t ent_tokens;
    int64_t ent_prefix_only; /* live entries holding prefix tokens only (len == k) */
    int64_t ent_max_k, ent_min_len; /* bounds over the entries saved (a load's quick test) */
    int64_t lru_head, lru_tail;     /* the idle slots' list */
} sim;

/* A closed loop: a client whose request ended sends the next one now. */
static void client_free(sim *m, double t)
{
    while (m->closed && m->closed_next < m->n && m->a->r[m->closed_next].state == R_REFUSED)
        m->closed_next++;
    if (m->closed && m->closed_next < m->n)
        m->a->r[m->closed_next++].arrive = t;
}

static void wait_back(sim *m, int64_t qi)
{
    m->a->wait[(m->whead + m->wcount++) % m->n] = qi;
}

static void wait_front(sim *m, int64_t qi)
{
    m->whead = (m->whead + m->n - 1) % m->n;
    m->a->wait[m->whead] = qi;
    m->wcount++;
}

static int64_t wait_pop(sim *m)
{
    int64_t qi = m->a->wait[m->whead];
    m->whead = (m->whead + 1) % m->n;
    m->wcount--;
    return qi;
}

/* Takes k free blocks: the allocator pops the oldest of its queue, so a free block of the
 * shared prefix with fewer than k ahead of it is reused, and its tokens leave the cache
 * (vLLM's FreeKVCacheBlockQueue, block_pool.py get_new_blocks: the evicted block's hash is
 * dropped). */
static void take_blocks(sim *m, int64_t k)
{
    m->free_b -= k;
    arena *a = m->a;
    if (m->nseg > 0 && k > 0) {
        /* a preempted request's cached blocks leave the cache from the head side, the last
         * of its chain first; what remains is still the chain's leading part */
        size_t kept = 0;
        for (size_t i = 0; i < m->nseg; i++) {
            req *v = &a->r[a->segs[i]];
            if (v->seg_ahead >= k) {
                v->seg_ahead -= k;
            } else {
                v->seg_n -= k - v->seg_ahead;
                v->seg_ahead = 0;
            }
            if (v->seg_n > 0)
                a->segs[kept++] = a->segs[i];
            else
                v->seg_n = 0;
        }
        m->nseg = kept;
    }
    if (m->n_free_cached == 0 || k <= 0)
        return;
    if (m->sc->kind == KV_SCHED_RESERVE) {
        /* SGLang's radix cache evicts leaves first, least recently used: the other requests'
         * tokens hang below the prefix, so its pages go last, the tail's first, and only when
         * the rest of the free pages is short (radix_cache.py evict) */
        int64_t short_by = m->n_free_cached - m->free_b;
        for (int64_t j = m->h - 1; j >= 0 && short_by > 0; j--) {
            if (a->ref[j] != 0 || !a->cached[j])
                continue;
            a->cached[j] = 0;
            m->n_free_cached--;
            short_by--;
        }
        return;
    }
    for (int64_t j = 0; j < m->h; j++) {
        if (a->ref[j] != 0 || !a->cached[j])
            continue;
        a->ahead[j] -= k;
        if (a->ahead[j] < 0) {
            a->cached[j] = 0;
            m->n_free_cached--;
        }
    }
}

/* A request's blocks back to the queue, the last of its chain first (vLLM frees a request's
 * blocks reversed, so that the tail of a chain is evicted first): its own, then the shared
 * prefix's it referenced, which stay cached, free, behind what was free before. */
static void release(sim *m, req *q)
{
    arena *a = m->a;
    m->free_b += q->held;
    q->held = 0;
    for (int64_t j = q->shared - 1; j >= 0; j--) {
        if (--a->ref[j] == 0) {
            a->ahead[j] = m->free_b;
            m->free_b++;
            m->n_free_cached++;
        }
    }
    q->shared = 0;
}

/* Frees a running request's cache: it waits again with nothing computed (its generated
 * tokens are recomputed with its prompt when it runs again). */
static void evict(sim *m, req *v)
{
    if (m->own_hits) {
        /* its blocks go back reversed: the chain's tail first (the partial block and any
         * not yet computed: never cached), then its full blocks, each still cached
         * (block_pool.py free_blocks; cache_full_blocks hashed every full block it computed),
         * so the first to be evicted has the free blocks and that tail ahead of it */
        int64_t full = v->computed / m->bs - v->shared;
        v->seg_n = full < 0 ? 0 : full < v->held ? full : v->held;
        v->seg_ahead = m->free_b + (v->held - v->seg_n);
        v->seg_shared = v->shared;
        if (v->seg_n > 0)
            m->a->segs[m->nseg++] = (int64_t)(v - m->a->r);
    }
    release(m, v);
    v->computed = v->sched = 0;
    v->state = R_WAITING;
    m->rs->preemptions++;
}

/* The shared prefix's leading cached blocks a request of n tokens finds (vLLM's
 * find_longest_cache_hit: at most (n - 1) // block_size, so one token is always computed),
 * and how many of them are free (they leave the queue when it takes them). */
static int64_t prefix_hit(const sim *m, int64_t n, int64_t *free_among)
{
    int64_t k = 0, e = 0, most = m->h;
    if (m->h == 0)
        return *free_among = 0;
    if ((n - 1) / m->bs < most)
        most = (n - 1) / m->bs;
    while (k < most && m->a->cached[k]) {
        e += m->a->ref[k] == 0;
        k++;
    }
    *free_among = e;
    return k;
}

/* A waiting request takes its k cached prefix blocks: the free ones leave the middle of the
 * queue, so the free cached blocks behind each are one nearer its head. */
static void take_hit(sim *m, req *q, int64_t k)
{
    arena *a = m->a;
    for (int64_t j = 0; j < k; j++) {
        if (a->ref[j]++ != 0)
            continue;
        int64_t at = a->ahead[j];
        m->free_b--;
        m->n_free_cached--;
        for (int64_t i = 0; i < m->h; i++)
            if (a->ref[i] == 0 && a->cached[i] && a->ahead[i] > at)
                a->ahead[i]--;
        for (size_t i = 0; i < m->nseg; i++)
            if (a->r[a->segs[i]].seg_ahead > at)
                a->r[a->segs[i]].seg_ahead--;
    }
    q->shared = k;
    q->computed = k * m->bs;
}

/* The own cached blocks a waiting request finds after k shared ones: its chain goes on only
 * when every shared block it held is found again; at most `most` blocks in all. */
static int64_t own_hit(const req *q, int64_t k, int64_t most)
{
    if (q->seg_n == 0 || k != q->seg_shared || k >= most)
        return 0;
    return q->seg_n < most - k ? q->seg_n : most - k;
}

/* It takes them: they leave the queue from the middle (the free blocks behind them are that
 * many nearer its head); the rest of its segment is plain free blocks from now on. */
static void take_own(sim *m, req *q, int64_t own)
{
    arena *a = m->a;
    int64_t at = q->seg_ahead;
    size_t kept = 0;
    for (size_t i = 0; i < m->nseg; i++) {
        req *v = &a->r[a->segs[i]];
        if (v == q)
            continue;
        if (v->seg_ahead > at)
            v->seg_ahead -= own;
        a->segs[kept++] = a->segs[i];
    }
    m->nseg = kept;
    for (int64_t j = 0; j < m->h; j++)
        if (a->ref[j] == 0 && a->cached[j] && a->ahead[j] > at)
            a->ahead[j] -= own;
    m->free_b -= own;
    q->held += own;
    q->computed += own * m->bs;
    q->seg_n = 0;
}

/* After a step: the full blocks of the shared prefix a request computed enter the cache
 * (cache_full_blocks), the first copy of each; they are shared from then on. */
static void cache_prefix(sim *m, req *q)
{
    arena *a = m->a;
    while (q->shared < m->h && (q->shared + 1) * m->bs <= q->computed &&
           (q->shared + 1) * m->bs <= m->prefix_tokens && (q->shared + 1) * m->bs <= q->p &&
           !a->cached[q->shared] && q->held > 0) {
        a->cached[q->shared] = 1;
        a->ref[q->shared] = 1;
        q->held--;
        q->shared++;
    }
}

static void run_push(sim *m, int64_t qi, int64_t held, int64_t want)
{
    req *q = &m->a->r[qi];
    q->state = R_RUNNING;
    q->held = held;
    take_blocks(m, held);
    q->sched = want;
    m->a->run[m->nrun++] = qi;
}

/* ---- llama-server's prompt reuse (kv_sched.slot_reuse): get_available_slot and the
 * launch's n_past in tools/server/server-context.cpp, server_prompt_cache's alloc, load and
 * update in tools/server/server-task.cpp, @ 3f545becc. Every prompt begins with the shared
 * prefix and differs after it, so the common prefix of a prompt and a slot's tokens (or a
 * cached state's) is the shorter of their shared parts. */

static int64_t min64(int64_t x, int64_t y)
{
    return x < y ? x : y;
}

static double cache_limit(const sim *m) /* bytes; 0: none */
{
    return m->sc->prompt_cache_mib > 0 ? (double)m->sc->prompt_cache_mib * 1048576.0 : 0;
}

/* Entry i leaves the cache (loaded into a slot, or evicted). */
static void ent_drop(sim *m, size_t i)
{
    arena *a = m->a;
    m->ent_bytes -= (double)a->ent_len[i] * m->sc->token_state_bytes;
    m->ent_tokens -= a->ent_len[i];
    m->ent_prefix_only -= a->ent_len[i] == a->ent_k[i];
    if (a->slot_ent[a->ent_slot[i]] == (int64_t)i)
        a->slot_ent[a->ent_slot[i]] = -1;
    a->ent_len[i] = 0;
    while (m->ent_head < m->ent_tail && a->ent_len[m->ent_head] == 0)
        m->ent_head++;
}

/* The live entries to the front, in order (the array holds twice the states there can be,
 * so this runs at most once every n saves). */
static void ent_compact(sim *m)
{
    arena *a = m->a;
    size_t j = 0;
    for (size_t i = m->ent_head; i < m->ent_tail; i++) {
        if (a->ent_len[i] == 0)
            continue;
        int64_t s = a->ent_slot[i];
        if (a->slot_ent[s] == (int64_t)i)
            a->slot_ent[s] = (int64_t)j;
        a->ent_k[j] = a->ent_k[i];
        a->ent_len[j] = a->ent_len[i];
        a->ent_slot[j] = s;
        j++;
    }
    m->ent_head = 0;
    m->ent_tail = j;
}

/* prompt_save -> alloc: slot s's state into the cache. Not when an entry holds all of it or
 * it alone is over the bytes limit; entries it holds all of go; the oldest make room. */
static void slot_save(sim *m, int64_t s)
{
    arena *a = m->a;
    int64_t len = a->slot_len[s], k = a->slot_k[s];
    if (len == 0 || a->slot_ent[s] >= 0)
        return;
    /* an entry holds all of a slot's tokens only when they are prefix tokens (len == k), and
     * the slot holds all of an entry's only when the entry's are: the scans run then alone */
    if (len == k) {
        m->rs->steps_work += (int64_t)(m->ent_tail - m->ent_head); /* the scan's work */
        for (size_t i = m->ent_head; i < m->ent_tail; i++)
            if (a->ent_len[i] > 0 && a->ent_k[i] >= len)
                return; /* "prompt is already in the cache" */
    }
    double bytes = (double)len * m->sc->token_state_bytes, limit = cache_limit(m);
    if (limit > 0 && bytes > limit)
        return; /* "exceeds cache size limit, skipping" */
    if (m->ent_prefix_only > 0) {
        m->rs->steps_work += (int64_t)(m->ent_tail - m->ent_head);
        for (size_t i = m->ent_head; i < m->ent_tail; i++)
            if (a->ent_len[i] > 0 && a->ent_len[i] == a->ent_k[i] && a->ent_len[i] <= k)
                ent_drop(m, i); /* an obsolete prompt it contains */
    }
    while (limit > 0 && m->ent_head < m->ent_tail && m->ent_bytes + bytes > limit)
        ent_drop(m, m->ent_head);
    if (m->ent_tail == a->ent_cap)
        ent_compact(m);
    size_t i = m->ent_tail++;
    a->ent_k[i] = k;
    a->ent_len[i] = len;
    a->ent_slot[i] = s;
    a->slot_ent[s] = (int64_t)i;
    m->ent_bytes += bytes;
    m->ent_tokens += len;
    m->ent_prefix_only += len == k;
    if (k > m->ent_max_k)
        m->ent_max_k = k;
    if (len < m->ent_min_len)
        m->ent_min_len = len;
}

/* update(): the oldest go while over the bytes limit, then while over the token limit
 * (n_ctx, raised to what the bytes limit holds at the entries' bytes a token). */
static void cache_update(sim *m)
{
    double limit = cache_limit(m);
    while (limit > 0 && m->ent_head < m->ent_tail && m->ent_bytes > limit)
        ent_drop(m, m->ent_head);
    float per = m->ent_tokens > 0 ? (float)(m->ent_bytes / (double)m->ent_tokens) : 1.0f;
    if (per < 1.0f)
        per = 1.0f;
    double tokens = (double)m->sc->prompt_cache_tokens;
    if (limit > 0 && kvm_floor(limit / per) > tokens)
        tokens = kvm_floor(limit / per);
    while (m->sc->prompt_cache_tokens > 0 && m->ent_head < m->ent_tail &&
           (double)m->ent_tokens > tokens)
        ent_drop(m, m->ent_head);
}

/* The idle list, ordered as the least-recently-used scan picks: the oldest use first, of
 * equals the higher slot first ("t_last_used <= t_last" keeps the last of equals). */
static void lru_remove(sim *m, int64_t s)
{
    arena *a = m->a;
    int64_t p = a->lru_prev[s], n = a->lru_next[s];
    if (p >= 0)
        a->lru_next[p] = n;
    else
        m->lru_head = n;
    if (n >= 0)
        a->lru_prev[n] = p;
    else
        m->lru_tail = p;
    a->lru_prev[s] = a->lru_next[s] = -1;
}

static void lru_insert(sim *m, int64_t s)
{
    arena *a = m->a;
    int64_t at = m->lru_tail; /* times only grow: it goes at the end, or a few before it */
    while (at >= 0 && (a->slot_t[at] > a->slot_t[s] || (a->slot_t[at] == a->slot_t[s] && at < s)))
        at = a->lru_prev[at];
    int64_t n = at >= 0 ? a->lru_next[at] : m->lru_head;
    a->lru_prev[s] = at;
    a->lru_next[s] = n;
    if (at >= 0)
        a->lru_next[at] = s;
    else
        m->lru_head = s;
    if (n >= 0)
        a->lru_prev[n] = s;
    else
        m->lru_tail = s;
}

static void slot_clear(sim *m, int64_t s)
{
    arena *a = m->a;
    m->free_b += a->slot_cells[s];
    a->slot_cells[s] = a->slot_len[s] = a->slot_k[s] = 0;
    a->slot_ent[s] = -1;
}

/* load(): the entry keeping more of itself and more of the prompt than the slot's own tokens
 * (the first of equals), none kept under a quarter; it leaves the cache for the slot. With
 * a shared cache the restore needs its cells: short of them it fails and the slot is
 * cleared (launch_slot_with_task: prompt_clear). */
static void slot_load(sim *m, int64_t s, int64_t kq, int64_t p)
{
    arena *a = m->a;
    int64_t lcp = a->slot_len[s] > 0 ? min64(a->slot_k[s], kq) : 0;
    float keep = a->slot_len[s] > 0 ? (float)lcp / (float)a->slot_len[s] : -1.0f;
    float like = (float)lcp / (float)p;
    size_t best = SIZE_MAX;
    /* no entry keeps a quarter of itself when the longest common prefix any could have is
     * under a quarter of the shortest saved: nothing to look at */
    if (m->ent_head == m->ent_tail || 4 * min64(m->ent_max_k, kq) < m->ent_min_len)
        return;
    m->rs->steps_work += (int64_t)(m->ent_tail - m->ent_head);
    for (size_t i = m->ent_head; i < m->ent_tail; i++) {
        if (a->ent_len[i] == 0)
            continue;
        int64_t l = min64(a->ent_k[i], kq);
        float fk = (float)l / (float)a->ent_len[i], fs = (float)l / (float)p;
        if (fk < 0.25f)
            continue;
        if (keep < fk && like < fs) {
            keep = fk;
            like = fs;
            best = i;
        }
    }
    if (best == SIZE_MAX)
        return;
    if (m->sc->unified_fail_all && a->ent_len[best] > m->free_b + a->slot_cells[s]) {
        slot_clear(m, s);
        return;
    }
    m->free_b += a->slot_cells[s]; /* replaced: the restore clears the sequence first */
    a->slot_cells[s] = 0;
    a->slot_len[s] = a->ent_len[best];
    a->slot_k[s] = a->ent_k[best];
    ent_drop(m, best);
}

/* A task takes a slot: the idle one with the most common prefix over -sps of the prompt,
 * else the least recently used (the last of equals, never used first); chosen that way, or
 * keeping under half of its tokens, it is saved and a better cached state loaded. It keeps
 * the common prefix (one token short of the whole prompt: one is always computed) and
 * drops the rest. Returns the tokens kept (n_past). */
static int64_t slot_take(sim *m, req *q)
{
    arena *a = m->a;
    const kv_sched *sc = m->sc;
    int64_t kq = min64(q->p, a->reuse_p), s = -1;
    int update = 0;
    size_t scanned = 0; /* the slots looked at: the run's work */
    if (sc->slot_longest) { /* the longest common prefix among the idle slots, the first */
        int64_t longest = -1;
        for (size_t i = 0; i < a->nslots; i++, scanned++) {
            if (a->slot_busy[i])
                continue;
            int64_t count = a->slot_len[i] > 0 ? min64(a->slot_k[i], kq) : 0;
            if (count > longest) {
                longest = count;
                s = (int64_t)i;
                if (count == kq)
                    break; /* no later slot holds more: the first of equals stays */
            }
        }
    } else if (sc->slot_similarity != 0) {
        float best = 0;
        for (size_t i = 0; i < a->nslots; i++, scanned++) {
            if (a->slot_busy[i] || a->slot_len[i] == 0)
                continue;
            int64_t lcp = min64(a->slot_k[i], kq);
            float f = (float)lcp / (float)q->p;
            if (f > best && f > (float)sc->slot_similarity) {
                best = f;
                s = (int64_t)i;
                if (lcp == kq)
                    break; /* no later slot holds more: the first of equals stays */
            }
        }
        if (s >= 0 && best * (float)q->p / (float)a->slot_len[s] < 0.5f)
            update = 1;
    }
    if (s < 0 && !sc->slot_longest) { /* the least recently used: the idle list's head */
        s = m->lru_head;
        scanned++;
        update = 1;
    }
    m->rs->steps_work += (int64_t)scanned;
    if (update && sc->prompt_cache_mib != 0) {
        slot_save(m, s);
        slot_load(m, s, kq, q->p);
        cache_update(m);
    }
    int64_t kept = a->slot_len[s] > 0 ? min64(a->slot_k[s], kq) : 0;
    if (kept == q->p && kept > 0)
        kept--;
    m->free_b += a->slot_cells[s]; /* its idle cells; the task holds the kept ones again */
    a->slot_cells[s] = 0;
    a->slot_busy[s] = 1;
    a->slot_ent[s] = -1;
    lru_remove(m, s);
    q->slot = s;
    m->looked_up += (double)q->p;
    m->found += (double)kept;
    return kept;
}

/* A task ends (release()): its slot keeps its cells' tokens (the last token sampled is
 * never decoded), saved to the prompt cache (--cache-idle-slots), then freed with a shared
 * cache; without a prompt cache a shared cache's idle cells stay held until a batch finds
 * no room (try_clear_idle_slots). A failed task's slot is cleared. */
static void slot_release(sim *m, req *q, int failed, double t)
{
    arena *a = m->a;
    int64_t s = q->slot;
    a->slot_busy[s] = 0;
    a->slot_t[s] = t;
    a->slot_ent[s] = -1;
    lru_insert(m, s);
    if (failed) {
        a->slot_len[s] = a->slot_k[s] = 0;
        return;
    }
    /* its cells' tokens; after a context shift (shift_discard) they begin with the first
     * shift_keep of its prompt only, the rest dropped after them */
    int shifted_out = m->sc->shift_discard > 0 && q->computed > m->sc->slot_tokens;
    a->slot_len[s] = shifted(m->sc, q->computed);
    a->slot_k[s] = min64(shifted_out ? min64(m->sc->shift_keep, a->reuse_p) : a->reuse_p, q->p);
    if (m->sc->unified_fail_all && !m->sc->idle_slots_cleared) {
        a->slot_cells[s] = q->held; /* its cells stay in the shared cache */
        q->held = 0;
    }
    if (m->sc->prompt_cache_mib != 0 && m->sc->idle_slots_saved) {
        slot_save(m, s);
        cache_update(m);
        if (m->sc->idle_slots_cleared)
            a->slot_len[s] = a->slot_k[s] = 0;
    }
}

/* try_clear_idle_slots: the first idle slot holding cells is cleared; 0 when none is. */
static int slot_purge(sim *m)
{
    arena *a = m->a;
    for (size_t i = 0; i < a->nslots; i++)
        if (!a->slot_busy[i] && a->slot_cells[i] > 0) {
            slot_clear(m, (int64_t)i);
            return 1;
        }
    return 0;
}

/* vLLM V1 (KV_SCHED_PAGED) and llama-server (KV_SCHED_SLOTS): one step's schedule. */
static void schedule_paged(sim *m, int slots)
{
    const kv_sched *sc = m->sc;
    arena *a = m->a;
    int64_t budget = sc->max_batched_tokens > 0 ? sc->max_batched_tokens : INT64_MAX;
    int preempted = 0;
    /* slots: a waiting task takes a free slot before the batch is filled */
    while (slots && m->wcount > 0 && m->nrun < sc->max_seqs) {
        int64_t qi = wait_pop(m), kept = m->a->reuse_p > 0 ? slot_take(m, &a->r[qi]) : 0;
        a->r[qi].computed = kept;
        run_push(m, qi, held_at(sc, kept, kept), 0);
    }
    /* the running requests, in order (slots: every generating slot's token first, then
     * prompts, as llama-server fills its batch) */
    int pass = slots ? 0 : 1;
    int64_t i = 0;
    while (i < m->nrun && (budget > 0 || pass == 0)) {
        req *q = &a->r[a->run[i]];
        int64_t want = q->p + q->gen - q->computed;
        int decoding = q->gen > 0 && want == 1;
        if ((pass == 0 && !decoding) || (pass == 1 && slots && decoding)) {
            if (++i == m->nrun && pass == 0) {
                pass = 1;
                i = 0;
            }
            continue;
        }
        if (want > budget && pass == 1)
            want = budget;
        int64_t need = held_at(sc, q->computed + want, want) - q->held - q->shared;
        if (need < 0) { /* blocks that left a sliding window go back to the pool */
            m->free_b -= need;
            q->held += need;
            need = 0;
        }
        while (need > m->free_b && sc->unified_fail_all && a->reuse_p > 0 && slot_purge(m))
            ;
        if (need > m->free_b && sc->unified_fail_all) { /* every processing slot fails */
            for (int64_t k = 0; k < m->nrun; k++) {
                req *v = &a->r[a->run[k]];
                evict(m, v);
                if (a->reuse_p > 0)
                    slot_release(m, v, 1, m->now);
                v->state = R_FAILED;
                m->done++;
                client_free(m, m->now);
            }
            m->nrun = 0;
            return;
        }
        int self = 0;
        while (need > m->free_b) { /* preempt the newest, and recompute it later */
            int64_t vi = a->run[--m->nrun];
            evict(m, &a->r[vi]);
            wait_front(m, vi);
            preempted = 1;
            if (&a->r[vi] == q) {
                self = 1;
                break;
            }
        }
        if (self)
            break;
        take_blocks(m, need);
        q->held += need;
        q->sched = want;
        budget -= want;
        if (++i == m->nrun && pass == 0) {
            pass = 1;
            i = 0;
        }
    }
    /* waiting requests, first come first served, when nothing was preempted */
    while (!slots && !preempted && m->wcount > 0 && budget > 0 &&
           (sc->max_seqs == 0 || m->nrun < sc->max_seqs)) {
        req *q = &a->r[a->wait[m->whead]];
        /* a prefix cache: its leading cached blocks need no computing and no new blocks;
         * a preempted request's own follow the shared ones (find_longest_cache_hit: at most
         * (n - 1) // block_size, so one token is always computed) */
        int64_t free_hit, hit = prefix_hit(m, q->p + q->gen, &free_hit);
        int64_t own = m->own_hits ? own_hit(q, hit, (q->p + q->gen - 1) / m->bs) : 0;
        int64_t want = q->p + q->gen - (hit + own) * m->bs;
        if (want > budget)
            want = budget;
        int64_t need = held_at(sc, (hit + own) * m->bs + want, want) - hit - own;
        /* the cached blocks it takes are free ones too (get_num_blocks_to_allocate counts
         * the evictable hits) */
        if (need > m->free_b - free_hit - own) {
            if (m->nrun == 0) { /* it cannot fit an empty cache: refused */
                q->state = R_REFUSED;
                wait_pop(m);
                m->done++;
                client_free(m, m->now);
                continue;
            }
            break;
        }
        if (m->h > 0) {
            m->looked_up += (double)(q->p + q->gen);
            m->found += (double)(hit * m->bs);
            take_hit(m, q, hit);
        }
        int64_t qi = wait_pop(m);
        if (q->seg_n > 0) /* out of the list, the blocks it found taken */
            take_own(m, q, own);
        int64_t own_held = q->held;
        run_push(m, qi, need, want);
        q->held += own_held;
    }
}

/* Whether a running request's next token is a decode (its prompt is in the cache). */
static int decodes(const req *q)
{
    return q->gen > 0 && q->computed == q->p + q->gen - 1;
}

/* Tokens rounded up to whole pages (PrefillAdder.ceil_paged_tokens). */
static int64_t ceil_paged(int64_t tokens, int64_t page)
{
    return ceil_div(tokens, page) * page;
}

/* SGLang (KV_SCHED_RESERVE): one step's schedule, a prefill batch when one can be formed,
 * else a decode step. The pool is in pages of P tokens
 * (group[0].block_size; PagedTokenToKVPoolAllocator, page 0 kept back as the padding slot
 * outside N): a request from length a to b takes ceil(b / P) - ceil(a / P) pages, a decode
 * step one page when its length is a whole number of pages, and what it frees is whole
 * pages; the budgets count tokens, free ones as free pages x P, and round a prefill up to
 * pages but not the running requests' reservations (schedule_policy.py @ ad0119fd;
 * allocator.py, utils/common.py get_num_new_pages, schedule_batch.py new_page_count_next_decode
 * @ fd3907ee). P = 1 is the token pool. */
static void schedule_reserve(sim *m)
{
    const kv_sched *sc = m->sc;
    arena *a = m->a;
    int64_t clip = sc->clip_new_tokens;
    int64_t page = sc->group[0].block_size > 1 ? sc->group[0].block_size : 1;
    /* PrefillAdder: the free tokens less what running requests may still generate, each
     * min(max_new - generated, clip) x new_token_ratio; a chunked request goes on first */
    double rem_total = (double)m->free_b * (double)page;
    int64_t chunked = -1;
    for (int64_t k = 0; k < m->nrun; k++) {
        req *q = &a->r[a->run[k]];
        if (!decodes(q))
            chunked = k; /* a prompt cut by the chunk budget, admitted earlier */
        int64_t left = q->o - q->gen;
        rem_total -= (double)(left < clip ? left : clip) * m->ratio;
    }
    int64_t rem_input = sc->max_prefill_tokens, rem_chunk = sc->max_batched_tokens;
    int any = 0;
    if (chunked >= 0) {
        /* add_chunked_req: min(the chunk budget, the free tokens), not page-aligned */
        req *q = &a->r[a->run[chunked]];
        int64_t extend = q->p + q->gen - q->computed, room = rem_chunk;
        if ((double)room > rem_total)
            room = rem_total > 0 ? (int64_t)rem_total : 0;
        if (extend > room)
            extend = room;
        int64_t pages = ceil_div(q->computed + extend, page) - ceil_div(q->computed, page);
        if (extend > 0 && pages <= m->free_b) {
            int whole = q->computed + extend == q->p + q->gen;
            int64_t paged = ceil_paged(extend, page);
            q->sched = extend;
            q->held += pages;
            m->free_b -= pages;
            rem_chunk -= paged;
            rem_input -= paged;
            rem_total -= (double)paged + (whole ? (double)(q->o < clip ? q->o : clip) : 0);
            any = 1;
        }
    }
    int64_t allocatable = sc->max_seqs > 0 ? sc->max_seqs - m->nrun : INT64_MAX;
    int64_t added = 0;
    while (chunked < 0 && m->wcount > 0 && added < allocatable) {
        req *q = &a->r[a->wait[m->whead]];
        /* the radix cache: its match (page-aligned, at most the input less one token) is
         * locked while the request runs, so it leaves the evictable tokens the budget counts */
        int64_t free_hit, hit = prefix_hit(m, q->p + q->gen, &free_hit);
        int64_t extend = q->p + q->gen - hit * page, left = q->o - q->gen;
        double total = (double)extend + (double)(left < clip ? left : clip);
        if (total >= rem_total - (double)(free_hit * page))
            break; /* NO_TOKEN: the admission test is not rounded */
        int64_t input = ceil_paged(extend, page);
        if (input >= rem_input && added > 0)
            break; /* OTHER: the first request of a batch may pass max_prefill_tokens */
        int64_t take = extend;
        if (sc->max_batched_tokens > 0 && input > rem_chunk) {
            take = rem_chunk / page * page; /* a chunk of it, whole pages; it reserves no
                                               decode tokens */
            if (take <= 0)
                break;
        }
        int64_t paged = ceil_paged(take, page);
        if (m->h > 0) {
            m->looked_up += (double)(q->p + q->gen);
            m->found += (double)(hit * page);
            take_hit(m, q, hit);
            rem_total -= (double)(free_hit * page);
        }
        run_push(m, wait_pop(m), paged / page, take);
        rem_total -= (double)paged + (take == extend ? (double)(q->o < clip ? q->o : clip) : 0);
        rem_input -= paged;
        rem_chunk -= paged;
        added++;
        any = 1;
        if (take < extend)
            break; /* one chunked request at a time */
    }
    if (any) /* the prefill batch runs alone: no decode this step */
        return;
    /* decode (check_decode_mem): a page for each running request whose length is a whole
     * number of pages; short of them, retract the fewest generated, then the longest prompt,
     * until the rest get theirs (at least one, one kept) */
    int64_t decoding = 0, need = 0;
    for (int64_t k = 0; k < m->nrun; k++) {
        req *q = &a->r[a->run[k]];
        decoding += decodes(q);
        need += decodes(q) && q->computed % page == 0;
    }
    if (need > m->free_b) {
        int first = 1;
        while (decoding > 1 && (first || need > m->free_b)) {
            int64_t best = -1;
            for (int64_t k = 0; k < m->nrun; k++) {
                req *x = &a->r[a->run[k]];
                if (!decodes(x))
                    continue; /* a chunked prompt is not in the running batch */
                req *b = best >= 0 ? &a->r[a->run[best]] : NULL;
                if (!b || x->gen < b->gen || (x->gen == b->gen && x->p > b->p))
                    best = k;
            }
            int64_t vi = a->run[best];
            req *v = &a->r[vi];
            decoding--;
            need -= v->computed % page == 0;
            evict(m, v);
            memmove(&a->run[best], &a->run[best + 1], (size_t)(m->nrun - best - 1) * sizeof(int64_t));
            m->nrun--;
            wait_back(m, vi);
            first = 0;
        }
        double gen = 0, max_new = 0;
        for (int64_t k = 0; k < m->nrun; k++) {
            gen += (double)a->r[a->run[k]].gen;
            max_new += (double)a->r[a->run[k]].o;
        }
        double r = (gen + (double)sc->retract_steps * (double)m->nrun) / (max_new + 1.0);
        m->ratio = r < 1 ? r : 1;
    } else {
        m->ratio -= sc->ratio_decay;
        if (m->ratio < sc->ratio_min)
            m->ratio = sc->ratio_min;
    }
    for (int64_t k = 0; k < m->nrun; k++) {
        req *q = &a->r[a->run[k]];
        if (!decodes(q))
            continue;
        if (q->computed % page != 0) {
            q->sched = 1; /* the token goes in its last page */
        } else if (m->free_b > 0) {
            q->sched = 1;
            q->held++;
            m->free_b--;
        }
    }
}

/* One run at rate x: every request through the scheduler until the last finishes. */
static void simulate(const kv_sched *sc, arena *a, double x, int64_t clients, double c,
                     double tpot, int64_t budget, run_stats *rs)
{
    size_t n = a->n;
    memset(rs, 0, sizeof *rs);
    rs->budget = budget;
    memset(a->hist, 0, HIST_BINS * sizeof(double));
    rs->rate = x;
    rs->bin_width = sc->pool_blocks / HIST_BINS + 1;
    sim m = {.sc = sc, .a = a, .rs = rs, .n = n, .free_b = sc->pool_blocks,
             .ratio = sc->ratio_init, .h = a->h, .bs = a->bs, .prefix_tokens = a->prefix_tokens};
    m.closed = clients > 0;
    m.own_hits = sc->prefix_caching && sc->kind == KV_SCHED_PAGED;
    if (m.h > 0) { /* a cold cache */
        memset(a->ref, 0, (size_t)m.h * sizeof *a->ref);
        memset(a->cached, 0, (size_t)m.h);
    }
    m.lru_head = m.lru_tail = -1;
    m.ent_min_len = INT64_MAX;
    for (size_t i = 0; a->reuse_p > 0 && i < a->nslots; i++) { /* empty slots, never used */
        a->slot_len[i] = a->slot_k[i] = a->slot_cells[i] = 0;
        a->slot_ent[i] = -1;
        a->slot_t[i] = -1;
        a->slot_busy[i] = 0;
        a->lru_prev[i] = a->lru_next[i] = -1;
    }
    for (size_t i = a->nslots; a->reuse_p > 0 && i-- > 0;) /* the higher slot first */
        lru_insert(&m, (int64_t)i);
    for (size_t i = 0; i < n; i++) {
        req *q = &a->r[i];
        q->arrive = m.closed ? INFINITY : q->unit / x;
        q->computed = q->gen = q->held = q->shared = q->sched = 0;
        q->seg_n = q->seg_ahead = q->seg_shared = 0;
        q->first = 0;
        q->state = q->state == R_REFUSED ? R_REFUSED : R_LATER;
        m.done += q->state == R_REFUSED;
    }
    if (m.closed) { /* the clients' first requests, at once; the whole run is measured */
        for (int64_t k = 0; k < clients; k++)
            client_free(&m, 0);
        rs->t_lo = 0;
        rs->t_hi = INFINITY;
    } else {
        rs->t_lo = a->r[n / WARMUP_SHARE].arrive;
        rs->t_hi = a->r[n - 1 - n / WARMUP_SHARE].arrive;
        if (rs->t_hi <= rs->t_lo) /* one request, or all at once: measure everything */
            rs->t_hi = INFINITY;
    }
    size_t next = 0;
    double t = 0;
    while (m.done < n) {
        while (next < n && (a->r[next].state == R_REFUSED || a->r[next].arrive <= t)) {
            if (a->r[next].state != R_REFUSED) {
                a->r[next].state = R_WAITING;
                wait_back(&m, (int64_t)next);
            }
            next++;
        }
        if (m.nrun == 0 && m.wcount == 0) {
            if (next >= n || isinf(a->r[next].arrive))
                break;
            /* the empty system is part of the time: Little's law counts it */
            observe(rs, a, t, a->r[next].arrive - t, 0, 0, sc->pool_blocks - m.free_b);
            t = a->r[next].arrive;
            continue;
        }
        m.now = t;
        if (sc->kind == KV_SCHED_RESERVE)
            schedule_reserve(&m);
        else
            schedule_paged(&m, sc->kind == KV_SCHED_SLOTS);
        /* the step: one forward pass (tpot), and c for each prompt token in it */
        int64_t scheduled = 0, prompt_tokens = 0;
        for (int64_t k = 0; k < m.nrun; k++) {
            req *q = &a->r[a->run[k]];
            scheduled += q->sched > 0;
            if (!(q->gen > 0 && q->sched == 1))
                prompt_tokens += q->sched;
        }
        if (scheduled == 0 && m.nrun == 0 && next < n && m.wcount == 0) {
            observe(rs, a, t, a->r[next].arrive - t, 0, 0, sc->pool_blocks - m.free_b);
            t = a->r[next].arrive;
            continue;
        }
        if (scheduled == 0) { /* nothing could run (a cache too small even for one): refuse */
            if (m.nrun == 0 && m.wcount > 0) {
                a->r[wait_pop(&m)].state = R_REFUSED;
                m.done++;
                client_free(&m, t);
                continue;
            }
            if (next < n) {
                double until = a->r[next].arrive > t ? a->r[next].arrive : t + tpot;
                observe(rs, a, t, until - t, m.nrun, (int64_t)m.wcount,
                        sc->pool_blocks - m.free_b);
                t = until;
                continue;
            }
            break; /* stuck: should not happen, stop rather than spin */
        }
        double dt = tpot + c * (double)prompt_tokens;
        observe(rs, a, t, dt, m.nrun, (int64_t)m.wcount, sc->pool_blocks - m.free_b);
        t += dt;
        rs->steps_work += m.nrun;
        if (rs->budget > 0 && rs->steps_work > rs->budget) {
            rs->cut = 1; /* the onset search's bound: the caller says so */
            break;
        }
        int64_t kept = 0;
        for (int64_t k = 0; k < m.nrun; k++) {
            int64_t qi = a->run[k];
            req *q = &a->r[qi];
            if (q->sched > 0) {
                q->computed += q->sched;
                q->sched = 0;
                if (m.h > 0)
                    cache_prefix(&m, q);
                if (q->computed == q->p + q->gen) {
                    if (++q->gen == 1)
                        q->first = t;
                    if (q->gen == q->o) {
                        if (a->reuse_p > 0)
                            slot_release(&m, q, 0, t);
                        release(&m, q);
                        finish(rs, q, t);
                        m.done++;
                        client_free(&m, t);
                        continue;
                    }
                }
            }
            a->run[kept++] = qi;
        }
        m.nrun = kept;
    }
    rs->t_end = t;
    rs->looked_up = m.looked_up;
    rs->found = m.found;
}

/* The onset search's runs: one budget of request-steps for all of them, each counted and
 * reported as it ends. */
typedef struct {
    const kv_sched *sc;
    arena *a;
    const kv_workload *w;
    kv_workload_result *out;
    double c, tpot;
    const step_model *step;   /* the roofline's: each rate its own step */
    int64_t left;
    int run_no, runs;
    run_stats probe;
} onset_search;

/* One run at rate x into os->probe: 1, or 0 when the budget ran out (onset_cut). */
static int probe_at(onset_search *os, double x)
{
    if (os->out->onset_cut)
        return 0;
    if (os->step->rf) { /* the step at this rate's load */
        double held;
        os->tpot = step_at(os->step, x, 0, &os->c, &held);
    }
    simulate(os->sc, os->a, x, 0, os->c, os->tpot, os->left, &os->probe);
    os->out->request_steps += os->probe.steps_work;
    os->left -= os->probe.steps_work;
    if (os->w->progress)
        os->w->progress(os->w->progress_ctx, ++os->run_no, os->runs, os->out->request_steps);
    if (os->probe.cut || os->left <= 0)
        os->out->onset_cut = 1;
    return !os->out->onset_cut;
}

/* The time-weighted 99th percentile of the usage, in blocks (the upper edge of its bin). */
static double usage_p99(const arena *a, const run_stats *rs)
{
    if (rs->w_time <= 0)
        return NAN;
    double want = 0.99 * rs->w_time, acc = 0;
    for (size_t b = 0; b < HIST_BINS; b++) {
        acc += a->hist[b];
        if (acc >= want)
            return (double)((int64_t)b * rs->bin_width + rs->bin_width - 1);
    }
    return (double)(HIST_BINS * rs->bin_width);
}

kv_status kv_workload_run(const kv_sched *sc, const kv_workload *w, void *scratch,
                          size_t scratch_bytes, kv_workload_result *out, kv_error *why)
{
    memset(out, 0, sizeof *out);
    out->kv_cliff_rate = out->seq_cliff_rate = out->saturation_rate = NAN;
    out->prefill_cliff_rate = NAN;
    out->running_mean = out->waiting_mean = out->kv_usage_mean = out->kv_usage_p99 = NAN;
    out->time_in_system_s = out->ttft_s = out->preemptions_per_s = NAN;
    out->littles_law_requests = out->preemption_onset_rate = out->duration_s = NAN;
    out->rate = w->rate > 0 ? w->rate : NAN;
    out->concurrency = w->concurrency;
    out->step_kv_bytes = out->step_running = NAN;
    out->step_roofline.bandwidth = out->step_roofline.weights_bytes = NAN; /* given: none */
    out->step_roofline.block_bytes = NAN;
    out->rules_engine = sc->engine_title;
    out->left_out = sc->left_out;
    if (sc->pool_blocks < 1 || sc->n_groups == 0 || sc->max_model_len < 1)
        return refuse(why, "the engine's scheduler has no cache to simulate%s", "", 0);
    if (sc->shift_discard > 0 &&
        (sc->kind != KV_SCHED_SLOTS || sc->n_groups != 1 || sc->group[0].block_size != 1 ||
         sc->group[0].fixed || sc->group[0].cap_blocks > 0 || sc->unified_fail_all ||
         sc->shift_discard >= sc->slot_tokens))
        return refuse(why, "a context shift needs slots of their own of plain cells%s", "", 0);
    size_t n = w->trace ? w->trace_n : (size_t)w->requests;
    if (n < 1 || (!w->trace && w->requests < 1))
        return refuse(why, "no requests to simulate%s", "", 0);
    if (scratch_bytes < kv_workload_scratch_bytes(w) || !scratch)
        return refuse(why, "the scratch memory is smaller than kv_workload_scratch_bytes()%s",
                      "", 0);
    if (w->rate < 0 || !isfinite(w->rate) || w->tpot_ms < 0 || !isfinite(w->tpot_ms) ||
        w->ttft_ms < 0 || !isfinite(w->ttft_ms) || !(w->headroom >= 0 && w->headroom < 1))
        return refuse(why, "a rate, step time or headroom out of range%s", "", 0);
    const kv_roofline *rf = &w->roofline;
    if (!(rf->bandwidth >= 0 && isfinite(rf->bandwidth)) ||
        !(rf->weights_bytes >= 0 && isfinite(rf->weights_bytes)) ||
        !(rf->block_bytes >= 0 && isfinite(rf->block_bytes)))
        return refuse(why, "a roofline's bandwidth or bytes out of range%s", "", 0);
    int estimate = (w->rate > 0 || w->concurrency > 0) && !(w->tpot_ms > 0);
    if (estimate && !(rf->bandwidth > 0))
        return refuse(why, "a rate needs the time of one decode step (tpot)%s", "", 0);
    if (w->rate > 0 && w->concurrency > 0)
        return refuse(why, "a rate or a closed loop of clients, not both%s", "", 0);
    if (w->shared_prefix < 0 || w->shared_prefix > MAX_SHARED_PREFIX)
        return refuse(why, "a shared prefix of 0 to 1,048,576 tokens%s", "", 0);
    int reuse = w->shared_prefix > 0 && sc->kind == KV_SCHED_SLOTS && sc->slot_reuse;
    if (w->shared_prefix > 0 &&
        ((!sc->prefix_caching && !reuse) || (sc->kind == KV_SCHED_SLOTS && !reuse) ||
         sc->n_groups != 1 || sc->group[0].fixed || sc->group[0].cap_blocks > 0 ||
         (reuse && (sc->group[0].block_size != 1 ||
                    (sc->shift_discard > 0 && sc->shift_keep < 0)))))
        return refuse(why, "a shared prefix is simulated for vLLM V1's prefix cache, SGLang's "
                           "radix cache and llama-server's slots (from b9908; Ollama from 0.30) "
                           "on a pool of full-attention layers only (%s's scheduler keeps "
                           "no such cache here)",
                      sc->engine_title ? sc->engine_title : "this", 0);
    arena a;
    char *base = (char *)scratch;
    a.hist = (double *)base;
    a.r = (req *)(base + HIST_BINS * sizeof(double));
    a.wait = (int64_t *)(a.r + n);
    a.run = a.wait + n;
    a.n = n;
    a.bs = sc->group[0].block_size > 0 ? sc->group[0].block_size : 1;
    a.prefix_tokens = w->shared_prefix;
    a.h = reuse ? 0 : w->shared_prefix / a.bs; /* slots hold a copy each: nothing shared */
    a.reuse_p = reuse ? w->shared_prefix : 0;
    a.segs = a.run + n;
    a.ahead = a.segs + n;
    a.ref = (int32_t *)(a.ahead + a.h);
    a.cached = (unsigned char *)(a.ref + a.h);
    a.nslots = 0;
    a.ent_cap = 0;
    if (reuse) { /* after the prefix arrays, aligned: slots used are at most n */
        char *rb = (char *)(a.cached + a.h);
        rb += (8 - (uintptr_t)rb % 8) % 8;
        a.nslots = sc->max_seqs > 0 && (size_t)sc->max_seqs < n ? (size_t)sc->max_seqs : n;
        a.ent_cap = 2 * n + 2;
        a.slot_len = (int64_t *)rb;
        a.slot_k = a.slot_len + n;
        a.slot_cells = a.slot_k + n;
        a.slot_ent = a.slot_cells + n;
        a.lru_prev = a.slot_ent + n;
        a.lru_next = a.lru_prev + n;
        a.slot_t = (double *)(a.lru_next + n);
        a.ent_k = (int64_t *)(a.slot_t + n);
        a.ent_len = a.ent_k + a.ent_cap;
        a.ent_slot = a.ent_len + a.ent_cap;
        a.slot_busy = (unsigned char *)(a.ent_slot + a.ent_cap);
    }
    /* lengths and arrivals at rate 1, from the seed (or the trace) */
    uint64_t rng = w->seed;
    double span = 0, psum = 0, osum = 0, steps_sum = 0, hitsum = 0;
    int64_t kept = 0;
    if (w->trace && w->arrivals == KV_ARRIVE_TRACE) {
        span = w->trace[n - 1].arrival_s - w->trace[0].arrival_s;
        if (!(span > 0) || !isfinite(span))
            return refuse(why, "the trace's arrival times span no time%s", "", 0);
    }
    double tunit = 0;
    int64_t longest_prompt = 0;
    for (size_t i = 0; i < n; i++) {
        req *q = &a.r[i];
        if (w->trace) {
            q->p = w->trace[i].prompt;
            q->o = w->trace[i].output;
        } else {
            q->p = sample(&w->prompt, &rng);
            q->o = sample(&w->output, &rng);
        }
        if (w->arrivals == KV_ARRIVE_TRACE && w->trace) /* times at rate 1 */
            tunit = (w->trace[i].arrival_s - w->trace[0].arrival_s) * ((double)(n - 1) / span);
        else if (w->arrivals == KV_ARRIVE_EVEN)
            tunit = (double)i;
        else if (i > 0)
            tunit += -kvm_log(uniform(&rng));
        q->unit = tunit;
        q->state = R_LATER;
        if (q->p > longest_prompt)
            longest_prompt = q->p;
        if (q->p < 1 || q->o < 1 ||
            (sc->kind == KV_SCHED_PAGED && q->p > sc->max_model_len - q->o)) {
            q->state = R_REFUSED; /* the engine refuses what its context cannot hold */
            out->rejected++;
            continue;
        }
        if (sc->kind == KV_SCHED_SLOTS) {
            int64_t limit = sc->prompt_limit > 0 ? sc->prompt_limit : sc->slot_tokens - 1;
            int cut = 0;
            if (q->p > limit) {
                if (sc->prompt_truncate_to <= 0) {
                    q->state = R_REFUSED;
                    out->rejected++;
                    continue;
                }
                q->p = sc->prompt_truncate_to; /* num_keep and the prompt's end kept */
                cut = 1;
            }
            if (sc->shift_discard <= 0 && q->p >= sc->slot_tokens) {
                q->state = R_REFUSED; /* no room for one token, and no shift to make it */
                out->rejected++;
                continue;
            }
            if (q->p + q->o > sc->slot_tokens && sc->shift_discard <= 0) {
                q->o = sc->slot_tokens - q->p; /* the slot ends */
                cut = 1;
            }
            if (sc->output_limit > 0 && q->o > sc->output_limit) {
                q->o = sc->output_limit;
                cut = 1;
            }
            out->truncated += cut;
        }
        kept++;
        psum += (double)q->p;
        osum += (double)q->o;
        steps_sum += block_steps(sc, q->p, q->o);
        if (reuse) { /* a slot's copy of the prefix: not computed again, held by each */
            int64_t kq = q->p < a.reuse_p ? q->p : a.reuse_p;
            hitsum += (double)(kq == q->p ? kq - 1 : kq);
        }
        if (a.h > 0) { /* its shared blocks are held once, by the pool, and never computed */
            int64_t hb = (q->p - 1) / a.bs < a.h ? (q->p - 1) / a.bs : a.h;
            steps_sum -= (double)q->o * (double)hb;
            hitsum += (double)(hb * a.bs);
        }
    }
    out->requests = (int64_t)n;
    /* "every prompt begins with the same N tokens": not one longer than every prompt */
    if (w->shared_prefix > longest_prompt)
        return refuse(why, "--shared-prefix-tokens: longer than every prompt (the longest "
                           "%s%.0f tokens): every prompt begins with the prefix",
                      "", (double)longest_prompt);
    if (kept == 0)
        return refuse(why, "every request is longer than the engine's context (%s%.0f tokens)",
                      "", (double)sc->max_model_len);
    out->prompt_mean = psum / (double)kept;
    out->output_mean = osum / (double)kept;
    out->blocks_mean = steps_sum / osum;
    out->prefix_blocks = a.h;
    out->prefix_hit_rate = NAN;
    /* the pool less the shared prefix, held once; the prompt tokens a request computes */
    double pool = (double)(sc->pool_blocks - a.h), computed_prompt = (psum - hitsum) / (double)kept;
    if (!(pool > 0))
        return refuse(why, "the shared prefix's %s%.0f blocks fill the whole pool", "",
                      (double)a.h);
    double cap = pool / out->blocks_mean;
    if (sc->max_seqs > 0 && cap > (double)sc->max_seqs)
        cap = (double)sc->max_seqs;
    out->fit_requests = cap;
    /* closed forms: a request is in service for its o steps of tpot, stretched by the
     * share of time prefill takes, lambda x mean prompt x c */
    double mean_steps = steps_sum / (double)kept, c, held;
    step_model step = {.rf = estimate ? rf : NULL, .tpot_ms = w->tpot_ms, .ttft_ms = w->ttft_ms,
                       .admitted = (double)kept / (double)n, .block_steps = mean_steps,
                       .blocks_mean = out->blocks_mean, .fit = cap,
                       .prompt_mean = out->prompt_mean};
    double tpot = step_at(&step, w->rate, w->concurrency, &c, &held);
    if (estimate) { /* the roofline's step at this load (its words: step_assumes) */
        if (!(tpot > 0) || !isfinite(tpot))
            return refuse(why, "the roofline gives a step no time (no weights, no cache)%s", "",
                          0);
        if (w->ttft_ms > 0 && w->ttft_ms < tpot * 1000.0)
            return refuse(why, "--ttft-ms: a first token takes at least one step (the roofline's "
                               "%s%.3f ms here): give more, or 0 (the prefill not timed)",
                          "", tpot * 1000.0);
        out->step_estimated = 1;
        out->step_roofline = *rf;
        out->step_kv_bytes = held * rf->block_bytes;
        out->step_running = held / out->blocks_mean;
        out->step_assumes = rf->moe ? roofline_words_moe : roofline_words;
    }
    out->step_s = tpot > 0 ? tpot : NAN;
    out->prefill_token_s = c;
    if (tpot > 0) {
        /* each limit at its own step: the roofline's reads the blocks held where that limit
         * binds (the pool, the running cap's mean blocks); a given step is the same at all */
        double tk = tpot, ck = c, ts = tpot, cs = c;
        if (estimate) {
            tk = step_holding(rf, (double)sc->pool_blocks);
            ck = prefill_per_token(&step, tk * 1000.0);
            ts = step_holding(rf, (double)sc->max_seqs * out->blocks_mean);
            cs = prefill_per_token(&step, ts * 1000.0);
        }
        out->kv_cliff_rate = pool / (mean_steps * tk + pool * computed_prompt * ck);
        if (sc->max_seqs > 0)
            out->seq_cliff_rate =
                (double)sc->max_seqs /
                (out->output_mean * ts + (double)sc->max_seqs * computed_prompt * cs);
        if (c > 0)
            out->prefill_cliff_rate = 1.0 / (computed_prompt * c);
        /* the lowest of the three binds (NaN: that limit does not apply) */
        const double limits[] = {out->kv_cliff_rate, out->seq_cliff_rate, out->prefill_cliff_rate};
        const char *const names[] = {"kv_cache", sc->max_seqs_name, "prefill"};
        for (int k = 0; k < 3; k++)
            if (!isnan(limits[k]) && (isnan(out->saturation_rate) || limits[k] < out->saturation_rate)) {
                out->saturation_rate = limits[k];
                out->binding = names[k];
            }
    }
    if (w->rate <= 0 && w->concurrency <= 0)
        return KV_OK;
    /* the run's work is about a step for every output token of every request (and one for
     * its prompt): bounded as the onset search is, so that no input spins for minutes */
    double work = osum + (double)kept;
    if (work > RUN_BUDGET)
        return refuse(why, "--requests: the run is about %s%.3g request-steps (a step for every "
                           "output token of every request), more than the 5 x 10^8 kvcalc "
                           "simulates in one run (about five seconds here): fewer --requests, a shorter "
                           "trace or shorter outputs", "", work);
    /* the run at the rate asked for */
    run_stats rs;
    simulate(sc, &a, w->rate, w->concurrency, c, tpot, 0, &rs);
    int runs = w->concurrency > 0 ? 1 : 1 + ONSET_SCAN + ONSET_STEPS, run_no = 1;
    if (w->progress)
        w->progress(w->progress_ctx, run_no, runs, rs.steps_work);
    out->simulated = 1;
    out->preemptions = rs.preemptions;
    out->request_steps = rs.steps_work;
    out->duration_s = rs.t_end;
    if (rs.w_time > 0) {
        out->running_mean = rs.run_area / rs.w_time;
        out->waiting_mean = rs.wait_area / rs.w_time;
        double usable = (double)sc->pool_blocks;
        out->kv_usage_mean = rs.used_area / rs.w_time / usable;
        out->kv_usage_p99 = usage_p99(&a, &rs) / usable;
        if (out->kv_usage_p99 > 1)
            out->kv_usage_p99 = 1;
    }
    if (w->concurrency > 0) /* a closed loop's rate is what it served */
        out->rate = rs.t_end > 0 ? (double)rs.n_meas / rs.t_end : NAN;
    if (rs.n_meas > 0) {
        out->time_in_system_s = rs.tis_sum / (double)rs.n_meas;
        out->ttft_s = rs.ttft_sum / (double)rs.n_meas;
        out->littles_law_requests = out->rate * out->time_in_system_s;
    }
    out->preemptions_per_s = rs.t_end > 0 ? (double)rs.preemptions / rs.t_end : 0;
    if ((a.h > 0 || a.reuse_p > 0) && rs.looked_up > 0)
        out->prefix_hit_rate = rs.found / rs.looked_up;
    if (w->concurrency > 0) /* a closed loop has no arrival rate to scan */
        return KV_OK;
    /* the onset: the lowest rate that preempts, on the same lengths and gaps (common random
     * numbers): a scan of eighths of 2 x the saturation, then a bisection of the first
     * eighth that preempts (a scan first: evenly spaced arrivals can preempt at a rate and
     * queue without preempting just above it) */
    double top = 2.0 * (isnan(out->saturation_rate) ? w->rate : out->saturation_rate);
    if (top < w->rate)
        top = w->rate;
    onset_search os = {.sc = sc, .a = &a, .w = w, .out = out, .c = c, .tpot = tpot, .step = &step,
                       .left = w->onset_budget > 0 ? w->onset_budget : ONSET_BUDGET,
                       .run_no = run_no, .runs = runs};
    double lo = 0, hi = NAN;
    for (int k = 1; k <= ONSET_SCAN && probe_at(&os, top * k / ONSET_SCAN); k++) {
        double x = top * k / ONSET_SCAN; /* every eighth: the plot's points */
        size_t i = out->n_curve++;
        out->curve_rate[i] = x;
        out->curve_kv_usage[i] = os.probe.w_time > 0 ? os.probe.used_area / os.probe.w_time /
                                                           (double)sc->pool_blocks
                                                     : NAN;
        out->curve_running[i] = os.probe.w_time > 0 ? os.probe.run_area / os.probe.w_time : NAN;
        out->curve_preemptions_per_s[i] =
            os.probe.t_end > 0 ? (double)os.probe.preemptions / os.probe.t_end : 0;
        if (isnan(hi) && os.probe.preemptions > 0)
            hi = x;
        else if (isnan(hi))
            lo = x;
    }
    if (!isnan(hi)) {
        for (int k = 0; k < ONSET_STEPS && probe_at(&os, (lo + hi) / 2.0); k++) {
            if (os.probe.preemptions > 0)
                hi = (lo + hi) / 2.0;
            else
                lo = (lo + hi) / 2.0;
        }
        out->preemption_onset_rate = out->onset_cut ? NAN : hi;
    }
    double limit = out->saturation_rate;
    if (!isnan(out->preemption_onset_rate) &&
        (isnan(limit) || out->preemption_onset_rate < limit))
        limit = out->preemption_onset_rate;
    if (limit > 0 && isfinite(limit)) {
        double r = kvm_ceil(w->rate / (limit * (1.0 - w->headroom)) - 1e-12);
        out->replicas = r < 1 ? 1 : r > 9e18 ? INT64_MAX : (int64_t)r;
    }
    return KV_OK;
}

/* ---- the engine's rules ----------------------------------------------------------------- */

kv_status kv_sched_of(const kv_spec *s, const kv_result *r, kv_sched *out, kv_error *why)
{
    memset(out, 0, sizeof *out);
    const kv_engine_desc *d = kv_engine_get(s->engine);
    if (!d)
        return refuse(why, "no such engine%s", "", 0);
    if (!d->sched) {
        char names[256];
        size_t used = 0;
        names[0] = '\0';
        for (int e = 0; e < KV_ENGINE_COUNT; e++) {
            const kv_engine_desc *k = kv_engine_get((kv_engine)e);
            if (k->sched && used < sizeof names)
                used += (size_t)kv_snprintf(names + used, sizeof names - used, "%s%s",
                                         used ? ", " : "", kv_engine_name((kv_engine)e));
        }
        char msg[400];
        kv_snprintf(msg, sizeof msg, "%s's scheduler is not simulated (the workload runs on: %s)",
                 d->title, names);
        return kv_sched_refuse(why, msg);
    }
    return d->sched(s, r, out, why);
}
