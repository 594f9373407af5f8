/*
 * Tests of the syn_run C API (libsynaptic_run_ffi.a) with cmocka, run by scripts/test-ffi.sh.
 *
 * The script prepares $SYN_RUN_TEST_DIR: copies of the models (MODEL_shared.tflite,
 * MODEL_plan.tflite, so that synmem emit names the plans MODEL_SHARED / MODEL_PLAN), the plans
 * and compiled programs emitted by `synmem emit --lang c --op-data flash` (--io shared / --io
 * ephemeral) included below, the inputs MODEL_inK.raw, the outputs `synmem run MODEL --input
 * MODEL_inK.raw --io shared|plan --op-data ram|flash` wrote (MODEL_outK_IO_OPDATA.raw) and the
 * figures of its --json (MODEL_IO_OPDATA.mem: persistent planned scratch shared total tables
 * program program_flash). Every output of the C API, with the emitted program given
 * (syn_run_config_t.program, flash) and without it (NULL: compiled into the arena), is compared
 * with the CLI's byte for byte, on an arena sized exactly from the CLI's figures for that
 * --op-data; then every bad argument and every bad program.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "synaptic/syn_run.h"
/* Plans emitted at test time (after syn_run.h: the shared types are guarded). */
#include "hello_world_int8_plan_plan.h"
#include "hello_world_int8_shared_plan.h"
#include "micro_speech_quantized_plan_plan.h"
#include "micro_speech_quantized_shared_plan.h"
/* The same models' overlapped plans (emit's default; prefixes from the model copies' names). */
#include "hello_world_int8_plan_ovl_plan.h"
#include "hello_world_int8_shared_ovl_plan.h"
#include "micro_speech_quantized_plan_ovl_plan.h"
#include "micro_speech_quantized_shared_ovl_plan.h"

_Static_assert(sizeof(syn_run_model_t) == SYN_RUN_MODEL_WORDS * 8, "object size");
_Static_assert(sizeof(void *) == 8 ? SYN_RUN_MODEL_WORDS == SYN_RUN_MODEL_WORDS_64
                                   : SYN_RUN_MODEL_WORDS == SYN_RUN_MODEL_WORDS_32,
               "object size for this pointer width");

enum { IO_SHARED = 0, IO_PLAN = 1, MAX_INPUTS = 16 };
static const char *const IO_NAME[2] = {"shared", "plan"};
/* Where the program lives: compiled at load into the arena (config.program NULL), or the
 * emitted one given (flash). */
enum { OD_RAM = 0, OD_FLASH = 1 };
static const char *const OD_NAME[2] = {"ram", "flash"};

typedef struct {
    const char *name;
    /* "" for the plain plan, "_ovl" for the overlapped one (the model copy's and the
     * figures' file names; the outputs are the same files). */
    const char *tag;
    const syn_plan_slot_t *slots[2];
    uint32_t count[2];
    uint32_t region[2];
    const syn_plan_overlap_t *overlaps[2];
    uint32_t overlap_count[2];
    const uint32_t *program[2];
    size_t program_words[2];
} model_case_t;

