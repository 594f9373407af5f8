/*
 * On-target tests of the C API (include/synaptic/syn_mem.h) on the Cortex-M3, compiled with
 * arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -std=c11 -Wall -Wextra -Werror and linked with
 * synaptic-mem-ffi built for thumbv7m-none-eabi (no std, cortex-m's single-core critical
 * section). Called from src/bin/tests.rs, which counts the checks and prints failures.
 *
 * Error values are the target C library's (newlib) <errno.h> constants.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <synaptic/syn_mem.h>
/* An emitted plan (synmem emit kws_ref_model.tflite --lang c, the golden file of
 * crates/synaptic-plan/tests/golden), included after syn_mem.h (the host test includes it
 * before: the shared types are guarded). */
#include "kws_ref_model_plan.h"

/* Provided by tests.rs: record one check / start a group. */
void synfw_check(int ok, const char *what, int line);
void synfw_group(const char *name);

void synfw_capi_tests(uint8_t *arena, size_t arena_len, uint8_t *shared, size_t shared_len);

#define CHECK(expr) synfw_check((expr) ? 1 : 0, #expr, __LINE__)

#define ARENA 32768u
#define SCRATCH 4096u
#define TENSOR_CAP (ARENA - SCRATCH)

static ptrdiff_t off(const uint8_t *base, const void *p) {
    return (const uint8_t *)p - base;
}

static int aligned16(const void *p) {
    return ((uintptr_t)p & 15u) == 0;
}

