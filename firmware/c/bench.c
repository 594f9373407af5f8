/*
 * Timed loops for the instruction-count benchmark (src/bin/bench.rs), compiled with
 * arm-none-eabi-gcc -O2 -mcpu=cortex-m3 -mthumb. Each function reads SysTick's current value
 * (SYST_CVR, counting down) before and after the loop and returns the elapsed ticks; bench.rs
 * converts ticks to instructions (ticks * 5 / 1024 under -icount shift=10) and subtracts the
 * matching empty loop.
 *
 * The "floor" is a bare align/check/bump allocator with the same call structure as
 * syn_mem_tensor_alloc(): one non-inlined call per allocation.
 *
 * With SYNFW_CAPI defined, the same loops drive the C API (syn_mem.h) as a C caller would.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef SYNFW_CAPI
#include <synaptic/syn_mem.h>
#endif

#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define TICKS(a, b) (((a) - (b)) & 0x00FFFFFFu)

/* Keeps `v` live in a register without emitting an instruction. */
#define CONSUME(v) __asm__ volatile("" : : "r"(v) : "memory")

uint32_t synfw_c_timer_read(void);
uint32_t synfw_c_empty_batch(uint32_t n);
uint32_t synfw_floor_batch(uint32_t n, size_t size);
void synfw_floor_init(uint8_t *base, size_t cap);
void *synfw_floor_alloc(size_t size);

/* Two back-to-back timer reads: the read overhead included in every measurement. */
uint32_t synfw_c_timer_read(void) {
    uint32_t t0 = SYST_CVR;
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}

/* The loop of the batch functions below with nothing in it. */
uint32_t synfw_c_empty_batch(uint32_t n) {
    uint32_t t0 = SYST_CVR;
    for (uint32_t i = 0; i < n; i++) {
        __asm__ volatile("" : : : "memory");
    }
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}

/* The floor: align, check, bump. */
static struct {
    uint8_t *base;
    size_t top;
    size_t cap;
} floor_arena;

void synfw_floor_init(uint8_t *base, size_t cap) {
    floor_arena.base = base;
    floor_arena.top = 0;
    floor_arena.cap = cap;
}

__attribute__((noinline)) void *synfw_floor_alloc(size_t size) {
    size_t start = floor_arena.top;
    size_t end = start + ((size + 15u) & ~(size_t)15u);
    if (end > floor_arena.cap) {
        return NULL;
    }
    floor_arena.top = end;
    return floor_arena.base + start;
}

uint32_t synfw_floor_batch(uint32_t n, size_t size) {
    uint32_t t0 = SYST_CVR;
    for (uint32_t i = 0; i < n; i++) {
        void *p = synfw_floor_alloc(size);
        CONSUME(p);
    }
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}

/* The proposal prototype (src/bin/bench/proto.rs): same ABI as the C API. */
void *synfw_proto_alloc(const uint32_t *shape, uint8_t ndim, uint32_t dtype, uint32_t lifetime);
void *synfw_proto_alloc_pk(const uint32_t *shape, uint8_t ndim, uint32_t dtype,
                           uint32_t lifetime);
void synfw_proto_reset(void);
void synfw_proto_reset_pk(void);
uint32_t synfw_proto_batch(int pk, uint32_t n, const uint32_t *shape, uint8_t ndim,
                           uint32_t dtype);
uint32_t synfw_proto_reset_once(int pk);

/* n prototype allocations (pk: the variant keeping the high-water marks at allocation). */
uint32_t synfw_proto_batch(int pk, uint32_t n, const uint32_t *shape, uint8_t ndim,
                           uint32_t dtype) {
    uint32_t t0, t1;
    if (pk) {
        t0 = SYST_CVR;
        for (uint32_t i = 0; i < n; i++) {
            void *t = synfw_proto_alloc_pk(shape, ndim, dtype, 1u);
            CONSUME(t);
        }
        t1 = SYST_CVR;
    } else {
        t0 = SYST_CVR;
        for (uint32_t i = 0; i < n; i++) {
            void *t = synfw_proto_alloc(shape, ndim, dtype, 1u);
            CONSUME(t);
        }
        t1 = SYST_CVR;
    }
    return TICKS(t0, t1);
}

/* One prototype reset between two timer reads. */
uint32_t synfw_proto_reset_once(int pk) {
    uint32_t t0, t1;
    if (pk) {
        t0 = SYST_CVR;
        synfw_proto_reset_pk();
        t1 = SYST_CVR;
    } else {
        t0 = SYST_CVR;
        synfw_proto_reset();
        t1 = SYST_CVR;
    }
    return TICKS(t0, t1);
}