static const model_case_t HELLO = {
    "hello_world_int8",
    "",
    {hello_world_int8_shared_slots, hello_world_int8_plan_slots},
    {HELLO_WORLD_INT8_SHARED_SLOT_COUNT, HELLO_WORLD_INT8_PLAN_SLOT_COUNT},
    {HELLO_WORLD_INT8_SHARED_REGION_SIZE, HELLO_WORLD_INT8_PLAN_REGION_SIZE},
    {hello_world_int8_shared_overlaps, hello_world_int8_plan_overlaps},
    {HELLO_WORLD_INT8_SHARED_OVERLAP_COUNT, HELLO_WORLD_INT8_PLAN_OVERLAP_COUNT},
    {hello_world_int8_shared_program, hello_world_int8_plan_program},
    {HELLO_WORLD_INT8_SHARED_PROGRAM_WORDS, HELLO_WORLD_INT8_PLAN_PROGRAM_WORDS},
};
static const model_case_t SPEECH = {
    "micro_speech_quantized",
    "",
    {micro_speech_quantized_shared_slots, micro_speech_quantized_plan_slots},
    {MICRO_SPEECH_QUANTIZED_SHARED_SLOT_COUNT, MICRO_SPEECH_QUANTIZED_PLAN_SLOT_COUNT},
    {MICRO_SPEECH_QUANTIZED_SHARED_REGION_SIZE, MICRO_SPEECH_QUANTIZED_PLAN_REGION_SIZE},
    {micro_speech_quantized_shared_overlaps, micro_speech_quantized_plan_overlaps},
    {MICRO_SPEECH_QUANTIZED_SHARED_OVERLAP_COUNT, MICRO_SPEECH_QUANTIZED_PLAN_OVERLAP_COUNT},
    {micro_speech_quantized_shared_program, micro_speech_quantized_plan_program},
    {MICRO_SPEECH_QUANTIZED_SHARED_PROGRAM_WORDS, MICRO_SPEECH_QUANTIZED_PLAN_PROGRAM_WORDS},
};
static const model_case_t HELLO_OVL = {
    "hello_world_int8",
    "_ovl",
    {hello_world_int8_shared_ovl_slots, hello_world_int8_plan_ovl_slots},
    {HELLO_WORLD_INT8_SHARED_OVL_SLOT_COUNT, HELLO_WORLD_INT8_PLAN_OVL_SLOT_COUNT},
    {HELLO_WORLD_INT8_SHARED_OVL_REGION_SIZE, HELLO_WORLD_INT8_PLAN_OVL_REGION_SIZE},
    {hello_world_int8_shared_ovl_overlaps, hello_world_int8_plan_ovl_overlaps},
    {HELLO_WORLD_INT8_SHARED_OVL_OVERLAP_COUNT, HELLO_WORLD_INT8_PLAN_OVL_OVERLAP_COUNT},
    {hello_world_int8_shared_ovl_program, hello_world_int8_plan_ovl_program},
    {HELLO_WORLD_INT8_SHARED_OVL_PROGRAM_WORDS, HELLO_WORLD_INT8_PLAN_OVL_PROGRAM_WORDS},
};
static const model_case_t SPEECH_OVL = {
    "micro_speech_quantized",
    "_ovl",
    {micro_speech_quantized_shared_ovl_slots, micro_speech_quantized_plan_ovl_slots},
    {MICRO_SPEECH_QUANTIZED_SHARED_OVL_SLOT_COUNT, MICRO_SPEECH_QUANTIZED_PLAN_OVL_SLOT_COUNT},
    {MICRO_SPEECH_QUANTIZED_SHARED_OVL_REGION_SIZE, MICRO_SPEECH_QUANTIZED_PLAN_OVL_REGION_SIZE},
    {micro_speech_quantized_shared_ovl_overlaps, micro_speech_quantized_plan_ovl_overlaps},
    {MICRO_SPEECH_QUANTIZED_SHARED_OVL_OVERLAP_COUNT,
     MICRO_SPEECH_QUANTIZED_PLAN_OVL_OVERLAP_COUNT},
    {micro_speech_quantized_shared_ovl_program, micro_speech_quantized_plan_ovl_program},
    {MICRO_SPEECH_QUANTIZED_SHARED_OVL_PROGRAM_WORDS,
     MICRO_SPEECH_QUANTIZED_PLAN_OVL_PROGRAM_WORDS},
};

/* ---- files ------------------------------------------------------------------------------ */

static const char *dir(void)
{
    const char *d = getenv("SYN_RUN_TEST_DIR");
    if (!d) fail_msg("SYN_RUN_TEST_DIR is not set (run scripts/test-ffi.sh)");
    return d;
}