/* strstr()/strncmp() without a C library (only memcmp/memset/memcpy come with the image). */
static int contains(const char *hay, const char *needle) {
    size_t n = 0, h = 0;
    while (needle[n] != '\0') {
        n++;
    }
    while (hay[h] != '\0') {
        h++;
    }
    for (size_t i = 0; i + n <= h; i++) {
        if (memcmp(hay + i, needle, n) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Stats equal except failed_count. */
static int same_but_failed(const syn_mem_stats_t *a, const syn_mem_stats_t *b) {
    syn_mem_stats_t x = *a, y = *b;
    x.failed_count = 0;
    y.failed_count = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

static syn_mem_stats_t stats(void) {
    syn_mem_stats_t s;
    memset(&s, 0xEE, sizeof s);
    (void)syn_mem_get_stats(&s);
    return s;
}

/* syn_mem_print_stats() sink: collects the text. */
static struct {
    char text[768];
    size_t len;
    int calls;
} sink;

static void collect(const char *buf, size_t len, void *ctx) {
    CHECK(ctx == (void *)&sink);
    for (size_t i = 0; i < len && sink.len + 1 < sizeof sink.text; i++) {
        sink.text[sink.len++] = buf[i];
    }
    sink.text[sink.len] = '\0';
    sink.calls++;
}

static void before_init(void) {
    synfw_group("C API: every call before syn_mem_init fails cleanly");
    const uint32_t shape[2] = {4, 4};
    static uint8_t region[64];
    syn_mem_stats_t s;
    CHECK(syn_mem_last_error() == 0);
    CHECK(syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) == NULL);
    CHECK(syn_mem_last_error() == -ENODEV);
    CHECK(syn_mem_scratch_acquire(16) == NULL);
    CHECK(syn_mem_last_error() == -ENODEV);
    CHECK(syn_mem_get_stats(&s) == -ENODEV);
    syn_mem_reset_ephemeral();
    CHECK(syn_mem_last_error() == -ENODEV);
    CHECK(syn_mem_shared_init(region, sizeof region) == -ENODEV);
}

static void init_errors(uint8_t *arena) {
    synfw_group("C API: syn_mem_init / syn_mem_init_ex bad arguments -> -EINVAL");
    CHECK(syn_mem_init(NULL, ARENA) == -EINVAL);
    CHECK(syn_mem_init(arena, 4095) == -EINVAL);
    CHECK(syn_mem_init(arena, 524289) == -EINVAL); /* rejected before any access */
    CHECK(syn_mem_init(arena, SYN_MEM_SCRATCH_POOL_SIZE) == -EINVAL); /* not > scratch */
    CHECK(syn_mem_init_ex(arena, ARENA, 1023) == -EINVAL);
    CHECK(syn_mem_init_ex(arena, ARENA, 65537) == -EINVAL);
    CHECK(syn_mem_init_ex(arena, 4096, 4080) == -EINVAL); /* no tensor space */
    CHECK(syn_mem_init_ex(NULL, ARENA, SCRATCH) == -EINVAL);
    syn_mem_stats_t s;
    CHECK(syn_mem_get_stats(&s) == -ENODEV); /* failed inits changed nothing */

    synfw_group("C API: syn_mem_init uses the Kconfig scratch pool");
    CHECK(SYN_MEM_SCRATCH_POOL_SIZE == 16384 && SYN_MEM_TENSOR_ARENA_SIZE == 131072);
    CHECK(syn_mem_init(arena, 20480) == 0);
    CHECK(syn_mem_last_error() == 0);
    s = stats();
    CHECK(s.arena_size == 20480 && s.usable_size == 20480);
    CHECK(s.scratch_size == SYN_MEM_SCRATCH_POOL_SIZE);
    CHECK(s.tensor_capacity == 20480 - SYN_MEM_SCRATCH_POOL_SIZE);

    synfw_group("C API: unaligned base is aligned up");
    CHECK(syn_mem_init_ex(arena + 3, 8192, 1024) == 0);
    s = stats();
    CHECK(s.arena_size == 8192 && s.usable_size == 8176);
    const uint32_t one[1] = {1};
    syn_tensor_t *t = syn_mem_tensor_alloc(one, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    CHECK(t != NULL && off(arena, t) == 16 && aligned16(t->data));
}

static void layout(uint8_t *arena) {
    synfw_group("C API: layout, descriptor fields, alignment");
    CHECK(sizeof(syn_tensor_t) == 28 && SYN_MEM_DESC_SPAN == 32);
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    syn_mem_stats_t s = stats();
    CHECK(s.tensor_capacity == TENSOR_CAP && s.scratch_size == SCRATCH);
    const uint32_t w_shape[2] = {4, 4}, b_shape[1] = {3};
    syn_tensor_t *w = syn_mem_tensor_alloc(w_shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    syn_tensor_t *b = syn_mem_tensor_alloc(b_shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    CHECK(w != NULL && b != NULL);
    if (w == NULL || b == NULL) {
        return;
    }
    CHECK(off(arena, w) == 0 && off(arena, w->data) == 32);
    CHECK(off(arena, b) == 48 && off(arena, b->data) == 80);
    CHECK(w->shape[0] == 4 && w->shape[1] == 4 && w->shape[2] == 1 && w->shape[3] == 1);
    CHECK(w->ndim == 2 && w->dtype == SYN_NPU_DTYPE_INT8 && w->lifetime == SYN_MEM_PERSISTENT);
    CHECK(w->reserved == 0 && w->size == 16 && b->size == 3);
    const uint32_t a_shape[2] = {2, 3}, c_shape[4] = {1, 1, 1, 1}, x_shape[3] = {7, 1, 1};
    syn_tensor_t *a = syn_mem_tensor_alloc(a_shape, 2, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_EPHEMERAL);
    syn_tensor_t *c = syn_mem_tensor_alloc(c_shape, 4, SYN_NPU_DTYPE_INT4, SYN_MEM_EPHEMERAL);
    syn_tensor_t *x = syn_mem_tensor_alloc(x_shape, 3, SYN_NPU_DTYPE_INT4, SYN_MEM_EPHEMERAL);
    CHECK(a != NULL && c != NULL && x != NULL);
    if (a == NULL || c == NULL || x == NULL) {
        return;
    }
    CHECK(off(arena, a) == 96 && off(arena, a->data) == 128 && a->size == 24);
    CHECK(off(arena, c) == 160 && c->size == 1 && c->lifetime == SYN_MEM_EPHEMERAL);
    CHECK(off(arena, x) == 208 && x->size == 4 && x->ndim == 3);
    void *s1 = syn_mem_scratch_acquire(100);
    void *s2 = syn_mem_scratch_acquire(1);
    CHECK(off(arena, s1) == (ptrdiff_t)TENSOR_CAP && off(arena, s2) == (ptrdiff_t)TENSOR_CAP + 112);
    CHECK(aligned16(w->data) && aligned16(b->data) && aligned16(a->data) && aligned16(c->data));
    CHECK(aligned16(s1) && aligned16(s2));
    s = stats();
    CHECK(s.persistent_used == 96 && s.ephemeral_used == 64 + 48 + 48 && s.scratch_used == 128);

    synfw_group("C API: dtype sizes");
    static const struct {
        syn_npu_dtype_t dt;
        uint32_t size;
    } sizes[] = {
        {SYN_NPU_DTYPE_INT8, 6},     {SYN_NPU_DTYPE_UINT8, 6},   {SYN_NPU_DTYPE_INT16, 12},
        {SYN_NPU_DTYPE_INT32, 24},   {SYN_NPU_DTYPE_FLOAT16, 12}, {SYN_NPU_DTYPE_FLOAT32, 24},
        {SYN_NPU_DTYPE_BFLOAT16, 12}, {SYN_NPU_DTYPE_INT4, 3},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        syn_tensor_t *t = syn_mem_tensor_alloc(a_shape, 2, sizes[i].dt, SYN_MEM_EPHEMERAL);
        CHECK(t != NULL && t->size == sizes[i].size && t->dtype == (uint8_t)sizes[i].dt);
    }
}

static void reset_and_persistence(uint8_t *arena) {
    synfw_group("C API: reset reclaims ephemeral + scratch, persistent survives");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    const uint32_t w_shape[1] = {64}, a_shape[2] = {1, 256};
    syn_tensor_t *w = syn_mem_tensor_alloc(w_shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    CHECK(w != NULL);
    if (w == NULL) {
        return;
    }
    for (int i = 0; i < 64; i++) {
        ((int8_t *)w->data)[i] = (int8_t)(i - 32);
    }
    int reused = 1;
    for (int round = 0; round < 50; round++) {
        syn_tensor_t *a =
            syn_mem_tensor_alloc(a_shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
        uint8_t *sc = syn_mem_scratch_acquire(512);
        reused &= a != NULL && off(arena, a) == 96 && off(arena, sc) == (ptrdiff_t)TENSOR_CAP;
        if (a != NULL && sc != NULL) {
            memset(a->data, 0xA5, a->size);
            memset(sc, round, 512);
        }
        syn_mem_reset_ephemeral();
    }
    CHECK(reused);
    syn_mem_stats_t s = stats();
    CHECK(s.ephemeral_used == 0 && s.scratch_used == 0 && s.persistent_used == 96);
    CHECK(s.reset_count == 50 && s.alloc_count == 101);
    int intact = 1;
    for (int i = 0; i < 64; i++) {
        intact &= ((int8_t *)w->data)[i] == (int8_t)(i - 32);
    }
    CHECK(intact);
    CHECK(syn_mem_tensor_alloc(w_shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT) != NULL);
}

static void stats_values(uint8_t *arena) {
    synfw_group("C API: statistics after a known sequence");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    const uint32_t w[1] = {100}, a[1] = {10}, b[1] = {1}, c[1] = {4};
    CHECK(syn_mem_tensor_alloc(w, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT) != NULL); /* 144 */
    CHECK(syn_mem_tensor_alloc(a, 1, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_EPHEMERAL) != NULL); /* 80 */
    CHECK(syn_mem_tensor_alloc(b, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) != NULL); /* 48 */
    CHECK(syn_mem_scratch_acquire(300) != NULL); /* 304 */
    syn_mem_reset_ephemeral();
    CHECK(syn_mem_tensor_alloc(c, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) != NULL); /* 48 */
    CHECK(syn_mem_scratch_acquire(16) != NULL);
    CHECK(syn_mem_scratch_acquire(SCRATCH + 1) == NULL);
    syn_mem_stats_t s = stats();
    CHECK(s.ephemeral_used == 48 && s.scratch_used == 16);
    syn_mem_reset_ephemeral();
    s = stats();
    CHECK(s.arena_size == ARENA && s.usable_size == ARENA && s.tensor_capacity == TENSOR_CAP);
    CHECK(s.persistent_used == 144 && s.ephemeral_used == 0 && s.ephemeral_peak == 128);
    CHECK(s.arena_peak == 144 + 128);
    CHECK(s.scratch_used == 0 && s.scratch_size == SCRATCH && s.scratch_peak == 304);
    CHECK(s.shared_used == 0 && s.shared_size == 0);
    CHECK(s.alloc_count == 6 && s.reset_count == 2 && s.failed_count == 1);
    CHECK(syn_mem_get_stats(NULL) == -EINVAL);

    synfw_group("C API: syn_mem_print_stats through a callback");
    memset(&sink, 0, sizeof sink);
    syn_mem_set_print_fn(collect, &sink);
    syn_mem_print_stats();
    CHECK(sink.calls >= 1);
    CHECK(memcmp(sink.text, "syn mem stats\n", 14) == 0);
    CHECK(contains(sink.text, "persistent         144      28672        144\n"));
    CHECK(contains(sink.text, "scratch              0       4096        304\n"));
    CHECK(contains(sink.text, "allocs 6  resets 2  failed 1\n"));
    syn_mem_set_print_fn(NULL, NULL);
    sink.calls = 0;
    syn_mem_print_stats(); /* bare metal default: nowhere */
    CHECK(sink.calls == 0);
}

/* One bad call: NULL, the expected errno, stats unchanged but failed_count + 1. */
static void bad(syn_tensor_t *r, int err, const syn_mem_stats_t *before, int line) {
    syn_mem_stats_t after = stats();
    synfw_check(r == NULL, "bad allocation returns NULL", line);
    synfw_check(syn_mem_last_error() == err, "exact errno", line);
    synfw_check(after.failed_count == before->failed_count + 1, "failed_count + 1", line);
    synfw_check(same_but_failed(&after, before), "nothing else changed", line);
}

static void bad_inputs(uint8_t *arena) {
    synfw_group("C API: every bad input -> NULL, exact errno, nothing changed");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    const uint32_t w_shape[1] = {32};
    syn_tensor_t *w = syn_mem_tensor_alloc(w_shape, 1, SYN_NPU_DTYPE_UINT8, SYN_MEM_PERSISTENT);
    syn_tensor_t *e = syn_mem_tensor_alloc(w_shape, 1, SYN_NPU_DTYPE_UINT8, SYN_MEM_EPHEMERAL);
    uint8_t *sc = syn_mem_scratch_acquire(64);
    CHECK(w != NULL && e != NULL && sc != NULL);
    if (w == NULL || e == NULL || sc == NULL) {
        return;
    }
    memset(w->data, 0x5A, 32);
    memset(e->data, 0xC3, 32);
    memset(sc, 0x3C, 64);
    const uint32_t ok[2] = {2, 2}, five[5] = {1, 1, 1, 1, 1}, zero[2] = {4, 0};
    const uint32_t ovf[2] = {65536, 65536}, ovf_bytes[1] = {0x40000000u};
    const uint32_t huge[1] = {TENSOR_CAP};
    syn_mem_stats_t s = stats();
    bad(syn_mem_tensor_alloc(NULL, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ok, 0, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL, &s, __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(five, 5, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(zero, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EINVAL, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ok, 2, (syn_npu_dtype_t)99, SYN_MEM_EPHEMERAL), -EINVAL, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ok, 2, SYN_NPU_DTYPE_INT8, (syn_mem_lifetime_t)7), -EINVAL, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ovf, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -EOVERFLOW, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ovf_bytes, 1, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_EPHEMERAL), -EOVERFLOW,
        &s, __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(huge, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL), -ENOMEM, &s,
        __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ok, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT), -EBUSY, &s, __LINE__);
    s = stats();
    bad(syn_mem_tensor_alloc(ok, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED), -ENODEV, &s, __LINE__);
    s = stats();
    bad(syn_mem_scratch_acquire(0), -EINVAL, &s, __LINE__);
    s = stats();
    bad(syn_mem_scratch_acquire(SCRATCH + 1), -ENOMEM, &s, __LINE__);
    s = stats();
    bad(syn_mem_scratch_acquire(SCRATCH - 32), -ENOMEM, &s, __LINE__); /* > what is left */
    CHECK(stats().failed_count == 14);
    int intact = 1;
    for (int i = 0; i < 32; i++) {
        intact &= ((uint8_t *)w->data)[i] == 0x5A && ((uint8_t *)e->data)[i] == 0xC3;
    }
    for (int i = 0; i < 64; i++) {
        intact &= sc[i] == 0x3C;
    }
    CHECK(intact);
    syn_tensor_t *next = syn_mem_tensor_alloc(ok, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    CHECK(next != NULL && off(arena, next) == off(arena, e) + 64);
    CHECK(syn_mem_last_error() == -ENOMEM); /* success leaves the last error */

    synfw_group("C API: persistent while only scratch is live -> -EBUSY");
    syn_mem_reset_ephemeral();
    CHECK(syn_mem_scratch_acquire(16) != NULL);
    s = stats();
    bad(syn_mem_tensor_alloc(ok, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT), -EBUSY, &s, __LINE__);
    syn_mem_reset_ephemeral();
    CHECK(syn_mem_tensor_alloc(ok, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT) != NULL);
}

static void shared_region(uint8_t *arena, uint8_t *shared, size_t shared_len) {
    synfw_group("C API: SHARED region");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    CHECK(syn_mem_shared_init(NULL, shared_len) == -EINVAL);
    CHECK(syn_mem_shared_init(shared, 47) == -EINVAL);
    CHECK(syn_mem_shared_init(shared, shared_len) == 0);
    CHECK(syn_mem_shared_init(shared, shared_len) == -EALREADY);
    const uint32_t in_shape[2] = {1, 8}, out_shape[1] = {10}, e_shape[1] = {64};
    syn_tensor_t *in = syn_mem_tensor_alloc(in_shape, 2, SYN_NPU_DTYPE_FLOAT32, SYN_MEM_SHARED);
    syn_tensor_t *out = syn_mem_tensor_alloc(out_shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED);
    CHECK(in != NULL && out != NULL);
    if (in == NULL || out == NULL) {
        return;
    }
    CHECK(off(shared, in) == 0 && off(shared, in->data) == 32 && off(shared, out) == 64);
    CHECK(in->lifetime == SYN_MEM_SHARED && aligned16(out->data));
    memset(in->data, 0x11, in->size);
    for (int i = 0; i < 3; i++) {
        CHECK(syn_mem_tensor_alloc(e_shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) != NULL);
        CHECK(syn_mem_tensor_alloc(out_shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED) != NULL);
        syn_mem_reset_ephemeral();
    }
    syn_mem_stats_t s = stats();
    CHECK(s.shared_used == 64 + 48 + 3 * 48 && s.shared_size == shared_len);
    CHECK(s.persistent_used == 0);
    CHECK(((uint8_t *)in->data)[31] == 0x11);
    const uint32_t big[1] = {2048};
    CHECK(syn_mem_tensor_alloc(big, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED) == NULL);
    CHECK(syn_mem_last_error() == -ENOMEM);

    synfw_group("C API: re-init reclaims everything and drops the shared region");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    CHECK(syn_mem_last_error() == 0);
    s = stats();
    CHECK(s.persistent_used == 0 && s.shared_size == 0 && s.alloc_count == 0 &&
          s.reset_count == 0 && s.failed_count == 0 && s.arena_peak == 0);
    CHECK(syn_mem_tensor_alloc(big, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_SHARED) == NULL);
    CHECK(syn_mem_last_error() == -ENODEV);
    syn_tensor_t *w = syn_mem_tensor_alloc(big, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    CHECK(w != NULL && off(arena, w) == 0);
}

static void no_op_free(uint8_t *arena) {
    synfw_group("C API: free and scratch release are no-ops");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    const uint32_t shape[1] = {16};
    syn_tensor_t *t = syn_mem_tensor_alloc(shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    void *p = syn_mem_scratch_acquire(32);
    syn_mem_stats_t before = stats();
    syn_mem_tensor_free(t);
    syn_mem_scratch_release(p);
    syn_mem_tensor_free(NULL);
    syn_mem_scratch_release(NULL);
    syn_mem_stats_t after = stats();
    CHECK(memcmp(&before, &after, sizeof before) == 0);
    syn_tensor_t *t2 = syn_mem_tensor_alloc(shape, 1, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    CHECK(t2 != NULL && off(arena, t2) == 48);
}

/* One failed planned call: its errno, nothing changed but failed_count. */
#define PLAN_FAILS(call, err)                                                                  \
    do {                                                                                       \
        syn_mem_stats_t b_ = stats();                                                          \
        CHECK((call) == (err));                                                                \
        CHECK(syn_mem_last_error() == (err));                                                  \
        syn_mem_stats_t a_ = stats();                                                          \
        CHECK(same_but_failed(&b_, &a_) && a_.failed_count == b_.failed_count + 1);            \
    } while (0)
#define PLANNED_FAILS(call, err) PLAN_FAILS((call) == NULL ? (err) : 0, err)

static void planned(uint8_t *arena) {
    synfw_group("C API: planned allocation of an emitted plan");
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    syn_mem_plan_t plan;
    CHECK(syn_mem_plan_load(KWS_REF_MODEL_PLAN_ARGS, &plan) == 0);
    const uint32_t table = KWS_REF_MODEL_SLOT_COUNT * SYN_MEM_DESC_SPAN;
    PLANNED_FAILS(syn_mem_tensor_alloc_planned(&plan, 0), -EINVAL); /* not begun */
    for (int round = 0; round < 2; round++) {
        CHECK(syn_mem_plan_begin(&plan) == 0);
        for (uint32_t k = 0; k < KWS_REF_MODEL_SLOT_COUNT; k++) {
            syn_tensor_t *t = syn_mem_tensor_alloc_planned(&plan, k);
            CHECK(t != NULL && off(arena, t) == (ptrdiff_t)(k * SYN_MEM_DESC_SPAN));
            CHECK(off(arena, t->data) == (ptrdiff_t)(table + kws_ref_model_slots[k].offset));
            CHECK(aligned16(t->data) && t->size == kws_ref_model_slots[k].size);
            CHECK(t->ndim == kws_ref_model_slot_types[k].ndim);
            CHECK(t->dtype == kws_ref_model_slot_types[k].dtype);
            CHECK(t->lifetime == SYN_MEM_EPHEMERAL);
            CHECK(memcmp(t->shape, kws_ref_model_slot_types[k].shape, t->ndim * 4u) == 0);
        }
        syn_mem_stats_t s = stats();
        CHECK(s.ephemeral_used == KWS_REF_MODEL_REGION_SIZE && s.persistent_used == table);
        CHECK(s.alloc_count == 1 + (uint32_t)(round + 1) * KWS_REF_MODEL_SLOT_COUNT);
        PLANNED_FAILS(syn_mem_tensor_alloc_planned(&plan, KWS_REF_MODEL_SLOT_COUNT), -EINVAL);
        PLANNED_FAILS(syn_mem_tensor_alloc_planned(&plan, UINT32_MAX), -EINVAL);
        PLANNED_FAILS(syn_mem_tensor_alloc_planned(NULL, 0), -EINVAL);
        syn_mem_reset_ephemeral();
        PLANNED_FAILS(syn_mem_tensor_alloc_planned(&plan, 0), -EINVAL); /* reclaimed */
    }
    PLAN_FAILS(syn_mem_plan_begin(NULL), -EINVAL);
    syn_mem_plan_t other;
    PLAN_FAILS(syn_mem_plan_load(NULL, kws_ref_model_slot_types, 1, 8000, &other), -EINVAL);
    PLAN_FAILS(syn_mem_plan_load(KWS_REF_MODEL_PLAN_ARGS, NULL), -EINVAL);
    /* Two runs of 16000 bytes do not fit: 2 x 16000 > 28672 - 2 x 384. */
    CHECK(syn_mem_plan_load(KWS_REF_MODEL_PLAN_ARGS, &other) == 0);
    CHECK(syn_mem_plan_begin(&plan) == 0);
    PLAN_FAILS(syn_mem_plan_begin(&other), -ENOMEM);
    syn_mem_reset_ephemeral();
    /* Larger than the arena. */
    syn_plan_slot_t big = {0u, TENSOR_CAP, 0u, 0u};
    syn_plan_type_t big_t = {{TENSOR_CAP, 1u, 1u, 1u}, 1u, SYN_NPU_DTYPE_INT8};
    PLAN_FAILS(syn_mem_plan_load(&big, &big_t, 1, TENSOR_CAP, &other), -ENOMEM);
    /* From before a re-initialisation. */
    CHECK(syn_mem_plan_begin(&plan) == 0);
    CHECK(syn_mem_init_ex(arena, ARENA, SCRATCH) == 0);
    PLANNED_FAILS(syn_mem_tensor_alloc_planned(&plan, 0), -EINVAL);
    PLAN_FAILS(syn_mem_plan_begin(&plan), -EINVAL);
    CHECK(kws_ref_model_slot_tensor[0] == 22u);
}

void synfw_capi_tests(uint8_t *arena, size_t arena_len, uint8_t *shared, size_t shared_len) {
    CHECK(arena_len >= ARENA && shared_len >= 1024);
    before_init();
    init_errors(arena);
    layout(arena);
    reset_and_persistence(arena);
    stats_values(arena);
    bad_inputs(arena);
    shared_region(arena, shared, shared_len);
    no_op_free(arena);
    planned(arena);
}
