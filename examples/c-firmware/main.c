/*
 * The C firmware kit's application: one model, run through the syn_run C API from a header
 * written by
 *
 *     synmem emit MODEL.tflite --lang c --with-model --io ephemeral -o model.h
 *
 * (the plan's slots and declared overlaps, the compiled program `<model>_program` and the
 * model bytes `<model>_model[]`, all const: flash; and the size macros). It loads the model on
 * an arena in its own linker section (.synaptic_arena, NOLOAD, 16-byte aligned), runs one
 * inference on the input linked in by input.S, prints the output bytes as hex on `syn-out`
 * lines and exits 0 (or the failing call's errno, negated to a positive status).
 *
 * Build-time parameters (the CMake and make builds set them from the header):
 *   KIT_MODEL         the header's lower-case prefix, e.g. hello_world_int8 (`<model>_slots`)
 *   KIT_MODEL_UC      its upper-case prefix, e.g. HELLO_WORLD_INT8 (`<MODEL>_SLOT_COUNT`)
 *   KIT_MODEL_HEADER  the header's file name (default "model.h")
 *   KIT_BOARD_NAME    a string printed at start
 *   KIT_HAVE_INPUT    input.S links the input bytes (kit_input .. kit_input_end); without it
 *                     the input is all zero bytes
 *   KIT_CHECK_ARENA   also check on target that an arena 16 bytes short of <MODEL>_ARENA_BYTES
 *                     is refused with -ENOMEM and that syn_run_memory() reports exactly
 *                     <MODEL>_ARENA_BYTES (and <MODEL>_SHARED_BYTES)
 *   KIT_COUNT         also print the instructions of syn_run_load() and of one
 *                     syn_run_invoke_copy() (`syn-kit: instructions load N invoke M`), counted
 *                     by the MPS2 boards' timer under QEMU -icount shift=10 (scripts/bench-kit.sh;
 *                     MPS2 boards only, --io ephemeral)
 *
 * Sizes come from the header: <MODEL>_ARENA_BYTES is the arena syn_run_load() needs for the
 * emitted --io/--op-data configuration, <MODEL>_SHARED_BYTES the shared (graph I/O) region, 0
 * with --io ephemeral (then the I/O lives in the plan and syn_run_invoke_copy() copies it in
 * and out); with --io shared the input is filled in place (as a DMA would) and read back with
 * syn_run_output().
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <synaptic/syn_run.h>

#include "kit.h"

#ifndef KIT_MODEL_HEADER
#define KIT_MODEL_HEADER "model.h"
#endif
#include KIT_MODEL_HEADER

#if !defined(KIT_MODEL) || !defined(KIT_MODEL_UC)
#error "define KIT_MODEL and KIT_MODEL_UC: the emitted header's prefixes (e.g. hello_world_int8, HELLO_WORLD_INT8)"
#endif
#ifndef KIT_BOARD_NAME
#define KIT_BOARD_NAME "unknown board"
#endif

#define KIT_CAT_(a, b) a##b
#define KIT_CAT(a, b) KIT_CAT_(a, b)
#define M_(suffix) KIT_CAT(KIT_MODEL, suffix)    /* M_(_slots): hello_world_int8_slots */
#define MU_(suffix) KIT_CAT(KIT_MODEL_UC, suffix) /* MU_(_SLOT_COUNT) */
#define KIT_STR_(x) #x
#define KIT_STR(x) KIT_STR_(x)

#define ARENA_BYTES MU_(_ARENA_BYTES)
#define SHARED_BYTES MU_(_SHARED_BYTES)

/* The arena: its own NOLOAD section in SRAM (boards/sections.ld), neither copied nor zeroed at
 * start-up. On a board with several RAM banks, the linker script decides which one holds it
 * (e.g. DTCM for speed, or the bank a DMA can reach). */
static uint8_t arena[ARENA_BYTES] __attribute__((section(".synaptic_arena"), aligned(16)));

#if SHARED_BYTES > 0
/* --io shared: graph I/O in the shared region for the model's life (a DMA can fill the input). */
static uint8_t shared[SHARED_BYTES] __attribute__((section(".synaptic_shared"), aligned(16)));
#define KIT_IO SYN_RUN_IO_SHARED
#define KIT_SHARED shared
#else
#define KIT_IO SYN_RUN_IO_PLAN
#define KIT_SHARED NULL
#endif

/* The application's storage of the loaded model (the runtime's state; zero-initialised). */
static syn_run_model_t net;

#ifdef KIT_HAVE_INPUT
extern const uint8_t kit_input[], kit_input_end[];
#endif

/* The output bytes (every graph output, concatenated). */
#ifndef KIT_OUTPUT_MAX
#define KIT_OUTPUT_MAX 4096
#endif
static uint8_t output[KIT_OUTPUT_MAX];
#ifndef KIT_HAVE_INPUT
#ifndef KIT_INPUT_MAX
#define KIT_INPUT_MAX 4096
#endif
static uint8_t zero_input[KIT_INPUT_MAX]; /* .bss: zeroed at start-up */
#endif