/* The bytes of DIR/name (malloc'd), or NULL if it does not exist. */
static uint8_t *read_file(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir(), name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static uint8_t *must_read(const char *name, size_t *len)
{
    uint8_t *b = read_file(name, len);
    if (!b) fail_msg("missing test file %s/%s", dir(), name);
    return b;
}

/* `synmem run --json`'s figures. */
typedef struct {
    size_t persistent, planned, scratch, shared, total, tables, program, program_flash;
} figures_t;

static figures_t read_figures(const model_case_t *m, int io, int od)
{
    char name[256];
    snprintf(name, sizeof name, "%s_%s_%s%s.mem", m->name, IO_NAME[io], OD_NAME[od], m->tag);
    size_t len;
    uint8_t *b = must_read(name, &len);
    char text[256] = {0};
    memcpy(text, b, len < sizeof text - 1 ? len : sizeof text - 1);
    free(b);
    figures_t f;
    assert_int_equal(sscanf(text, "%zu %zu %zu %zu %zu %zu %zu %zu", &f.persistent, &f.planned,
                            &f.scratch, &f.shared, &f.total, &f.tables, &f.program,
                            &f.program_flash),
                     8);
    return f;
}

/* 16-byte aligned, poisoned: nothing may read bytes it did not write. */
static void *buffer(size_t n)
{
    void *p = aligned_alloc(16, (n + 15) / 16 * 16 + 16);
    assert_non_null(p);
    memset(p, 0xA5, (n + 15) / 16 * 16 + 16);
    return p;
}

static char *message(void)
{
    static char buf[SYN_RUN_MESSAGE_MAX + 1];
    size_t n = syn_run_last_error_message(buf, sizeof buf);
    assert_int_equal(n, strlen(buf));
    return buf;
}

/* The call failed with `err` and a message containing `needle`. */
#define assert_fails(call, err, needle)                                                      \
    do {                                                                                      \
        assert_int_equal((call), -(err));                                                     \
        assert_int_equal(syn_run_last_error(), -(err));                                      \
        if (!strstr(message(), (needle)))                                                    \
            fail_msg("message \"%s\" lacks \"%s\"", message(), (needle));                     \
    } while (0)

/* ---- one loaded model ------------------------------------------------------------------- */

typedef struct {
    const model_case_t *m;
    int io, od;
    uint8_t *model;
    size_t model_size;
    figures_t fig;
    void *arena, *shared;
    syn_run_config_t cfg;
    syn_run_model_t net;
} loaded_t;

/* Config of `m` with I/O `io`, the program given (OD_FLASH: the emitted one) or NULL (OD_RAM),
 * on an arena and shared region of exactly the CLI's figures for that --op-data plus
 * `arena_extra` / `shared_extra` bytes (negative: fewer). */
static void prepare(loaded_t *l, const model_case_t *m, int io, int od, long arena_extra,
                    long shared_extra)
{
    memset(l, 0, sizeof *l);
    l->m = m;
    l->io = io;
    l->od = od;
    char name[256];
    snprintf(name, sizeof name, "%s_%s%s.tflite", m->name, IO_NAME[io], m->tag);
    l->model = must_read(name, &l->model_size);
    l->fig = read_figures(m, io, od);
    size_t arena = l->fig.persistent + l->fig.planned + l->fig.scratch + (size_t)arena_extra;
    l->arena = buffer(arena);
    l->cfg = (syn_run_config_t){
        .model = l->model,
        .model_size = l->model_size,
        .slots = m->slots[io],
        .slot_count = m->count[io],
        .overlaps = m->overlaps[io],
        .overlap_count = m->overlap_count[io],
        .region_size = m->region[io],
        .io = io == IO_SHARED ? SYN_RUN_IO_SHARED : SYN_RUN_IO_PLAN,
        .arena = l->arena,
        .arena_size = arena,
        .program = od == OD_FLASH ? m->program[io] : NULL,
        .program_words = od == OD_FLASH ? m->program_words[io] : 0,
    };
    if (io == IO_SHARED) {
        size_t shared = l->fig.shared + (size_t)shared_extra;
        l->shared = buffer(shared);
        l->cfg.shared = l->shared;
        l->cfg.shared_size = shared;
    }
}

static void release(loaded_t *l)
{
    assert_int_equal(syn_run_unload(&l->net), 0);
    free(l->model);
    free(l->arena);
    free(l->shared);
}

/* One inference of input k through the C API, every way the placement allows; each output
 * equal to the CLI's. Returns 0 when the input file does not exist. */
static int run_input(loaded_t *l, int k)
{
    char name[256];
    size_t in_len, exp_len;
    snprintf(name, sizeof name, "%s_in%d.raw", l->m->name, k);
    uint8_t *in = read_file(name, &in_len);
    if (!in) return 0;
    snprintf(name, sizeof name, "%s_out%d_%s_%s.raw", l->m->name, k, IO_NAME[l->io],
             OD_NAME[l->od]);
    uint8_t *expected = must_read(name, &exp_len);

    syn_run_io_info_t info;
    assert_int_equal(syn_run_io_info(&l->net, &info), 0);
    assert_int_equal(info.input_bytes, in_len);
    assert_int_equal(info.output_bytes, exp_len);

    uint8_t *out = malloc(exp_len);
    memset(out, 0x5A, exp_len);
    assert_int_equal(syn_run_invoke_copy(&l->net, in, in_len, out, exp_len), 0);
    assert_memory_equal(out, expected, exp_len);

    if (l->io == IO_SHARED) {
        /* In place: fill each input in the shared region, invoke, read each output there. */
        size_t off = 0;
        for (uint32_t i = 0; i < info.inputs; i++) {
            void *data = NULL;
            size_t size = 0;
            assert_int_equal(syn_run_input(&l->net, i, &data, &size), 0);
            assert_int_equal((uintptr_t)data % 16, 0);
            assert_true((uint8_t *)data >= (uint8_t *)l->shared &&
                        (uint8_t *)data + size <= (uint8_t *)l->shared + l->cfg.shared_size);
            memset(data, 0, size); /* the previous output must not leak into this one */
            memcpy(data, in + off, size);
            off += size;
        }
        assert_int_equal(off, in_len);
        assert_int_equal(syn_run_invoke(&l->net), 0);
        off = 0;
        for (uint32_t i = 0; i < info.outputs; i++) {
            const void *data = NULL;
            size_t size = 0;
            assert_int_equal(syn_run_output(&l->net, i, &data, &size), 0);
            assert_memory_equal(data, expected + off, size);
            off += size;
        }
        assert_int_equal(off, exp_len);
    } else {
        void *data = (void *)1;
        size_t size = 7;
        assert_fails(syn_run_input(&l->net, 0, &data, &size), EINVAL, "SYN_RUN_IO_PLAN");
        assert_ptr_equal(data, (void *)1); /* outputs untouched */
        assert_int_equal(size, 7);
        assert_fails(syn_run_invoke(&l->net), EINVAL, "syn_run_invoke_copy");
    }
    free(out);
    free(expected);
    free(in);
    return 1;
}

/* Every input through model `m` with I/O `io` and the program given or not (`od`), on an arena
 * of exactly the CLI's size; the memory figures equal the CLI's; 16 bytes less arena (or shared
 * region) does not load. */
static void run_model(const model_case_t *m, int io, int od)
{
    loaded_t l;
    prepare(&l, m, io, od, 0, 0);
    if (syn_run_load(&l.net, &l.cfg) != 0) fail_msg("load %s: %s", m->name, message());

    syn_run_memory_t mem;
    assert_int_equal(syn_run_memory(&l.net, &mem), 0);
    assert_int_equal(mem.persistent, l.fig.persistent);
    assert_int_equal(mem.planned, l.fig.planned);
    assert_int_equal(mem.scratch, l.fig.scratch);
    assert_int_equal(mem.shared, l.fig.shared);
    assert_int_equal(mem.total, l.fig.total);
    assert_int_equal(mem.arena, l.cfg.arena_size);
    assert_int_equal(mem.persistent, mem.tables + mem.locations + mem.plan_descriptors);
    assert_int_equal(mem.planned, m->region[io]);
    if (io == IO_PLAN) assert_int_equal(mem.shared, 0);
    /* The program: the emitted one's size either way; given, in no RAM figure. */
    assert_int_equal(mem.tables, l.fig.tables);
    assert_int_equal(mem.locations, 0);
    assert_int_equal(mem.program, l.fig.program);
    assert_int_equal(mem.program_flash, l.fig.program_flash);
    assert_int_equal(mem.program, 4 * m->program_words[io]);
    if (od == OD_FLASH) {
        assert_int_equal(mem.program_flash, mem.program);
        assert_int_equal(mem.tables, 0);
        assert_int_equal(mem.persistent, mem.plan_descriptors);
    } else {
        assert_int_equal(mem.program_flash, 0);
        assert_true(mem.tables >= mem.program);
    }

    int runs = 0;
    for (int k = 0; run_input(&l, k); k++) runs++;
    if (runs < 3) fail_msg("%s: only %d inputs in %s", m->name, runs, dir());
    print_message("syn_run %s io=%s program=%s plan=%s (%u declared overlaps): %d inputs, "
                  "outputs equal to synmem run; arena %zu B, shared %zu B, program %zu B (%zu B "
                  "outside the arena)\n",
                  m->name, IO_NAME[io], OD_NAME[od], m->tag[0] ? "overlapped" : "plain",
                  (unsigned)m->overlap_count[io], runs, mem.arena, mem.shared, mem.program,
                  mem.program_flash);
    release(&l);

    /* 16 bytes short: -ENOMEM, nothing loaded, and the message says which arena to give. */
    prepare(&l, m, io, od, -16, 0);
    char want[64];
    snprintf(want, sizeof want, "16 B short; give an arena of %zu B", mem.arena);
    assert_fails(syn_run_load(&l.net, &l.cfg), ENOMEM, want);
    assert_fails(syn_run_invoke_copy(&l.net, NULL, 0, NULL, 0), ENODEV, "no model loaded");
    release(&l);
    if (io == IO_SHARED) {
        prepare(&l, m, io, od, 0, -16);
        assert_int_equal(syn_run_load(&l.net, &l.cfg), -ENOMEM);
        release(&l);
    }
}

static void test_hello_world_shared_flash(void **state) { (void)state; run_model(&HELLO, IO_SHARED, OD_FLASH); }
static void test_hello_world_plan_flash(void **state) { (void)state; run_model(&HELLO, IO_PLAN, OD_FLASH); }
static void test_micro_speech_shared_flash(void **state) { (void)state; run_model(&SPEECH, IO_SHARED, OD_FLASH); }
static void test_micro_speech_plan_flash(void **state) { (void)state; run_model(&SPEECH, IO_PLAN, OD_FLASH); }
static void test_hello_world_shared_overlapped(void **state) { (void)state; run_model(&HELLO_OVL, IO_SHARED, OD_FLASH); }
static void test_hello_world_plan_overlapped(void **state) { (void)state; run_model(&HELLO_OVL, IO_PLAN, OD_FLASH); }
static void test_micro_speech_shared_overlapped(void **state) { (void)state; run_model(&SPEECH_OVL, IO_SHARED, OD_FLASH); }
static void test_micro_speech_plan_overlapped(void **state) { (void)state; run_model(&SPEECH_OVL, IO_PLAN, OD_RAM); }
static void test_hello_world_shared_ram(void **state) { (void)state; run_model(&HELLO, IO_SHARED, OD_RAM); }
static void test_hello_world_plan_ram(void **state) { (void)state; run_model(&HELLO, IO_PLAN, OD_RAM); }
static void test_micro_speech_shared_ram(void **state) { (void)state; run_model(&SPEECH, IO_SHARED, OD_RAM); }
static void test_micro_speech_plan_ram(void **state) { (void)state; run_model(&SPEECH, IO_PLAN, OD_RAM); }

/* An overlapped plan's declarations: checked at load, each refusal leaves nothing loaded. */
static void test_bad_overlaps(void **state)
{
    (void)state;
    loaded_t l;
    prepare(&l, &HELLO_OVL, IO_PLAN, OD_FLASH, 0, 0);
    assert_true(l.cfg.overlap_count > 0);
    syn_run_config_t c;
    syn_plan_overlap_t bad[8];
    assert_true(l.cfg.overlap_count <= 8);
    /* The overlapped plan without its declarations: two live slots share bytes. */
    c = l.cfg;
    c.overlap_count = 0;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "load:");
    c.overlaps = NULL;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "load:");
    /* NULL with a count. */
    c = l.cfg;
    c.overlaps = NULL;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "config->overlaps is NULL");
    /* A direction byte that names no direction. */
    memcpy(bad, l.cfg.overlaps, l.cfg.overlap_count * sizeof bad[0]);
    bad[0].direction = 7;
    c = l.cfg;
    c.overlaps = bad;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "config->overlaps[0].direction is 7");
    /* A pair whose input is not its operator's input (the runtime's own contracts decide;
     * crates/synaptic-run/tests/program.rs refuses bounds and deltas they do not allow). */
    memcpy(bad, l.cfg.overlaps, l.cfg.overlap_count * sizeof bad[0]);
    bad[0].input = bad[0].output;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "declared overlap");
    /* A pair of an operator the model does not have. */
    memcpy(bad, l.cfg.overlaps, l.cfg.overlap_count * sizeof bad[0]);
    bad[l.cfg.overlap_count - 1].op = 200;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "an operator the model does not have");
    /* Overlapping the object (only read: the object is written). */
    c = l.cfg;
    c.overlaps = (const syn_plan_overlap_t *)(void *)&l.net;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "the syn_run_model_t overlaps the plan's overlaps");
    /* And the declarations as given load and run. */
    assert_int_equal(syn_run_load(&l.net, &l.cfg), 0);
    release(&l);
}

