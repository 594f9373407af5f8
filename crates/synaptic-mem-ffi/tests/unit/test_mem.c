/*
 * Unit tests of the syn_mem C API (libsynaptic_mem_ffi.a) with cmocka.
 *
 * The arena is global: the tests run in order in one process, and each one after the first
 * starts from a fresh syn_mem_init_ex() (fixture_8k) unless it tests initialisation itself.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* An emitted plan (synmem emit kws_ref_model.tflite --lang c, the golden file of
 * crates/synaptic-plan/tests/golden), included before syn_mem.h: the shared types are guarded,
 * either order works (the firmware test includes it after). */
#include "kws_ref_model_plan.h"
#include "synaptic/syn_mem.h"

#define ARENA_8K 8192u
#define SCRATCH_1K 1024u
#define TENSOR_CAP_8K (ARENA_8K - SCRATCH_1K)

static _Alignas(16) uint8_t arena[524288 + 64];
static _Alignas(16) uint8_t io_region[4096];

/* ---- helpers ---------------------------------------------------------------------------- */

static size_t off(const void *p) { return (size_t)((const uint8_t *)p - arena); }

static syn_mem_stats_t get_stats(void)
{
    syn_mem_stats_t s;
    memset(&s, 0xEE, sizeof s);
    assert_int_equal(syn_mem_get_stats(&s), 0);
    return s;
}

static void assert_stats_equal(const syn_mem_stats_t *a, const syn_mem_stats_t *b)
{
    assert_int_equal(a->arena_size, b->arena_size);
    assert_int_equal(a->usable_size, b->usable_size);
    assert_int_equal(a->tensor_capacity, b->tensor_capacity);
    assert_int_equal(a->persistent_used, b->persistent_used);
    assert_int_equal(a->ephemeral_used, b->ephemeral_used);
    assert_int_equal(a->ephemeral_peak, b->ephemeral_peak);
    assert_int_equal(a->scratch_used, b->scratch_used);
    assert_int_equal(a->scratch_size, b->scratch_size);
    assert_int_equal(a->scratch_peak, b->scratch_peak);
    assert_int_equal(a->shared_used, b->shared_used);
    assert_int_equal(a->shared_size, b->shared_size);
    assert_int_equal(a->arena_peak, b->arena_peak);
    assert_int_equal(a->alloc_count, b->alloc_count);
    assert_int_equal(a->reset_count, b->reset_count);
    assert_int_equal(a->failed_count, b->failed_count);
}

/* Fills a tensor's data with a pattern derived from `seed`; check_pattern verifies it. */
static void fill_pattern(const syn_tensor_t *t, unsigned seed)
{
    uint8_t *d = t->data;
    for (uint32_t i = 0; i < t->size; i++) d[i] = (uint8_t)(seed * 31u + i * 7u + 1u);
}

static int pattern_ok(const syn_tensor_t *t, unsigned seed)
{
    const uint8_t *d = t->data;
    for (uint32_t i = 0; i < t->size; i++)
        if (d[i] != (uint8_t)(seed * 31u + i * 7u + 1u)) return 0;
    return 1;
}

static syn_tensor_t *alloc1(uint32_t d0, syn_npu_dtype_t dt, syn_mem_lifetime_t lt)
{
    const uint32_t shape[1] = {d0};
    return syn_mem_tensor_alloc(shape, 1, dt, lt);
}

/* Captures syn_mem_print_stats output. */
struct capture {
    char buf[2048];
    size_t len;
    unsigned calls;
};

static void capture_fn(const char *buf, size_t len, void *ctx)
{
    struct capture *c = ctx;
    assert_true(c->len + len < sizeof c->buf);
    memcpy(c->buf + c->len, buf, len);
    c->len += len;
    c->buf[c->len] = '\0';
    c->calls++;
}

static int fixture_8k(void **state)
{
    (void)state;
    syn_mem_set_print_fn(NULL, NULL);
    memset(arena, 0, ARENA_8K);
    return syn_mem_init_ex(arena, ARENA_8K, SCRATCH_1K) == 0 ? 0 : -1;
}

/* ---- tests ------------------------------------------------------------------------------ */

