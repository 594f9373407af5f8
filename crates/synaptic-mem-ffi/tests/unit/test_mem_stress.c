/*
 * Multi-threaded stress test of the syn_mem C API (pthreads).
 *
 * 8 worker threads run "inferences": under the application's read lock each allocates a few
 * ephemeral tensors of random shapes and one scratch buffer, fills them with a pattern unique to
 * (thread, inference, tensor), yields, and checks every byte. One more thread resets the
 * ephemeral region between inferences under the write lock (the application lock the API
 * requires: a reset must not reclaim tensors still in use). Persistent and shared tensors made
 * at start must survive intact. Any corrupted byte, any block outside its region or
 * misaligned, or any two live blocks overlapping, is a failure.
 * Ends with "N passed, M failed".
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "synaptic/syn_mem.h"

#define THREADS 8
#define INFERENCES 20000
#define MAX_TENSORS 6
#define ARENA_SIZE 262144u
#define SCRATCH_SIZE 16384u

static _Alignas(16) uint8_t arena[ARENA_SIZE];
static _Alignas(16) uint8_t io_region[4096];

static pthread_rwlock_t app_lock;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int workers_done;

/* Live blocks (tensor descriptor+data spans and scratch blocks) for the overlap check. */
struct span {
    uintptr_t lo, hi;
    int owner;
};
static struct span live[THREADS * (MAX_TENSORS + 1)];
static unsigned live_n;