/* Two models loaded at once, each on its own arena (one with its program in flash, one with it
 * compiled at load), invoked in turn. */
static void test_models_coexist(void **state)
{
    (void)state;
    loaded_t a, b;
    prepare(&a, &HELLO, IO_SHARED, OD_FLASH, 0, 0);
    prepare(&b, &SPEECH, IO_PLAN, OD_RAM, 0, 0);
    assert_int_equal(syn_run_load(&a.net, &a.cfg), 0);
    assert_int_equal(syn_run_load(&b.net, &b.cfg), 0);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(run_input(&a, k), 1);
        assert_int_equal(run_input(&b, k), 1);
    }
    release(&a);
    release(&b);
}

/* ---- bad arguments ---------------------------------------------------------------------- */

static void test_before_load(void **state)
{
    (void)state;
    static syn_run_model_t zero; /* zero-initialised: no model */
    syn_run_memory_t mem;
    syn_run_io_info_t info;
    void *data;
    const void *cdata;
    size_t size;
    uint8_t in[1] = {0}, out[1];
    assert_fails(syn_run_invoke(&zero), ENODEV, "no model loaded");
    assert_fails(syn_run_invoke_copy(&zero, in, 1, out, 1), ENODEV, "no model loaded");
    assert_fails(syn_run_input(&zero, 0, &data, &size), ENODEV, "no model loaded");
    assert_fails(syn_run_output(&zero, 0, &cdata, &size), ENODEV, "no model loaded");
    assert_fails(syn_run_memory(&zero, &mem), ENODEV, "no model loaded");
    assert_fails(syn_run_io_info(&zero, &info), ENODEV, "no model loaded");
    /* Storage of unknown contents holds no model either; unload clears it. */
    syn_run_model_t junk;
    memset(&junk, 0xA5, sizeof junk);
    assert_fails(syn_run_invoke(&junk), ENODEV, "no model loaded");
    assert_int_equal(syn_run_unload(&junk), 0);
    assert_int_equal(syn_run_unload(&zero), 0);
    /* NULL everywhere. */
    assert_fails(syn_run_load(NULL, NULL), EINVAL, "model is NULL");
    assert_fails(syn_run_load(&zero, NULL), EINVAL, "config is NULL");
    assert_fails(syn_run_invoke(NULL), EINVAL, "model is NULL");
    assert_fails(syn_run_unload(NULL), EINVAL, "model is NULL");
    assert_fails(syn_run_memory(&zero, NULL), EINVAL, "memory is NULL");
    assert_fails(syn_run_io_info(&zero, NULL), EINVAL, "info is NULL");
    assert_fails(syn_run_input(&zero, 0, NULL, &size), EINVAL, "data is NULL");
    assert_fails(syn_run_output(&zero, 0, &cdata, NULL), EINVAL, "size is NULL");
    assert_fails(syn_run_invoke((syn_run_model_t *)((uintptr_t)&zero + 1)), EINVAL, "aligned");
}