#ifdef SYNFW_CAPI
uint32_t synfw_c_alloc_batch(uint32_t n, const uint32_t *shape, uint8_t ndim,
                             syn_npu_dtype_t dtype);
uint32_t synfw_c_scratch_batch(uint32_t n, size_t size);
uint32_t synfw_c_reset_once(void);
int synfw_c_init(uint8_t *base, size_t size, size_t scratch);
uint32_t synfw_c_alloc_n(uint32_t n);

/* syn_mem_init_ex() for the benchmark arena. */
int synfw_c_init(uint8_t *base, size_t size, size_t scratch) {
    return syn_mem_init_ex(base, size, scratch);
}

/* n untimed 16-byte ephemeral allocations (live tensors before a timed reset); returns how
 * many succeeded. */
uint32_t synfw_c_alloc_n(uint32_t n) {
    static const uint32_t shape[2] = {1, 16};
    uint32_t ok = 0;
    for (uint32_t i = 0; i < n; i++) {
        ok += syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) != NULL;
    }
    return ok;
}

/* n ephemeral allocations through syn_mem_tensor_alloc(), as a C caller makes them. */
uint32_t synfw_c_alloc_batch(uint32_t n, const uint32_t *shape, uint8_t ndim,
                             syn_npu_dtype_t dtype) {
    uint32_t t0 = SYST_CVR;
    for (uint32_t i = 0; i < n; i++) {
        syn_tensor_t *t = syn_mem_tensor_alloc(shape, ndim, dtype, SYN_MEM_EPHEMERAL);
        CONSUME(t);
    }
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}

/* n scratch acquisitions of `size` bytes. */
uint32_t synfw_c_scratch_batch(uint32_t n, size_t size) {
    uint32_t t0 = SYST_CVR;
    for (uint32_t i = 0; i < n; i++) {
        void *p = syn_mem_scratch_acquire(size);
        CONSUME(p);
    }
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}

/* The planned path: a 4-slot plan (16 B .. 64 B INT8 tensors, two pairs sharing memory). */
static const syn_plan_slot_t bench_slots[] = {
    {0u, 16u, 0u, 0u}, {64u, 32u, 0u, 1u}, {0u, 64u, 1u, 2u}, {64u, 32u, 2u, 2u}};
static const syn_plan_type_t bench_types[] = {{{1u, 16u, 1u, 1u}, 2u, SYN_NPU_DTYPE_INT8},
                                              {{1u, 32u, 1u, 1u}, 2u, SYN_NPU_DTYPE_INT8},
                                              {{1u, 64u, 1u, 1u}, 2u, SYN_NPU_DTYPE_INT8},
                                              {{1u, 32u, 1u, 1u}, 2u, SYN_NPU_DTYPE_INT8}};
static syn_mem_plan_t bench_plan;

int synfw_c_plan_load(void);
uint32_t synfw_c_plan_begin_once(void);
uint32_t synfw_c_planned_batch(uint32_t n, uint32_t slot);

/* syn_mem_plan_load() of the benchmark plan (arena initialised, nothing ephemeral live). */
int synfw_c_plan_load(void) {
    return syn_mem_plan_load(bench_slots, bench_types, 4u, 128u, &bench_plan);
}

/* One syn_mem_plan_begin() between two timer reads (the caller checks syn_mem_last_error()). */
uint32_t synfw_c_plan_begin_once(void) {
    uint32_t t0 = SYST_CVR;
    int rc = syn_mem_plan_begin(&bench_plan);
    uint32_t t1 = SYST_CVR;
    CONSUME(rc);
    return TICKS(t0, t1);
}

/* n planned allocations of `slot` through syn_mem_tensor_alloc_planned(). */
uint32_t synfw_c_planned_batch(uint32_t n, uint32_t slot) {
    uint32_t t0 = SYST_CVR;
    for (uint32_t i = 0; i < n; i++) {
        syn_tensor_t *t = syn_mem_tensor_alloc_planned(&bench_plan, slot);
        CONSUME(t);
    }
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}

/* One syn_mem_reset_ephemeral() between two timer reads. */
uint32_t synfw_c_reset_once(void) {
    uint32_t t0 = SYST_CVR;
    syn_mem_reset_ephemeral();
    uint32_t t1 = SYST_CVR;
    return TICKS(t0, t1);
}
#endif