/* Must run first: nothing initialised yet. */
static void test_every_call_before_init_fails_cleanly(void **state)
{
    (void)state;
    const uint32_t shape[2] = {4, 4};
    assert_int_equal(syn_mem_last_error(), 0);
    assert_null(syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_null(syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_null(syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_null(syn_mem_tensor_alloc(shape, 2, (syn_npu_dtype_t)99, SYN_MEM_EPHEMERAL));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_null(syn_mem_scratch_acquire(64));
    assert_int_equal(syn_mem_last_error(), -ENODEV);

    syn_mem_stats_t s;
    memset(&s, 0x5A, sizeof s);
    assert_int_equal(syn_mem_get_stats(&s), -ENODEV);
    const uint8_t *raw = (const uint8_t *)&s;
    for (size_t i = 0; i < sizeof s; i++) assert_int_equal(raw[i], 0x5A); /* untouched */
    assert_int_equal(syn_mem_get_stats(NULL), -EINVAL);
    assert_int_equal(syn_mem_last_error(), -EINVAL);

    assert_int_equal(syn_mem_shared_init(io_region, sizeof io_region), -ENODEV);
    syn_mem_plan_t plan;
    memset(&plan, 0x5A, sizeof plan);
    assert_int_equal(syn_mem_plan_load(KWS_REF_MODEL_PLAN_ARGS, &plan), -ENODEV);
    assert_int_equal(syn_mem_plan_load(NULL, NULL, 0, 0, &plan), -ENODEV);
    assert_int_equal(syn_mem_plan_begin(NULL), -ENODEV);
    assert_null(syn_mem_tensor_alloc_planned(NULL, 0));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    syn_mem_reset_ephemeral();
    assert_int_equal(syn_mem_last_error(), -ENODEV);

    struct capture c = {.len = 0, .calls = 0};
    syn_mem_set_print_fn(capture_fn, &c);
    syn_mem_print_stats();
    assert_int_equal(c.calls, 0);
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    syn_mem_set_print_fn(NULL, NULL);

    syn_mem_tensor_free(NULL);
    syn_mem_scratch_release(NULL);
}

static void test_enums_macros_and_layout(void **state)
{
    (void)state;
    assert_int_equal(SYN_MEM_PERSISTENT, 0);
    assert_int_equal(SYN_MEM_EPHEMERAL, 1);
    assert_int_equal(SYN_MEM_SHARED, 2);
    const int dtypes[8] = {SYN_NPU_DTYPE_INT8,    SYN_NPU_DTYPE_UINT8,   SYN_NPU_DTYPE_INT16,
                           SYN_NPU_DTYPE_INT32,   SYN_NPU_DTYPE_FLOAT16, SYN_NPU_DTYPE_FLOAT32,
                           SYN_NPU_DTYPE_BFLOAT16, SYN_NPU_DTYPE_INT4};
    for (int i = 0; i < 8; i++) assert_int_equal(dtypes[i], i);
    assert_int_equal(SYN_MEM_TENSOR_ARENA_SIZE, 131072);
    assert_int_equal(SYN_MEM_SCRATCH_POOL_SIZE, 16384);
    assert_int_equal(SYN_MEM_ALIGN, 16);
    assert_int_equal(SYN_MEM_MAX_DIMS, 4);
    assert_int_equal(SYN_MEM_DESC_SPAN, 32);
    assert_int_equal(sizeof(syn_tensor_t), sizeof(void *) == 4 ? 28 : 32);
    assert_int_equal(offsetof(syn_tensor_t, shape), sizeof(void *));
    assert_int_equal(offsetof(syn_tensor_t, size), sizeof(void *) + 20);
    assert_int_equal(sizeof(((syn_tensor_t *)0)->dtype), 1);
    assert_int_equal(sizeof(((syn_tensor_t *)0)->lifetime), 1);
}

static void test_default_init_gives_112k_plus_16k(void **state)
{
    (void)state;
    assert_int_equal(syn_mem_init(arena, SYN_MEM_TENSOR_ARENA_SIZE), 0);
    syn_mem_stats_t s = get_stats();
    assert_int_equal(s.arena_size, 131072);
    assert_int_equal(s.usable_size, 131072);
    assert_int_equal(s.tensor_capacity, 114688);
    assert_int_equal(s.scratch_size, 16384);
    assert_int_equal(s.persistent_used + s.ephemeral_used + s.scratch_used + s.shared_used, 0);
    assert_int_equal(s.shared_size, 0);
    assert_int_equal(s.arena_peak + s.scratch_peak + s.ephemeral_peak, 0);
    assert_int_equal(s.alloc_count + s.reset_count + s.failed_count, 0);
    assert_int_equal(syn_mem_last_error(), 0);
    /* Range edges of syn_mem_init with the default scratch pool. */
    assert_int_equal(syn_mem_init(arena, 524288), 0);
    assert_int_equal(get_stats().tensor_capacity, 524288 - 16384);
    assert_int_equal(syn_mem_init(arena, 16384 + 48), 0);
    assert_int_equal(get_stats().tensor_capacity, 48);
    /* The smallest arena: 4096 bytes with a 1024-byte pool. */
    assert_int_equal(syn_mem_init_ex(arena, 4096, 1024), 0);
    assert_int_equal(get_stats().tensor_capacity, 3072);
    assert_int_equal(syn_mem_init_ex(arena, 131072, 65536), 0);
    assert_int_equal(get_stats().scratch_size, 65536);
}

static void test_layout_offsets_and_alignment(void **state)
{
    (void)state;
    const uint32_t s44[2] = {4, 4};
    syn_tensor_t *w = syn_mem_tensor_alloc(s44, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    assert_non_null(w);
    assert_int_equal(off(w), 0);
    assert_int_equal(off(w->data), 32);
    assert_int_equal(w->size, 16);
    assert_int_equal(w->ndim, 2);
    assert_int_equal(w->shape[0], 4);
    assert_int_equal(w->shape[1], 4);
    assert_int_equal(w->shape[2], 1);
    assert_int_equal(w->shape[3], 1);
    assert_int_equal(w->dtype, SYN_NPU_DTYPE_INT8);
    assert_int_equal(w->lifetime, SYN_MEM_PERSISTENT);
    assert_int_equal(w->reserved, 0);

    syn_tensor_t *b = alloc1(3, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_PERSISTENT);
    assert_int_equal(off(b), 48);
    assert_int_equal(off(b->data), 80);
    assert_int_equal(b->size, 12);

    const uint32_t s1234[4] = {1, 2, 3, 4};
    syn_tensor_t *a = syn_mem_tensor_alloc(s1234, 4, SYN_NPU_DTYPE_INT16, SYN_MEM_EPHEMERAL);
    assert_int_equal(off(a), 96); /* ephemeral starts right after the persistent region */
    assert_int_equal(off(a->data), 128);
    assert_int_equal(a->size, 48);
    assert_int_equal(a->ndim, 4);
    assert_int_equal(a->shape[3], 4);
    assert_int_equal(a->lifetime, SYN_MEM_EPHEMERAL);
    syn_tensor_t *a2 = alloc1(1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    assert_int_equal(off(a2), 176);

    void *s1 = syn_mem_scratch_acquire(100);
    void *s2 = syn_mem_scratch_acquire(10);
    assert_int_equal(off(s1), TENSOR_CAP_8K); /* scratch pool: the top 1024 bytes */
    assert_int_equal(off(s2), TENSOR_CAP_8K + 112);
    assert_int_equal((uintptr_t)s2 % 16, 0);

    syn_tensor_t *all[4] = {w, b, a, a2};
    for (int i = 0; i < 4; i++) {
        assert_int_equal((uintptr_t)all[i] % 16, 0);
        assert_int_equal((uintptr_t)all[i]->data % 16, 0);
        assert_ptr_equal((uint8_t *)all[i]->data, (uint8_t *)all[i] + SYN_MEM_DESC_SPAN);
    }

    syn_mem_stats_t s = get_stats();
    assert_int_equal(s.persistent_used, 96);
    assert_int_equal(s.ephemeral_used, 128);
    assert_int_equal(s.ephemeral_peak, 128);
    assert_int_equal(s.arena_peak, 224);
    assert_int_equal(s.scratch_used, 128);
    assert_int_equal(s.scratch_peak, 128);
    assert_int_equal(s.scratch_size, 1024);
    assert_int_equal(s.tensor_capacity, TENSOR_CAP_8K);
    assert_int_equal(s.alloc_count, 6);
    assert_int_equal(s.failed_count, 0);
}

static void test_sizes_per_dtype(void **state)
{
    (void)state;
    const uint32_t expect3[8] = {3, 3, 6, 12, 6, 12, 6, 2};
    size_t expected_off = 0;
    for (int dt = 0; dt < 8; dt++) {
        syn_tensor_t *t = alloc1(3, (syn_npu_dtype_t)dt, SYN_MEM_EPHEMERAL);
        assert_non_null(t);
        assert_int_equal(t->size, expect3[dt]);
        assert_int_equal(t->dtype, dt);
        assert_int_equal(off(t), expected_off);
        expected_off += 32 + ((expect3[dt] + 15u) & ~15u);
    }
    assert_int_equal(alloc1(5, SYN_NPU_DTYPE_INT4, SYN_MEM_EPHEMERAL)->size, 3);
    const uint32_t big[4] = {2, 8, 8, 3};
    assert_int_equal(syn_mem_tensor_alloc(big, 4, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_EPHEMERAL)->size,
                     1536);
}

static void test_region_boundaries(void **state)
{
    (void)state;
    /* Ephemeral up to exactly the tensor capacity, then nothing more. */
    syn_tensor_t *t = alloc1(TENSOR_CAP_8K - 32, SYN_NPU_DTYPE_UINT8, SYN_MEM_EPHEMERAL);
    assert_non_null(t);
    assert_int_equal(off(t), 0);
    assert_int_equal(get_stats().ephemeral_used, TENSOR_CAP_8K);
    assert_null(alloc1(1, SYN_NPU_DTYPE_UINT8, SYN_MEM_EPHEMERAL));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);
    syn_mem_reset_ephemeral();
    /* One byte more than the whole tensor space: never fits. */
    assert_null(alloc1(TENSOR_CAP_8K - 32 + 1, SYN_NPU_DTYPE_UINT8, SYN_MEM_EPHEMERAL));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);
    /* Persistent fills the same space. */
    assert_non_null(alloc1(TENSOR_CAP_8K - 32, SYN_NPU_DTYPE_UINT8, SYN_MEM_PERSISTENT));
    assert_null(alloc1(1, SYN_NPU_DTYPE_UINT8, SYN_MEM_EPHEMERAL));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);

    /* Scratch: exactly the pool, then nothing; tensors never reach into it. */
    void *p = syn_mem_scratch_acquire(SCRATCH_1K);
    assert_non_null(p);
    assert_int_equal(off(p), TENSOR_CAP_8K);
    assert_null(syn_mem_scratch_acquire(1));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);
    syn_mem_reset_ephemeral();
    assert_non_null(syn_mem_scratch_acquire(SCRATCH_1K - 16));
    assert_null(syn_mem_scratch_acquire(17));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);
    assert_non_null(syn_mem_scratch_acquire(16));
    assert_int_equal(get_stats().scratch_used, SCRATCH_1K);
}