static void test_bad_configs(void **state)
{
    (void)state;
    loaded_t l;
    prepare(&l, &HELLO, IO_SHARED, OD_RAM, 64, 0);
    syn_run_config_t c;
#define WITH(field, value, err, needle)                                                      \
    do {                                                                                      \
        c = l.cfg;                                                                            \
        c.field = value;                                                                      \
        assert_fails(syn_run_load(&l.net, &c), err, needle);                                  \
        assert_fails(syn_run_invoke(&l.net), ENODEV, "no model loaded");                      \
    } while (0)
    WITH(io, 7, EINVAL, "not a syn_run_io_t");
    WITH(model, NULL, EINVAL, "config->model is NULL");
    WITH(model_size, 0, EINVAL, "model_size is 0");
    WITH(arena, NULL, EINVAL, "config->arena is NULL");
    WITH(shared, NULL, EINVAL, "needs a shared region");
    WITH(slots, NULL, EINVAL, "config->slots is NULL");
    WITH(slot_count, 0, EINVAL, "plan does not fit the model");
    WITH(region_size, 0, EINVAL, "load:");
    WITH(io, SYN_RUN_IO_PLAN, EINVAL, "takes no shared region");
    WITH(arena_size, 100, ENOMEM, "load:");
    WITH(arena_size, (size_t)-1, EINVAL, "wrap the address space");
    WITH(shared, l.arena, EINVAL, "the arena overlaps the shared region");
    WITH(arena, (void *)&l.net, EINVAL, "the arena overlaps the syn_run_model_t");
    WITH(shared, (void *)l.model, EINVAL, "the shared region overlaps the model bytes");
    WITH(program_words, 4, EINVAL, "program is NULL but program_words");
    static const uint32_t junk_program[4] = {1, 2, 3, 4};
    WITH(program, junk_program, EINVAL, "load: program does not match the model: shorter than");
    /* Another model's plan: refused by the plan check. */
    WITH(slots, SPEECH.slots[IO_SHARED], EINVAL, "plan does not fit the model");
    /* The plan for the other placement. */
    c = l.cfg;
    c.io = SYN_RUN_IO_PLAN;
    c.shared = NULL;
    c.shared_size = 0;
    assert_fails(syn_run_load(&l.net, &c), EINVAL, "plan does not fit the model");
    /* Malformed model bytes: garbage, and the model cut in half. */
    static const uint8_t junk[64] = {0x41, 0x41, 0x41, 0x41};
    WITH(model, junk, EINVAL, "load:");
    WITH(model_size, l.model_size / 2, EINVAL, "load:");
#undef WITH
    /* After all that the config still loads. */
    assert_int_equal(syn_run_load(&l.net, &l.cfg), 0);
    assert_int_equal(run_input(&l, 0), 1);
    release(&l);
}

