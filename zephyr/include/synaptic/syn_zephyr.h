/*
 * synaptic-mem's Zephyr module: the module's tensor arena and, with CONFIG_SYNAPTIC_RUN, the
 * model the `syn run` shell command runs.
 *
 * The arena is CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE bytes, 16-byte aligned, in the linker section
 * CONFIG_SYNAPTIC_ARENA_SECTION; with CONFIG_SYNAPTIC_MEM_AUTO_INIT (default) syn_mem_init()
 * has run on it before main(). Everything else is the C API of <synaptic/syn_mem.h> (and
 * <synaptic/syn_run.h>), unchanged: its critical section is Zephyr's irq_lock(), so threads
 * and interrupt handlers may call it as the spec's global API allows.
 */
#ifndef SYNAPTIC_SYN_ZEPHYR_H
#define SYNAPTIC_SYN_ZEPHYR_H

#include <stddef.h>
#include <stdint.h>

#include <synaptic/syn_mem.h>
#ifdef CONFIG_SYNAPTIC_RUN
#include <synaptic/syn_run.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The module's arena: CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE bytes, 16-byte aligned. */
extern uint8_t syn_zephyr_arena[CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE];

#ifdef CONFIG_SYNAPTIC_RUN
/**
 * A model for `syn run` (and syn_zephyr_run()): what syn_run_load() takes, one input to feed
 * and, optionally, the output the host computed for it (`synmem run --input IN.raw --output
 * OUT.raw`), which the run is compared with.
 */
struct syn_zephyr_model {
	/** A name to print. */
	const char *name;
	/** The syn_run_load() configuration (model bytes, plan, arena, program). */
	syn_run_config_t config;
	/** Input bytes (syn_run_io_info_t.input_bytes of them). */
	const void *input;
	size_t input_size;
	/** The host's output bytes, or NULL. */
	const void *expected;
	size_t expected_size;
	/** Room for the output bytes (syn_run_io_info_t.output_bytes). */
	void *output;
	size_t output_size;
};

/** Registers the model `syn run` runs (NULL: none). */
void syn_zephyr_set_model(const struct syn_zephyr_model *model);

/**
 * Loads the registered model (the first time), runs it once and prints, through `print`
 * (printf-like, with `ctx`), its output values, its RAM (syn_run_memory_t) and whether the
 * output equals the expected bytes. Returns 0 when the model ran and (if given) matched,
 * -ENODEV without a model, -EIO on a mismatch, else syn_run_*'s error.
 */
int syn_zephyr_run(void (*print)(void *ctx, const char *fmt, ...), void *ctx);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SYNAPTIC_SYN_ZEPHYR_H */