#if defined(KIT_COUNT) && SHARED_BYTES > 0
#error "KIT_COUNT counts syn_run_invoke_copy(): emit the header with --io ephemeral"
#endif

#ifdef KIT_COUNT
/* Instructions under QEMU's -icount shift=10, where each instruction advances the virtual
 * clock by 1024 ns: the MPS2 boards' CMSDK timer 0, a 32-bit down-counter at the 25 MHz system
 * clock (40 ns a tick, 25.6 ticks an instruction), so instructions = ticks * 40 / 1024 exactly,
 * with no interrupt (it wraps after 167 M instructions). The method of the TFLM anchors and of
 * firmware/runtime's counter (their SysTick has the same clock). */
#define KIT_TIMER_CTRL (*(volatile uint32_t *)0x40000000u)
#define KIT_TIMER_VALUE (*(volatile uint32_t *)0x40000004u)
#define KIT_TIMER_RELOAD (*(volatile uint32_t *)0x40000008u)

static void count_init(void)
{
    KIT_TIMER_CTRL = 0;
    KIT_TIMER_RELOAD = 0xFFFFFFFFu;
    KIT_TIMER_VALUE = 0xFFFFFFFFu;
    KIT_TIMER_CTRL = 1; /* enable, system clock, no interrupt */
}

static uint32_t count_now(void)
{
    return KIT_TIMER_VALUE;
}

/* Instructions between two readings (rounded: the readings' own loads fall inside). */
static uint32_t count_between(uint32_t from, uint32_t to)
{
    uint64_t ticks = (uint32_t)(from - to);
    return (uint32_t)((ticks * 40u + 512u) >> 10);
}