/* Programs that are not the model's, or that the runtime may not read where they are: -EINVAL
 * naming what differs (or what is wrong with the pointer), nothing loaded, the program only
 * read; the emitted program still loads afterwards, and a bad one on the loaded object is
 * -EBUSY. Both placements. */
static void test_bad_programs(void **state)
{
    (void)state;
    for (int io = IO_SHARED; io <= IO_PLAN; io++) {
        loaded_t l;
        prepare(&l, &HELLO, io, OD_FLASH, 0, 0);
        const size_t n = HELLO.program_words[io];
        /* A writable copy with one word more (the extended case, the misaligned pointer). */
        uint32_t *copy = buffer((n + 4) * sizeof *copy);
        memcpy(copy, HELLO.program[io], n * sizeof *copy);
        copy[n] = 0;
        syn_run_config_t c;
#define PROG(ptr, words, needle)                                                            \
    do {                                                                                      \
        c = l.cfg;                                                                            \
        c.program = (ptr);                                                                    \
        c.program_words = (words);                                                            \
        assert_fails(syn_run_load(&l.net, &c), EINVAL, needle);                               \
        assert_fails(syn_run_invoke_copy(&l.net, NULL, 0, NULL, 0), ENODEV, "no model loaded"); \
    } while (0)
        PROG(SPEECH.program[io], SPEECH.program_words[io],
             "load: program does not match the model: compiled for another model");
        PROG(HELLO.program[1 - io], HELLO.program_words[1 - io],
             "load: program does not match the model: compiled for the other I/O placement");
        PROG(HELLO.program[io], n - 1,
             "load: program does not match the model: its length word differs from its size "
             "(truncated or extended) (word 2)");
        PROG(copy, n + 1, "(truncated or extended) (word 2)");
        PROG(HELLO.program[io], 0, "load: program does not match the model: shorter than a "
                                   "program header (truncated)");
        /* One word flipped: in the tables after the header, mid-program, the last word:
         * refused by the program's seal (header word 15), whichever. */
        const size_t flips[3] = {16, n / 2, n - 1};
        for (int f = 0; f < 3; f++) {
            size_t k = flips[f];
            const char *needle = "its seal differs (altered, or compiled from other model bytes) "
                                 "(word 15)";
            copy[k] = ~copy[k];
            c = l.cfg;
            c.program = copy;
            assert_fails(syn_run_load(&l.net, &c), EINVAL, needle);
            if (strncmp(message(), "load: program does not match the model: ", 40) != 0)
                fail_msg("flipped word %zu: \"%s\"", k, message());
            print_message("io=%s, word %zu flipped: %s\n", IO_NAME[io], k, message());
            assert_fails(syn_run_invoke_copy(&l.net, NULL, 0, NULL, 0), ENODEV, "no model loaded");
            copy[k] = ~copy[k];
        }
        PROG((const uint32_t *)((uintptr_t)copy + 2), n,
             "config->program is not aligned to 4 bytes");
        PROG((const uint32_t *)l.arena, n, "the arena overlaps the program");
        if (io == IO_SHARED) PROG((const uint32_t *)l.shared, n, "the shared region overlaps the program");
        PROG((const uint32_t *)(void *)&l.net, n, "the syn_run_model_t overlaps the program");
        PROG(copy, SIZE_MAX / 2, "elements of 4 bytes overflow the address space");
        PROG(NULL, n, "config->program is NULL but program_words is not 0");
#undef PROG
        /* Only read: the copy is the emitted program still. */
        assert_memory_equal(copy, HELLO.program[io], n * sizeof *copy);
        /* The emitted program loads after all that and runs bit-exactly; another model's
         * program on the loaded object is -EBUSY and changes nothing. */
        assert_int_equal(syn_run_load(&l.net, &l.cfg), 0);
        c = l.cfg;
        c.program = SPEECH.program[io];
        c.program_words = SPEECH.program_words[io];
        assert_fails(syn_run_load(&l.net, &c), EBUSY, "syn_run_unload() it first");
        assert_int_equal(run_input(&l, 3), 1);
        syn_run_memory_t mem;
        assert_int_equal(syn_run_memory(&l.net, &mem), 0);
        assert_int_equal(mem.program_flash, 4 * n);
        release(&l);
        free(copy);
    }
}

