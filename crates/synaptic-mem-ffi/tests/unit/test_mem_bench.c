/*
 * The spec's allocation benchmark on the host: cost per syn_mem_tensor_alloc() for 4-, 16-, 32-
 * and 64-byte tensors (flat over size), scratch acquisition, and syn_mem_reset_ephemeral() with
 * 1, 10 and 100 live tensors (constant). Wall-clock nanoseconds (CLOCK_MONOTONIC), including
 * the critical section (a process-wide lock on the host). One line per figure:
 *     bench <name> <value> <unit>
 * The cycle-accurate Cortex-M3 version runs under QEMU in the firmware.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "synaptic/syn_mem.h"

#define ARENA_SIZE 524288u
#define BATCH 2048u
#define ROUNDS 301u
#define RESET_SAMPLES 20001u

static _Alignas(16) uint8_t arena[ARENA_SIZE];

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void fail(const char *what)
{
    fprintf(stderr, "bench: %s failed (last error %d)\n", what, syn_mem_last_error());
    exit(1);
}

static double samples[RESET_SAMPLES > ROUNDS ? RESET_SAMPLES : ROUNDS];

static double alloc_samples[4][ROUNDS];

/* One batch: mean cost of BATCH allocations of `bytes`-byte tensors (then an untimed reset). */
static double alloc_batch(uint32_t bytes)
{
    const uint32_t shape[1] = {bytes};
    uint64_t t0 = now_ns();
    for (unsigned i = 0; i < BATCH; i++)
        if (!syn_mem_tensor_alloc(shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL))
            fail("syn_mem_tensor_alloc");
    uint64_t t1 = now_ns();
    syn_mem_reset_ephemeral();
    return (double)(t1 - t0) / BATCH;
}

static double bench_scratch(size_t bytes, unsigned per_round)
{
    for (unsigned r = 0; r < ROUNDS; r++) {
        uint64_t t0 = now_ns();
        for (unsigned i = 0; i < per_round; i++)
            if (!syn_mem_scratch_acquire(bytes)) fail("syn_mem_scratch_acquire");
        uint64_t t1 = now_ns();
        syn_mem_reset_ephemeral();
        samples[r] = (double)(t1 - t0) / per_round;
    }
    return median(samples, ROUNDS);
}

/* Median cost of one reset with `live` tensors allocated before it (timer overhead removed). */
static double bench_reset(unsigned live, double overhead)
{
    const uint32_t shape[1] = {16};
    for (unsigned r = 0; r < RESET_SAMPLES; r++) {
        for (unsigned i = 0; i < live; i++)
            if (!syn_mem_tensor_alloc(shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL))
                fail("syn_mem_tensor_alloc");
        uint64_t t0 = now_ns();
        syn_mem_reset_ephemeral();
        uint64_t t1 = now_ns();
        samples[r] = (double)(t1 - t0);
    }
    double v = median(samples, RESET_SAMPLES) - overhead;
    return v < 0 ? 0 : v;
}

int main(void)
{
    if (syn_mem_init(arena, ARENA_SIZE) != 0) fail("syn_mem_init");
    /* Warm up caches and the lock. */
    for (unsigned r = 0; r < 50; r++) (void)alloc_batch(16);

    for (unsigned r = 0; r < RESET_SAMPLES; r++) {
        uint64_t t0 = now_ns();
        uint64_t t1 = now_ns();
        samples[r] = (double)(t1 - t0);
    }
    double overhead = median(samples, RESET_SAMPLES);
    printf("bench timer_overhead %.1f ns\n", overhead);

    const uint32_t sizes[4] = {4, 16, 32, 64};
    double lo = 1e30, hi = 0;
    /* Sizes interleaved round by round, so machine noise hits all four alike. */
    for (unsigned r = 0; r < ROUNDS; r++)
        for (int i = 0; i < 4; i++) alloc_samples[i][r] = alloc_batch(sizes[i]);
    for (int i = 0; i < 4; i++) {
        double ns = median(alloc_samples[i], ROUNDS);
        printf("bench alloc_%uB %.1f ns\n", (unsigned)sizes[i], ns);
        if (ns < lo) lo = ns;
        if (ns > hi) hi = ns;
    }
    printf("bench alloc_max_over_min %.3f ratio\n", hi / lo);
    printf("bench scratch_acquire_64B %.1f ns\n", bench_scratch(64, 200));

    const unsigned live[3] = {1, 10, 100};
    for (int i = 0; i < 3; i++)
        printf("bench reset_%u %.1f ns\n", live[i], bench_reset(live[i], overhead));

    syn_mem_stats_t s;
    if (syn_mem_get_stats(&s) != 0 || s.failed_count != 0) fail("statistics");
    printf("bench allocations_total %u count\n", (unsigned)s.alloc_count);
    return 0;
}