static unsigned long corruptions, overlaps, bounds_errors, nomem;
static unsigned long inferences_done, tensors_done, scratch_done, resets_done;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t xorshift(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static uint8_t pat(unsigned seed, uint32_t i) { return (uint8_t)(seed * 131u + i * 7u + 3u); }

static void add_live(uintptr_t lo, uintptr_t hi, int owner)
{
    pthread_mutex_lock(&live_lock);
    for (unsigned i = 0; i < live_n; i++)
        if (lo < live[i].hi && live[i].lo < hi) {
            pthread_mutex_lock(&count_lock);
            overlaps++;
            pthread_mutex_unlock(&count_lock);
        }
    live[live_n].lo = lo;
    live[live_n].hi = hi;
    live[live_n].owner = owner;
    live_n++;
    pthread_mutex_unlock(&live_lock);
}

static void drop_live(int owner)
{
    pthread_mutex_lock(&live_lock);
    unsigned j = 0;
    for (unsigned i = 0; i < live_n; i++)
        if (live[i].owner != owner) live[j++] = live[i];
    live_n = j;
    pthread_mutex_unlock(&live_lock);
}

static void count(unsigned long *c, unsigned long n)
{
    pthread_mutex_lock(&count_lock);
    *c += n;
    pthread_mutex_unlock(&count_lock);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint32_t rng = 0x9E3779B9u ^ (uint32_t)(id * 7919 + 1);
    syn_tensor_t *t[MAX_TENSORS];
    unsigned seeds[MAX_TENSORS];
    const uintptr_t base = (uintptr_t)arena;
    const uintptr_t tensor_end = base + ARENA_SIZE - SCRATCH_SIZE;
    for (unsigned inf = 0; inf < INFERENCES; inf++) {
        pthread_rwlock_rdlock(&app_lock);
        unsigned n = 1 + xorshift(&rng) % MAX_TENSORS, got = 0;
        for (unsigned k = 0; k < n; k++) {
            uint32_t shape[4];
            uint8_t ndim = (uint8_t)(1 + xorshift(&rng) % 4);
            for (unsigned d = 0; d < ndim; d++) shape[d] = 1 + xorshift(&rng) % 6;
            syn_npu_dtype_t dt = (syn_npu_dtype_t)(xorshift(&rng) % 8);
            syn_tensor_t *p = syn_mem_tensor_alloc(shape, ndim, dt, SYN_MEM_EPHEMERAL);
            if (!p) {
                /* A failure may be from any thread: last_error is global; only count. */
                count(&nomem, 1);
                continue;
            }
            uintptr_t lo = (uintptr_t)p, hi = (uintptr_t)p->data + p->size;
            if (lo % 16 || (uintptr_t)p->data % 16 || lo < base || hi > tensor_end ||
                (uintptr_t)p->data != lo + SYN_MEM_DESC_SPAN || p->ndim != ndim ||
                p->dtype != (uint8_t)dt)
                count(&bounds_errors, 1);
            add_live(lo, hi, id);
            unsigned seed = (unsigned)id * 1000003u + inf * 17u + k;
            uint8_t *d = p->data;
            for (uint32_t i = 0; i < p->size; i++) d[i] = pat(seed, i);
            seeds[got] = seed;
            t[got++] = p;
        }
        size_t ssz = 16 + xorshift(&rng) % 200;
        uint8_t *s = syn_mem_scratch_acquire(ssz);
        if (s) {
            uintptr_t lo = (uintptr_t)s;
            if (lo % 16 || lo < tensor_end || lo + ssz > base + ARENA_SIZE)
                count(&bounds_errors, 1);
            add_live(lo, lo + ssz, id);
            memset(s, id + 1, ssz);
            count(&scratch_done, 1);
        } else {
            count(&nomem, 1);
        }
        sched_yield(); /* let the others allocate in between */
        for (unsigned j = 0; j < got; j++) {
            const uint8_t *d = t[j]->data;
            for (uint32_t i = 0; i < t[j]->size; i++)
                if (d[i] != pat(seeds[j], i)) {
                    count(&corruptions, 1);
                    break;
                }
        }
        if (s)
            for (size_t i = 0; i < ssz; i++)
                if (s[i] != (uint8_t)(id + 1)) {
                    count(&corruptions, 1);
                    break;
                }
        drop_live(id);
        count(&tensors_done, got);
        count(&inferences_done, 1);
        pthread_rwlock_unlock(&app_lock);
    }
    return NULL;
}

static void *resetter(void *arg)
{
    (void)arg;
    while (!workers_done) {
        pthread_rwlock_wrlock(&app_lock);
        pthread_mutex_lock(&live_lock);
        unsigned still_live = live_n;
        pthread_mutex_unlock(&live_lock);
        if (still_live) count(&overlaps, 1000000); /* the lock failed to protect them */
        syn_mem_reset_ephemeral();
        count(&resets_done, 1);
        pthread_rwlock_unlock(&app_lock);
        sched_yield();
    }
    return NULL;
}

int main(void)
{
    unsigned passed = 0, failed = 0;
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
#ifdef __GLIBC__
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
    pthread_rwlock_init(&app_lock, &attr);

    if (syn_mem_init_ex(arena, ARENA_SIZE, SCRATCH_SIZE) != 0 ||
        syn_mem_shared_init(io_region, sizeof io_region) != 0) {
        printf("stress: init failed (%d)\n", syn_mem_last_error());
        printf("0 passed, 1 failed\n");
        return 1;
    }
    const uint32_t wshape[2] = {32, 32};
    syn_tensor_t *w = syn_mem_tensor_alloc(wshape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    syn_tensor_t *io = syn_mem_tensor_alloc(wshape, 2, SYN_NPU_DTYPE_UINT8, SYN_MEM_SHARED);
    if (!w || !io) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    memset(w->data, 0x5A, w->size);
    memset(io->data, 0xC3, io->size);

    pthread_t th[THREADS], rs;
    pthread_create(&rs, NULL, resetter, NULL);
    for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    workers_done = 1;
    pthread_join(rs, NULL);
    syn_mem_reset_ephemeral();

    int persistent_ok = 1;
    for (uint32_t i = 0; i < w->size; i++)
        if (((uint8_t *)w->data)[i] != 0x5A || ((uint8_t *)io->data)[i] != 0xC3) persistent_ok = 0;
    /* alloc_count = persistent + shared + every successful tensor and scratch allocation. */
    syn_mem_stats_t st;
    int stats_ok = syn_mem_get_stats(&st) == 0 && st.ephemeral_used == 0 && st.scratch_used == 0 &&
                   st.persistent_used == 32 + 1024 && st.shared_used == 32 + 1024 &&
                   st.failed_count == nomem && st.reset_count == resets_done + 1 &&
                   st.alloc_count == 2 + tensors_done + scratch_done;

    printf("stress: %d threads, %lu inferences, %lu tensors, %lu resets, %lu refused (ENOMEM)\n",
           THREADS, inferences_done, tensors_done, resets_done, nomem);
    printf("stress: %lu overlaps, %lu corrupted blocks, %lu misplaced blocks\n", overlaps,
           corruptions, bounds_errors);
#define CHECK(name, cond)                                                                         \
    do {                                                                                          \
        if (cond) {                                                                               \
            passed++;                                                                             \
            printf("ok   %s\n", name);                                                            \
        } else {                                                                                  \
            failed++;                                                                             \
            printf("FAIL %s\n", name);                                                            \
        }                                                                                         \
    } while (0)
    CHECK("all inferences ran", inferences_done == THREADS * (unsigned long)INFERENCES);
    CHECK("zero overlaps", overlaps == 0);
    CHECK("zero corrupted blocks", corruptions == 0);
    CHECK("every block aligned and inside its region", bounds_errors == 0);
    CHECK("persistent and shared tensors intact", persistent_ok);
    CHECK("statistics consistent", stats_ok);
    CHECK("resets happened between inferences", resets_done > 0);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