/* The program is only read: syn_run_invoke_copy's input may overlap it (here from its last
 * word on, past its end), its output never. */
static void test_program_as_input(void **state)
{
    (void)state;
    const model_case_t *models[2] = {&HELLO, &SPEECH};
    for (int i = 0; i < 2; i++) {
        const model_case_t *m = models[i];
        loaded_t l;
        prepare(&l, m, IO_PLAN, OD_FLASH, 0, 0);
        const size_t n = m->program_words[IO_PLAN];
        syn_run_io_info_t info;
        uint32_t *buf = buffer((n + 4096) * sizeof *buf);
        memcpy(buf, m->program[IO_PLAN], n * sizeof *buf);
        for (size_t k = n; k < n + 4096; k++) buf[k] = (uint32_t)(k * 2654435761u);
        l.cfg.program = buf;
        assert_int_equal(syn_run_load(&l.net, &l.cfg), 0);
        assert_int_equal(syn_run_io_info(&l.net, &info), 0);
        assert_true(info.input_bytes <= 4 * 4095);
        const uint8_t *in = (const uint8_t *)(buf + n - 1);
        uint8_t *in_copy = malloc(info.input_bytes);
        memcpy(in_copy, in, info.input_bytes);
        uint8_t *out = malloc(info.output_bytes), *expected = malloc(info.output_bytes);
        assert_int_equal(syn_run_invoke_copy(&l.net, in_copy, info.input_bytes, expected,
                                             info.output_bytes),
                         0);
        memset(out, 0x5A, info.output_bytes);
        if (syn_run_invoke_copy(&l.net, in, info.input_bytes, out, info.output_bytes) != 0)
            fail_msg("%s: input overlapping the program: %s", m->name, message());
        assert_memory_equal(out, expected, info.output_bytes);
        assert_fails(syn_run_invoke_copy(&l.net, in_copy, info.input_bytes, buf + n - 1,
                                         info.output_bytes),
                     EINVAL, "output overlaps the program");
        assert_memory_equal(buf, m->program[IO_PLAN], n * sizeof *buf);
        assert_int_equal(run_input(&l, 4), 1);
        release(&l);
        free(buf);
        free(in_copy);
        free(out);
        free(expected);
    }
}

/* A model the runtime does not run (a hybrid model, as TFLM refuses): -ENOTSUP naming it. */
static void test_unsupported_model(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bytes = must_read("kws_ref_model_float32.tflite", &len);
    void *arena = buffer(65536);
    syn_run_model_t net = {0};
    syn_run_config_t c = {
        .model = bytes, .model_size = len, .io = SYN_RUN_IO_PLAN,
        .arena = arena, .arena_size = 65536,
    };
    assert_fails(syn_run_load(&net, &c), ENOTSUP, "hybrid");
    assert_fails(syn_run_invoke_copy(&net, NULL, 0, NULL, 0), ENODEV, "no model loaded");
    free(arena);
    free(bytes);
}