static void test_reset_semantics(void **state)
{
    (void)state;
    syn_tensor_t *w = alloc1(100, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    fill_pattern(w, 7);
    for (unsigned job = 0; job < 5; job++) {
        syn_tensor_t *a = alloc1(64, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
        syn_tensor_t *b = alloc1(10, SYN_NPU_DTYPE_INT32, SYN_MEM_EPHEMERAL);
        void *s = syn_mem_scratch_acquire(200);
        /* Every inference gets the same addresses back: offsets were reset, not leaked. */
        assert_int_equal(off(a), 144);
        assert_int_equal(off(b), 144 + 96);
        assert_int_equal(off(s), TENSOR_CAP_8K);
        fill_pattern(a, job);
        memset(s, 0xFF, 200);
        syn_mem_stats_t st = get_stats();
        assert_int_equal(st.ephemeral_used, 96 + 80);
        assert_int_equal(st.scratch_used, 208);
        syn_mem_reset_ephemeral();
        st = get_stats();
        assert_int_equal(st.ephemeral_used, 0);
        assert_int_equal(st.scratch_used, 0);
        assert_int_equal(st.persistent_used, 144);
        assert_int_equal(st.reset_count, job + 1);
        assert_int_equal(st.arena_peak, 144 + 176);
        assert_int_equal(st.ephemeral_peak, 176);
        assert_int_equal(st.scratch_peak, 208);
        assert_int_equal(st.alloc_count, 1 + 3 * (job + 1));
        assert_true(pattern_ok(w, 7)); /* persistent survives every reset */
    }
    /* A reset with nothing live still counts and changes nothing else. */
    syn_mem_stats_t before = get_stats();
    syn_mem_reset_ephemeral();
    syn_mem_stats_t after = get_stats();
    before.reset_count++;
    assert_stats_equal(&before, &after);
}

static void test_free_and_release_are_noops(void **state)
{
    (void)state;
    syn_tensor_t *t = alloc1(16, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    void *s = syn_mem_scratch_acquire(16);
    syn_mem_stats_t before = get_stats();
    syn_mem_tensor_free(t);
    syn_mem_tensor_free(NULL);
    syn_mem_scratch_release(s);
    syn_mem_scratch_release(NULL);
    syn_mem_stats_t after = get_stats();
    assert_stats_equal(&before, &after);
    /* The next allocation does not reuse the "freed" block. */
    assert_int_equal(off(alloc1(16, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL)), 48);
    assert_int_equal(off(syn_mem_scratch_acquire(16)), TENSOR_CAP_8K + 16);
}

static void test_persistent_while_ephemeral_live_is_busy(void **state)
{
    (void)state;
    assert_non_null(alloc1(8, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_non_null(alloc1(8, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    assert_null(alloc1(8, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_int_equal(syn_mem_last_error(), -EBUSY);
    syn_mem_reset_ephemeral();
    assert_non_null(syn_mem_scratch_acquire(8)); /* live scratch blocks it too */
    assert_null(alloc1(8, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_int_equal(syn_mem_last_error(), -EBUSY);
    syn_mem_reset_ephemeral();
    syn_tensor_t *p = alloc1(8, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    assert_non_null(p);
    assert_int_equal(off(p), 48);
    assert_int_equal(get_stats().failed_count, 2);
}

static void test_shared_region(void **state)
{
    (void)state;
    assert_null(alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_int_equal(syn_mem_shared_init(NULL, 1024), -EINVAL);
    assert_int_equal(syn_mem_shared_init(io_region, 47), -EINVAL);
    assert_int_equal(syn_mem_shared_init(io_region + 5, 58), -EINVAL); /* 48 - 5 after align */
    assert_int_equal(syn_mem_last_error(), -EINVAL);
    /* A shared region sharing any byte with the arena's buffer: refused (a PERSISTENT and a
     * SHARED tensor would share memory). Inside, across the start, across the end. */
    assert_int_equal(syn_mem_shared_init(arena + 1024, 1024), -EINVAL);
    assert_int_equal(syn_mem_shared_init(arena + ARENA_8K - 16, 1024), -EINVAL);
    assert_int_equal(syn_mem_shared_init(arena + ARENA_8K - 1, 64), -EINVAL);
    assert_int_equal(syn_mem_last_error(), -EINVAL);
    assert_int_equal(get_stats().shared_size, 0);
    /* Right after the arena's buffer: fine (re-initialised below, so drop it again). */
    assert_int_equal(syn_mem_shared_init(arena + ARENA_8K, 1024), 0);
    assert_int_equal(get_stats().shared_size, 1024);
    assert_int_equal(syn_mem_init_ex(arena, ARENA_8K, SCRATCH_1K), 0);
    assert_int_equal(get_stats().shared_size, 0);
    /* Unaligned base: aligned up, size reduced to a multiple of 16. */
    assert_int_equal(syn_mem_shared_init(io_region + 5, 1024), 0);
    assert_int_equal(syn_mem_shared_init(io_region, 1024), -EALREADY);
    assert_int_equal(syn_mem_last_error(), -EALREADY);
    syn_mem_stats_t s = get_stats();
    assert_int_equal(s.shared_size, 1008);
    assert_int_equal(s.shared_used, 0);

    syn_tensor_t *in = alloc1(16, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_SHARED);
    assert_non_null(in);
    assert_ptr_equal((uint8_t *)in, io_region + 16);
    assert_ptr_equal((uint8_t *)in->data, io_region + 48);
    assert_int_equal(in->lifetime, SYN_MEM_SHARED);
    fill_pattern(in, 3);
    /* Shared allocations never touch the arena, and are allowed while ephemeral is live. */
    assert_non_null(alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    syn_tensor_t *out = alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED);
    assert_ptr_equal((uint8_t *)out, io_region + 16 + 96);
    s = get_stats();
    assert_int_equal(s.shared_used, 96 + 48);
    assert_int_equal(s.persistent_used, 0);
    assert_int_equal(s.ephemeral_used, 48);
    syn_mem_reset_ephemeral(); /* shared survives */
    assert_int_equal(get_stats().shared_used, 144);
    assert_true(pattern_ok(in, 3));
    /* Fill it up: 1008 - 144 = 864 left = 32 + 832. */
    assert_non_null(alloc1(832, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_null(alloc1(1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);
    assert_null(alloc1(2000, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_int_equal(syn_mem_last_error(), -ENOMEM);
}

/* One failing call: returns NULL, sets `err`, counts a failure, changes nothing else. */
#define EXPECT_ALLOC_FAIL(call, err)                                                              \
    do {                                                                                          \
        syn_mem_stats_t before_ = get_stats();                                                    \
        assert_null(call);                                                                        \
        assert_int_equal(syn_mem_last_error(), (err));                                            \
        syn_mem_stats_t after_ = get_stats();                                                     \
        before_.failed_count++;                                                                   \
        assert_stats_equal(&before_, &after_);                                                    \
        assert_true(pattern_ok(keep_p, 11));                                                      \
        assert_true(pattern_ok(keep_e, 12));                                                      \
    } while (0)

static void test_bad_inputs(void **state)
{
    (void)state;
    syn_tensor_t *keep_p = alloc1(64, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    syn_tensor_t *keep_e = alloc1(40, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    fill_pattern(keep_p, 11);
    fill_pattern(keep_e, 12);
    const uint32_t s2[2] = {2, 2};
    const uint32_t s4[4] = {1, 2, 3, 4};
    const uint32_t s5[5] = {1, 1, 1, 1, 1};

    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, (syn_npu_dtype_t)99, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, (syn_npu_dtype_t)8, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, (syn_npu_dtype_t)-1, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, (syn_npu_dtype_t)256, SYN_MEM_EPHEMERAL),
                      -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, SYN_NPU_DTYPE_INT8, (syn_mem_lifetime_t)3),
                      -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, SYN_NPU_DTYPE_INT8, (syn_mem_lifetime_t)99),
                      -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 2, SYN_NPU_DTYPE_INT8, (syn_mem_lifetime_t)-1),
                      -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s2, 0, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s5, 5, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(s4, 255, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(NULL, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(NULL, 0, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL);
    for (int i = 0; i < 4; i++) { /* a zero dimension in each position */
        uint32_t z[4] = {2, 3, 4, 5};
        z[i] = 0;
        EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(z, 4, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL),
                          -EINVAL);
    }
    const uint32_t ovf_elems[2] = {65536, 65536};        /* 2^32 elements */
    const uint32_t ovf_bytes[1] = {1u << 30};             /* 4 GiB of float32 */
    const uint32_t ovf_4d[4] = {0xFFFFFFFFu, 2, 2, 2};
    const uint32_t zero_wins[3] = {65536, 65536, 0};
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(ovf_elems, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL),
                      -EOVERFLOW);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(ovf_bytes, 1, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_EPHEMERAL),
                      -EOVERFLOW);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(ovf_4d, 4, SYN_NPU_DTYPE_INT4, SYN_MEM_PERSISTENT),
                      -EOVERFLOW);
    EXPECT_ALLOC_FAIL(syn_mem_tensor_alloc(zero_wins, 3, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL),
                      -EINVAL);
    /* Does not fit: more than is left, and more than the whole tensor space. */
    EXPECT_ALLOC_FAIL(alloc1(TENSOR_CAP_8K - 176 - 32 + 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL),
                      -ENOMEM);
    EXPECT_ALLOC_FAIL(alloc1(100000, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -ENOMEM);
    /* Scratch: zero bytes, larger than the pool, larger than what is left. */
    EXPECT_ALLOC_FAIL(syn_mem_scratch_acquire(0), -EINVAL);
    EXPECT_ALLOC_FAIL(syn_mem_scratch_acquire(SCRATCH_1K + 1), -ENOMEM);
    EXPECT_ALLOC_FAIL(syn_mem_scratch_acquire((size_t)-1), -ENOMEM);
    assert_non_null(syn_mem_scratch_acquire(SCRATCH_1K - 16));
    EXPECT_ALLOC_FAIL(syn_mem_scratch_acquire(17), -ENOMEM);
    /* Persistent while ephemeral is live; SHARED without a region. */
    EXPECT_ALLOC_FAIL(alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT), -EBUSY);
    EXPECT_ALLOC_FAIL(alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED), -ENODEV);
    /* A successful call leaves the last error as it was. */
    assert_non_null(alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_int_equal(get_stats().failed_count, 28);
}

/* ---- planned allocation (syn_mem_plan_load / _begin / syn_mem_tensor_alloc_planned) ------- */

#define ARENA_64K 65536u
#define SCRATCH_16K 16384u
#define KWS_TABLE (KWS_REF_MODEL_SLOT_COUNT * SYN_MEM_DESC_SPAN)

/* An emitted header plugs straight in: every slot's descriptor complete, data at its planned
 * offset, live-together slots disjoint, the same pointers every inference. */
static void test_planned_emitted_plan(void **state)
{
    (void)state;
    assert_int_equal(syn_mem_init_ex(arena, ARENA_64K, SCRATCH_16K), 0);
    syn_mem_plan_t plan;
    assert_int_equal(syn_mem_plan_load(KWS_REF_MODEL_PLAN_ARGS, &plan), 0);
    syn_mem_stats_t s = get_stats();
    assert_int_equal(s.persistent_used, KWS_TABLE);
    assert_int_equal(s.alloc_count, 1);
    assert_int_equal(s.ephemeral_used, 0);
    for (int inference = 0; inference < 3; inference++) {
        assert_int_equal(syn_mem_plan_begin(&plan), 0);
        for (uint32_t k = 0; k < KWS_REF_MODEL_SLOT_COUNT; k++) {
            syn_tensor_t *t = syn_mem_tensor_alloc_planned(&plan, k);
            assert_non_null(t);
            assert_ptr_equal(t, arena + k * SYN_MEM_DESC_SPAN);
            assert_int_equal(off(t->data), KWS_TABLE + kws_ref_model_slots[k].offset);
            assert_int_equal((uintptr_t)t->data % SYN_MEM_ALIGN, 0);
            assert_int_equal(t->size, kws_ref_model_slots[k].size);
            const syn_plan_type_t *ty = &kws_ref_model_slot_types[k];
            assert_int_equal(t->ndim, ty->ndim);
            assert_int_equal(t->dtype, ty->dtype);
            assert_int_equal(t->lifetime, SYN_MEM_EPHEMERAL);
            for (uint32_t d = 0; d < 4; d++)
                assert_int_equal(t->shape[d], d < ty->ndim ? ty->shape[d] : 1u);
            assert_ptr_equal(syn_mem_tensor_alloc_planned(&plan, k), t); /* same again */
            syn_mem_tensor_free(t);                                      /* a no-op */
        }
        /* Operator by operator, the live tensors hold their data. */
        for (uint16_t op = 0; op <= 12; op++) {
            for (uint32_t k = 0; k < KWS_REF_MODEL_SLOT_COUNT; k++)
                if (kws_ref_model_slots[k].first_op == op)
                    fill_pattern(syn_mem_tensor_alloc_planned(&plan, k), k);
            for (uint32_t k = 0; k < KWS_REF_MODEL_SLOT_COUNT; k++)
                if (kws_ref_model_slots[k].first_op <= op && op <= kws_ref_model_slots[k].last_op)
                    assert_true(pattern_ok(syn_mem_tensor_alloc_planned(&plan, k), k));
        }
        s = get_stats();
        assert_int_equal(s.ephemeral_used, KWS_REF_MODEL_REGION_SIZE);
        assert_int_equal(s.alloc_count, 1 + (inference + 1) * KWS_REF_MODEL_SLOT_COUNT);
        assert_int_equal(s.failed_count, 0);
        syn_mem_reset_ephemeral();
    }
    assert_int_equal(kws_ref_model_slot_tensor[0], 22);
}

/* The region moves when other tensors come first: the data pointers follow. */
static void test_planned_region_moves(void **state)
{
    (void)state;
    static const syn_plan_slot_t slots[2] = {{0u, 40u, 0u, 1u}, {48u, 16u, 1u, 1u}};
    static const syn_plan_type_t types[2] = {{{10u, 1u, 1u, 1u}, 1u, SYN_NPU_DTYPE_FLOAT32},
                                             {{2u, 2u, 2u, 1u}, 4u, SYN_NPU_DTYPE_INT16}};
    syn_mem_plan_t plan;
    assert_int_equal(syn_mem_plan_load(slots, types, 2, 64, &plan), 0);
    syn_mem_plan_t copy = plan; /* copies are fine */
    assert_int_equal(syn_mem_plan_begin(&plan), 0);
    assert_int_equal(off(syn_mem_tensor_alloc_planned(&plan, 1)->data), 64 + 48);
    syn_mem_reset_ephemeral();
    assert_non_null(alloc1(16, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL)); /* 48 bytes first */
    assert_int_equal(syn_mem_plan_begin(&copy), 0);
    syn_tensor_t *t0 = syn_mem_tensor_alloc_planned(&copy, 0);
    syn_tensor_t *t1 = syn_mem_tensor_alloc_planned(&copy, 1);
    assert_int_equal(off(t0->data), 64 + 48);
    assert_int_equal(off(t1->data), 64 + 48 + 48);
    assert_int_equal(t0->size, 40);
    assert_int_equal(t1->size, 16);
    assert_int_equal(t1->dtype, SYN_NPU_DTYPE_INT16);
    assert_null(syn_mem_tensor_alloc_planned(&plan, 0)); /* begun before the reset */
    assert_int_equal(syn_mem_last_error(), -EINVAL);
}

/* A failed plan call: the errno, nothing changed but failed_count (and, for `counted` 0, not
 * even that), earlier tensors intact. */
#define EXPECT_PLAN_FAIL(call, err)                                                               \
    do {                                                                                          \
        syn_mem_stats_t before_ = get_stats();                                                    \
        assert_int_equal((call), (err));                                                          \
        assert_int_equal(syn_mem_last_error(), (err));                                            \
        syn_mem_stats_t after_ = get_stats();                                                     \
        before_.failed_count++;                                                                   \
        assert_stats_equal(&before_, &after_);                                                    \
        assert_true(pattern_ok(keep, 31));                                                        \
    } while (0)
#define EXPECT_PLANNED_NULL(call, err) EXPECT_PLAN_FAIL((call) == NULL ? (err) : 0, err)

static void test_planned_bad_inputs(void **state)
{
    (void)state;
    static const syn_plan_slot_t slots[2] = {{0u, 64u, 0u, 1u}, {64u, 32u, 1u, 2u}};
    static const syn_plan_type_t types[2] = {{{1u, 64u, 1u, 1u}, 2u, SYN_NPU_DTYPE_INT8},
                                             {{8u, 1u, 1u, 1u}, 1u, SYN_NPU_DTYPE_INT32}};
    syn_tensor_t *keep = alloc1(64, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    fill_pattern(keep, 31);
    syn_mem_plan_t plan, untouched;
    memset(&plan, 0xAB, sizeof plan);
    memset(&untouched, 0xAB, sizeof untouched);

    /* NULL pointers. */
    EXPECT_PLAN_FAIL(syn_mem_plan_load(slots, types, 2, 96, NULL), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_load(NULL, types, 2, 96, &plan), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_load(slots, NULL, 2, 96, &plan), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_begin(NULL), -EINVAL);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(NULL, 0), -EINVAL);
    /* Invalid plans: overlapping live slots, a misaligned offset, a slot beyond the region, an
     * unaligned region, a zero-size slot. */
    const syn_plan_slot_t overlap[2] = {{0u, 64u, 0u, 1u}, {48u, 32u, 1u, 2u}};
    const syn_plan_slot_t misaligned[2] = {{0u, 64u, 0u, 1u}, {72u, 16u, 1u, 2u}};
    const syn_plan_slot_t empty_slot[2] = {{0u, 64u, 0u, 1u}, {64u, 0u, 1u, 2u}};
    EXPECT_PLAN_FAIL(syn_mem_plan_load(overlap, types, 2, 96, &plan), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_load(misaligned, types, 2, 96, &plan), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_load(slots, types, 2, 80, &plan), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_load(slots, types, 2, 104, &plan), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_load(empty_slot, types, 2, 96, &plan), -EINVAL);
    /* Invalid slot types: larger than the slot, unknown dtype, ndim 0 and 5, a zero dim. */
    const syn_plan_type_t bad_types[5][2] = {
        {types[0], {{9u, 1u, 1u, 1u}, 1u, SYN_NPU_DTYPE_INT32}},
        {types[0], {{8u, 1u, 1u, 1u}, 1u, 8u}},
        {types[0], {{8u, 1u, 1u, 1u}, 0u, SYN_NPU_DTYPE_INT32}},
        {types[0], {{8u, 1u, 1u, 1u}, 5u, SYN_NPU_DTYPE_INT32}},
        {types[0], {{8u, 0u, 1u, 1u}, 2u, SYN_NPU_DTYPE_INT32}},
    };
    for (int i = 0; i < 5; i++)
        EXPECT_PLAN_FAIL(syn_mem_plan_load(slots, bad_types[i], 2, 96, &plan), -EINVAL);
    /* A plan larger than the arena (the 16000-byte kws plan in 7 KB of tensor space), and one
     * whose region needs more than the tensor space left. */
    EXPECT_PLAN_FAIL(syn_mem_plan_load(KWS_REF_MODEL_PLAN_ARGS, &plan), -ENOMEM);
    /* 7168 - 96 (keep) - 32 (table) = 7040 bytes left for the region. */
    const syn_plan_slot_t huge[1] = {{0u, 7040u, 0u, 0u}};
    const syn_plan_type_t huge_t[1] = {{{7040u, 1u, 1u, 1u}, 1u, SYN_NPU_DTYPE_INT8}};
    EXPECT_PLAN_FAIL(syn_mem_plan_load(huge, huge_t, 1, 7056, &plan), -ENOMEM);
    /* While ephemeral tensors are live. */
    assert_non_null(alloc1(16, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    EXPECT_PLAN_FAIL(syn_mem_plan_load(slots, types, 2, 96, &plan), -EBUSY);
    syn_mem_reset_ephemeral();
    assert_memory_equal(&plan, &untouched, sizeof plan); /* no failed load wrote it */

    assert_int_equal(syn_mem_plan_load(slots, types, 2, 96, &plan), 0);
    /* Not begun. */
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&plan, 0), -EINVAL);
    assert_int_equal(syn_mem_plan_begin(&plan), 0);
    assert_non_null(syn_mem_tensor_alloc_planned(&plan, 1));
    /* Wrong slot. */
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&plan, 2), -EINVAL);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&plan, UINT32_MAX), -EINVAL);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&plan, 1u << 27), -EINVAL);
    /* Region reclaimed by a reset. */
    syn_mem_reset_ephemeral();
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&plan, 0), -EINVAL);
    /* Not enough ephemeral space left for the region: 80 of its 96 bytes (persistent: keep
     * 96 + table 64). */
    assert_non_null(alloc1(TENSOR_CAP_8K - 160 - 32 - 80, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    EXPECT_PLAN_FAIL(syn_mem_plan_begin(&plan), -ENOMEM);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&plan, 0), -EINVAL);
    syn_mem_reset_ephemeral();
    assert_int_equal(syn_mem_plan_begin(&plan), 0);
    syn_mem_plan_t stale = plan;

    /* From before a re-initialisation (same buffer), and from another arena (another
     * buffer): refused, begun or not. */
    assert_int_equal(syn_mem_init_ex(arena, ARENA_8K, SCRATCH_1K), 0);
    keep = alloc1(64, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    fill_pattern(keep, 31);
    syn_mem_plan_t fresh;
    assert_int_equal(syn_mem_plan_load(slots, types, 2, 96, &fresh), 0);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&stale, 0), -EINVAL);
    EXPECT_PLAN_FAIL(syn_mem_plan_begin(&stale), -EINVAL);
    assert_int_equal(syn_mem_plan_begin(&fresh), 0);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&stale, 0), -EINVAL);
    syn_mem_plan_t other = fresh;
    assert_int_equal(syn_mem_init_ex(arena + 16384, ARENA_8K, SCRATCH_1K), 0);
    keep = alloc1(64, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    fill_pattern(keep, 31);
    assert_int_equal(syn_mem_plan_load(slots, types, 2, 96, &fresh), 0);
    EXPECT_PLAN_FAIL(syn_mem_plan_begin(&other), -EINVAL);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&other, 0), -EINVAL);
    assert_int_equal(syn_mem_plan_begin(&fresh), 0);
    assert_int_equal(off(syn_mem_tensor_alloc_planned(&fresh, 0)), 16384 + 96);

    /* An empty plan loads (NULL tables allowed) and hands out nothing. */
    syn_mem_reset_ephemeral();
    syn_mem_plan_t none;
    assert_int_equal(syn_mem_plan_load(NULL, NULL, 0, 0, &none), 0);
    assert_int_equal(syn_mem_plan_begin(&none), 0);
    EXPECT_PLANNED_NULL(syn_mem_tensor_alloc_planned(&none, 0), -EINVAL);
}

/* syn_mem_init / syn_mem_init_ex failures change nothing at all. */
#define EXPECT_INIT_FAIL(call)                                                                    \
    do {                                                                                          \
        syn_mem_stats_t before_ = get_stats();                                                    \
        assert_int_equal((call), -EINVAL);                                                        \
        assert_int_equal(syn_mem_last_error(), -EINVAL);                                          \
        syn_mem_stats_t after_ = get_stats();                                                     \
        assert_stats_equal(&before_, &after_);                                                    \
        assert_true(pattern_ok(keep, 21));                                                        \
    } while (0)

static void test_init_bad_inputs(void **state)
{
    (void)state;
    syn_tensor_t *keep = alloc1(32, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    fill_pattern(keep, 21);
    uint8_t *other = arena + 16384;
    EXPECT_INIT_FAIL(syn_mem_init(NULL, 131072));
    EXPECT_INIT_FAIL(syn_mem_init_ex(NULL, 8192, 1024));
    EXPECT_INIT_FAIL(syn_mem_init(other, 4095));
    EXPECT_INIT_FAIL(syn_mem_init(other, 524289));
    EXPECT_INIT_FAIL(syn_mem_init(other, 0));
    EXPECT_INIT_FAIL(syn_mem_init(other, 16384)); /* not larger than the default 16 KB pool */
    EXPECT_INIT_FAIL(syn_mem_init_ex(other, 8192, 1023));
    EXPECT_INIT_FAIL(syn_mem_init_ex(other, 131072, 65537));
    EXPECT_INIT_FAIL(syn_mem_init_ex(other, 8192, 8192));
    EXPECT_INIT_FAIL(syn_mem_init_ex(other, 4095, 1024));
    EXPECT_INIT_FAIL(syn_mem_init_ex(other + 1, 4096, 4080)); /* no tensor space after align */
    assert_int_equal(get_stats().persistent_used, 64);
    assert_int_equal(off(alloc1(1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT)), 64);
}

static void test_unaligned_base(void **state)
{
    (void)state;
    assert_int_equal(syn_mem_init_ex(arena + 3, 8189, 1024), 0);
    syn_mem_stats_t s = get_stats();
    assert_int_equal(s.arena_size, 8189);
    assert_int_equal(s.usable_size, 8176); /* 13 bytes lost to aligning the base */
    assert_int_equal(s.tensor_capacity, 8176 - 1024);
    syn_tensor_t *t = alloc1(5, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    assert_int_equal(off(t), 16);
    assert_int_equal(off(t->data), 48);
    assert_int_equal(off(syn_mem_scratch_acquire(1)), 16 + 8176 - 1024);
    assert_int_equal(syn_mem_init_ex(arena + 16, 8192, 1024), 0); /* aligned: nothing lost */
    assert_int_equal(get_stats().usable_size, 8192);
}

static void test_reinit_reclaims_everything(void **state)
{
    (void)state;
    assert_int_equal(syn_mem_shared_init(io_region, 1024), 0);
    assert_non_null(alloc1(100, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_non_null(alloc1(100, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_non_null(alloc1(100, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
    syn_mem_reset_ephemeral();
    assert_null(syn_mem_scratch_acquire(0));
    assert_int_equal(syn_mem_last_error(), -EINVAL);

    assert_int_equal(syn_mem_init_ex(arena, ARENA_8K, SCRATCH_1K), 0);
    syn_mem_stats_t s = get_stats();
    assert_int_equal(s.persistent_used + s.ephemeral_used + s.scratch_used, 0);
    assert_int_equal(s.shared_used + s.shared_size, 0); /* shared registration dropped */
    assert_int_equal(s.arena_peak + s.ephemeral_peak + s.scratch_peak, 0);
    assert_int_equal(s.alloc_count + s.reset_count + s.failed_count, 0);
    assert_int_equal(syn_mem_last_error(), 0);
    assert_int_equal(off(alloc1(1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT)), 0);
    assert_null(alloc1(1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_int_equal(syn_mem_last_error(), -ENODEV);
    assert_int_equal(syn_mem_shared_init(io_region, 1024), 0); /* register again */
    assert_non_null(alloc1(1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    /* Re-init with the spec's syn_mem_init uses the configured 16 KB pool. */
    assert_int_equal(syn_mem_init(arena, 65536), 0);
    assert_int_equal(get_stats().scratch_size, SYN_MEM_SCRATCH_POOL_SIZE);
    assert_int_equal(get_stats().tensor_capacity, 65536 - SYN_MEM_SCRATCH_POOL_SIZE);
}

static const char expected_table[] =
    "syn mem stats\n"
    "region            used   capacity       peak\n"
    "persistent         144       7168        144\n"
    "ephemeral          240       7024        240\n"
    "tensor             384       7168        384\n"
    "scratch            304       1024        304\n"
    "shared              48       1008         48\n"
    "arena 8192 B, usable 8192 B (0 B lost to alignment)\n"
    "allocs 4  resets 0  failed 1\n";

static void make_print_state(void)
{
    const uint32_t s77[2] = {7, 7};
    assert_int_equal(syn_mem_shared_init(io_region, 1008), 0);
    assert_non_null(alloc1(100, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_non_null(syn_mem_tensor_alloc(s77, 2, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_EPHEMERAL));
    assert_non_null(syn_mem_scratch_acquire(300));
    assert_non_null(alloc1(4, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED));
    assert_null(alloc1(0, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL));
}

static void test_print_stats_through_callback(void **state)
{
    (void)state;
    make_print_state();
    struct capture c = {.len = 0, .calls = 0};
    syn_mem_set_print_fn(capture_fn, &c);
    syn_mem_print_stats();
    assert_true(c.calls >= 1);
    assert_int_equal(c.len, strlen(expected_table));
    assert_string_equal(c.buf, expected_table);
    /* The callback survives re-init; NULL restores the default. */
    assert_int_equal(syn_mem_init_ex(arena, ARENA_8K, SCRATCH_1K), 0);
    c.len = 0;
    syn_mem_print_stats();
    assert_non_null(strstr(c.buf, "allocs 0  resets 0  failed 0\n"));
    syn_mem_set_print_fn(NULL, NULL);
}

static void test_print_stats_defaults_to_stdout(void **state)
{
    (void)state;
    make_print_state();
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
    syn_mem_print_stats();
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    char buf[2048] = {0};
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    fclose(tmp);
    assert_int_equal(n, strlen(expected_table));
    assert_string_equal(buf, expected_table);
}

static void test_get_stats_null(void **state)
{
    (void)state;
    assert_int_equal(syn_mem_get_stats(NULL), -EINVAL);
    assert_int_equal(syn_mem_last_error(), -EINVAL);
    assert_int_equal(get_stats().failed_count, 0); /* not an allocation failure */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call_before_init_fails_cleanly),
        cmocka_unit_test(test_enums_macros_and_layout),
        cmocka_unit_test(test_default_init_gives_112k_plus_16k),
        cmocka_unit_test_setup(test_layout_offsets_and_alignment, fixture_8k),
        cmocka_unit_test_setup(test_sizes_per_dtype, fixture_8k),
        cmocka_unit_test_setup(test_region_boundaries, fixture_8k),
        cmocka_unit_test_setup(test_reset_semantics, fixture_8k),
        cmocka_unit_test_setup(test_free_and_release_are_noops, fixture_8k),
        cmocka_unit_test_setup(test_persistent_while_ephemeral_live_is_busy, fixture_8k),
        cmocka_unit_test_setup(test_shared_region, fixture_8k),
        cmocka_unit_test_setup(test_bad_inputs, fixture_8k),
        cmocka_unit_test(test_planned_emitted_plan),
        cmocka_unit_test_setup(test_planned_region_moves, fixture_8k),
        cmocka_unit_test_setup(test_planned_bad_inputs, fixture_8k),
        cmocka_unit_test_setup(test_init_bad_inputs, fixture_8k),
        cmocka_unit_test_setup(test_unaligned_base, fixture_8k),
        cmocka_unit_test_setup(test_reinit_reclaims_everything, fixture_8k),
        cmocka_unit_test_setup(test_print_stats_through_callback, fixture_8k),
        cmocka_unit_test_setup(test_print_stats_defaults_to_stdout, fixture_8k),
        cmocka_unit_test_setup(test_get_stats_null, fixture_8k),
    };
    return cmocka_run_group_tests_name("syn_mem", tests, NULL, NULL);
}