/* `n` iterations of two instructions each. */
static void count_spin(uint32_t n)
{
    __asm volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

/* Whether the timer counts instructions as above: two loops of known lengths must differ
 * by their 20,000 instructions, give or take the few around the readings (without -icount
 * the virtual clock follows the host's and they differ by far more). */
static int count_calibrated(void)
{
    uint32_t a = count_now();
    count_spin(20000);
    uint32_t b = count_now();
    count_spin(10000);
    uint32_t c = count_now();
    uint32_t d = count_between(a, b) - count_between(b, c);
    return d >= 20000u - 16u && d <= 20000u + 16u;
}
#endif

static int report(const char *what, int err)
{
    char msg[SYN_RUN_MESSAGE_MAX + 1];
    syn_run_last_error_message(msg, sizeof msg);
    kit_write("syn-kit: ");
    kit_write(what);
    kit_write(" failed: ");
    kit_write_i32(err);
    kit_write(" (");
    kit_write(msg);
    kit_write(")\n");
    return err < 0 ? -err : 1;
}

static syn_run_config_t config(size_t arena_size)
{
    const syn_run_config_t cfg = {
        .model = M_(_model),
        .model_size = MU_(_MODEL_BYTES),
        .slots = M_(_slots),
        .slot_count = MU_(_SLOT_COUNT),
        .overlaps = MU_(_OVERLAP_COUNT) ? M_(_overlaps) : NULL,
        .overlap_count = MU_(_OVERLAP_COUNT),
        .region_size = MU_(_REGION_SIZE),
        .io = KIT_IO,
        .arena = arena,
        .arena_size = arena_size,
        .shared = KIT_SHARED,
        .shared_size = SHARED_BYTES,
        .program = M_(_program),
        .program_words = MU_(_PROGRAM_WORDS),
    };
    return cfg;
}

static void field(const char *name, size_t v)
{
    kit_write(" ");
    kit_write(name);
    kit_write(" ");
    kit_write_u32((uint32_t)v);
}

int main(void)
{
    kit_write("syn-kit: board " KIT_BOARD_NAME ", model " KIT_STR(KIT_MODEL) "\n");
    kit_write("syn-kit: flash: model");
    field("bytes", MU_(_MODEL_BYTES));
    kit_write(", program");
    field("bytes", 4u * MU_(_PROGRAM_WORDS));
    kit_write("; RAM: arena");
    field("bytes", sizeof arena);
    kit_write(" at ");
    kit_write_x32((uint32_t)(uintptr_t)arena);
    kit_write(", shared");
    field("bytes", SHARED_BYTES);
    kit_write("\n");

    int err;
#ifdef KIT_CHECK_ARENA
    /* <MODEL>_ARENA_BYTES is exact: 16 bytes less is refused, and the object stays empty. */
    syn_run_config_t short_cfg = config(sizeof arena - 16);
    err = syn_run_load(&net, &short_cfg);
    if (err != -ENOMEM) {
        kit_write("syn-kit: check: arena ARENA_BYTES - 16: expected -ENOMEM, got ");
        kit_write_i32(err);
        kit_write("\n");
        return 100;
    }
    kit_write("syn-kit: check: arena ARENA_BYTES - 16 refused with -ENOMEM\n");
#endif

    const syn_run_config_t cfg = config(sizeof arena);
#ifdef KIT_COUNT
    count_init();
    if (!count_calibrated()) {
        kit_write("syn-kit: the timer does not count instructions (QEMU -icount shift=10?)\n");
        return 104;
    }
    uint32_t t0 = count_now();
#endif
    err = syn_run_load(&net, &cfg);
#ifdef KIT_COUNT
    uint32_t t1 = count_now();
#endif
    if (err != 0) {
        return report("syn_run_load", err);
    }

    syn_run_memory_t mem;
    syn_run_io_info_t info;
    if ((err = syn_run_memory(&net, &mem)) != 0) {
        return report("syn_run_memory", err);
    }
    if ((err = syn_run_io_info(&net, &info)) != 0) {
        return report("syn_run_io_info", err);
    }
    kit_write("syn-kit: loaded: arena");
    field("persistent", mem.persistent);
    field("planned", mem.planned);
    field("scratch", mem.scratch);
    field("=", mem.arena);
    field("shared", mem.shared);
    field("program_flash", mem.program_flash);
    kit_write("\n");
#ifdef KIT_CHECK_ARENA
    if (mem.arena != ARENA_BYTES || mem.shared != SHARED_BYTES) {
        kit_write("syn-kit: check: syn_run_memory() differs from the header's sizes\n");
        return 101;
    }
    kit_write("syn-kit: check: ARENA_BYTES arena accepted, syn_run_memory() agrees\n");
#endif
    if (info.output_bytes > sizeof output) {
        kit_write("syn-kit: output larger than KIT_OUTPUT_MAX\n");
        return 102;
    }

#ifdef KIT_HAVE_INPUT
    const uint8_t *input = kit_input;
    size_t input_size = (size_t)(kit_input_end - kit_input);
#else
    const uint8_t *input = zero_input;
    size_t input_size = info.input_bytes <= sizeof zero_input ? info.input_bytes : 0;
#endif
    if (input_size != info.input_bytes) {
        kit_write("syn-kit: input is");
        field("bytes", input_size);
        kit_write(", the model takes");
        field("bytes", info.input_bytes);
        kit_write("\n");
        return 103;
    }
    kit_write("syn-kit: invoke:");
    field("inputs", info.inputs);
    field("input_bytes", info.input_bytes);
    field("outputs", info.outputs);
    field("output_bytes", info.output_bytes);
    kit_write("\n");

#if SHARED_BYTES > 0
    /* In place: each input's buffer in the shared region (16-byte aligned, DMA-able) filled,
     * the inference run there, each output read there. */
    size_t at = 0;
    for (uint32_t k = 0; k < info.inputs; k++) {
        void *data;
        size_t size;
        if ((err = syn_run_input(&net, k, &data, &size)) != 0) {
            return report("syn_run_input", err);
        }
        for (size_t i = 0; i < size; i++) {
            ((uint8_t *)data)[i] = input[at + i];
        }
        at += size;
    }
    if ((err = syn_run_invoke(&net)) != 0) {
        return report("syn_run_invoke", err);
    }
    at = 0;
    for (uint32_t k = 0; k < info.outputs; k++) {
        const void *data;
        size_t size;
        if ((err = syn_run_output(&net, k, &data, &size)) != 0) {
            return report("syn_run_output", err);
        }
        for (size_t i = 0; i < size; i++) {
            output[at + i] = ((const uint8_t *)data)[i];
        }
        at += size;
    }
#else
#ifdef KIT_COUNT
    uint32_t t2 = count_now();
#endif
    err = syn_run_invoke_copy(&net, input, input_size, output, info.output_bytes);
#ifdef KIT_COUNT
    uint32_t t3 = count_now();
#endif
    if (err != 0) {
        return report("syn_run_invoke_copy", err);
    }
#ifdef KIT_COUNT
    kit_write("syn-kit: instructions");
    field("load", count_between(t0, t1));
    field("invoke", count_between(t2, t3));
    kit_write("\n");
#endif
#endif

    kit_write("syn-out ");
    kit_write_hex(output, info.output_bytes);
    kit_write("\n");
    if ((err = syn_run_unload(&net)) != 0) {
        return report("syn_run_unload", err);
    }
    kit_write("syn-kit: stack peak");
    field("bytes", kit_stack_peak());
    kit_write(" of");
    field("bytes", (size_t)((uint8_t *)__stack_top - (uint8_t *)__stack_bottom));
    kit_write("\nsyn-kit: done\n");
    return 0;
}