/* Failures on a loaded model change nothing: it still runs, its shared input is intact. */
static void test_errors_keep_the_model(void **state)
{
    (void)state;
    loaded_t l;
    prepare(&l, &SPEECH, IO_SHARED, OD_FLASH, 0, 0);
    assert_int_equal(syn_run_load(&l.net, &l.cfg), 0);
    syn_run_io_info_t info;
    assert_int_equal(syn_run_io_info(&l.net, &info), 0);
    assert_int_equal(info.io, SYN_RUN_IO_SHARED);
    assert_int_equal(info.inputs, 1);
    assert_int_equal(info.outputs, 1);

    /* Loading again into the loaded object: -EBUSY. */
    assert_fails(syn_run_load(&l.net, &l.cfg), EBUSY, "syn_run_unload() it first");

    void *in = NULL;
    size_t in_size = 0;
    assert_int_equal(syn_run_input(&l.net, 0, &in, &in_size), 0);
    memset(in, 0x11, in_size);
    uint8_t *snapshot = malloc(in_size);
    memcpy(snapshot, in, in_size);

    uint8_t *out = malloc(info.output_bytes + 1);
    memset(out, 0x5A, info.output_bytes + 1);
    uint8_t *buf = malloc(info.input_bytes + 1);
    memset(buf, 0x22, info.input_bytes + 1);
    assert_fails(syn_run_invoke_copy(&l.net, buf, info.input_bytes + 1, out, info.output_bytes),
                 EINVAL, "input: 1961 bytes given, the model needs 1960");
    assert_fails(syn_run_invoke_copy(&l.net, buf, info.input_bytes, out, info.output_bytes + 1),
                 EINVAL, "output:");
    assert_fails(syn_run_invoke_copy(&l.net, NULL, info.input_bytes, out, info.output_bytes),
                 EINVAL, "input is NULL");
    assert_fails(syn_run_invoke_copy(&l.net, in, in_size, out, info.output_bytes), EINVAL,
                 "input overlaps the shared region");
    assert_fails(syn_run_invoke_copy(&l.net, buf, info.input_bytes, l.arena, info.output_bytes),
                 EINVAL, "output overlaps the arena");
    assert_fails(syn_run_invoke_copy(&l.net, buf, info.input_bytes, buf + 1, info.output_bytes),
                 EINVAL, "input overlaps output");
    /* The program is only read: never an output (refused before anything is written). */
    assert_fails(syn_run_invoke_copy(&l.net, buf, info.input_bytes,
                                     (void *)(uintptr_t)l.cfg.program, info.output_bytes),
                 EINVAL, "output overlaps the program");
    for (size_t i = 0; i <= info.output_bytes; i++) assert_int_equal(out[i], 0x5A);
    assert_fails(syn_run_input(&l.net, 1, &in, &in_size), EINVAL, "input 1 out of range");
    const void *o;
    size_t o_size;
    assert_fails(syn_run_output(&l.net, 9, &o, &o_size), EINVAL, "output 9 out of range");
    assert_memory_equal(in, snapshot, in_size);

    /* A copy of the loaded object is refused; the original is untouched by it. */
    syn_run_model_t *copy = aligned_alloc(16, sizeof(syn_run_model_t));
    memcpy(copy, &l.net, sizeof *copy);
    assert_fails(syn_run_invoke(copy), EINVAL, "moved or copied");
    assert_int_equal(syn_run_unload(copy), 0);
    assert_fails(syn_run_invoke(copy), ENODEV, "no model loaded");
    free(copy);

    /* The model still runs the CLI's inputs bit-exactly. */
    assert_int_equal(run_input(&l, 1), 1);
    release(&l);
    assert_fails(syn_run_invoke(&l.net), ENODEV, "no model loaded");
    free(buf);
    free(out);
    free(snapshot);
}

static void test_error_message(void **state)
{
    (void)state;
    assert_fails(syn_run_invoke(NULL), EINVAL, "model is NULL");
    char small[6];
    memset(small, 'x', sizeof small);
    assert_int_equal(syn_run_last_error_message(small, sizeof small), strlen("model is NULL"));
    assert_string_equal(small, "model");
    assert_int_equal(syn_run_last_error_message(NULL, 0), strlen("model is NULL"));
    /* A successful call leaves the last error. */
    static syn_run_model_t zero;
    assert_int_equal(syn_run_unload(&zero), 0);
    assert_int_equal(syn_run_last_error(), -EINVAL);
}

/* The syn_mem API is in the same library (the test links libsynaptic_run_ffi.a alone). */
static void test_syn_mem_in_the_same_library(void **state)
{
    (void)state;
    void *arena = buffer(8192);
    assert_int_equal(syn_mem_init_ex(arena, 8192, 1024), 0);
    const uint32_t shape[2] = {4, 4};
    syn_tensor_t *t = syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    assert_non_null(t);
    assert_int_equal(t->size, 16);
    assert_null(syn_mem_tensor_alloc(shape, 0, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT));
    assert_int_equal(syn_mem_last_error(), -EINVAL);
    free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_world_shared_flash),
        cmocka_unit_test(test_hello_world_plan_flash),
        cmocka_unit_test(test_micro_speech_shared_flash),
        cmocka_unit_test(test_micro_speech_plan_flash),
        cmocka_unit_test(test_hello_world_shared_overlapped),
        cmocka_unit_test(test_hello_world_plan_overlapped),
        cmocka_unit_test(test_micro_speech_shared_overlapped),
        cmocka_unit_test(test_micro_speech_plan_overlapped),
        cmocka_unit_test(test_bad_overlaps),
        cmocka_unit_test(test_hello_world_shared_ram),
        cmocka_unit_test(test_hello_world_plan_ram),
        cmocka_unit_test(test_micro_speech_shared_ram),
        cmocka_unit_test(test_micro_speech_plan_ram),
        cmocka_unit_test(test_models_coexist),
        cmocka_unit_test(test_before_load),
        cmocka_unit_test(test_bad_configs),
        cmocka_unit_test(test_bad_programs),
        cmocka_unit_test(test_program_as_input),
        cmocka_unit_test(test_unsupported_model),
        cmocka_unit_test(test_errors_keep_the_model),
        cmocka_unit_test(test_error_message),
        cmocka_unit_test(test_syn_mem_in_the_same_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
