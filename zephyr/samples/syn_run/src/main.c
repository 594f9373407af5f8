/*
 * synaptic-mem's Zephyr sample: the model planned on the host (syn_model_plan.h: plan slots,
 * declared overlaps, the compiled program, all in flash) runs once at boot and on `syn run`;
 * its output must equal the host's. A persistent and an ephemeral tensor in the module's arena
 * give `syn mem stats` something to count.
 */
#include <stdarg.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include <synaptic/syn_zephyr.h>

#include "syn_model_plan.h"

static const uint8_t model[] __aligned(16) = {
#include "model.inc"
};
static const uint8_t input[] = {
#include "input.inc"
};
static const uint8_t expected[] = {
#include "expected.inc"
};
static uint8_t arena[SYN_MODEL_ARENA] __aligned(16);
static uint8_t output[sizeof(expected)];

static const struct syn_zephyr_model sample_model = {
	.name = SYN_MODEL_NAME,
	.config = {
		.model = model,
		.model_size = sizeof(model),
		.slots = syn_model_slots,
		.slot_count = SYN_MODEL_SLOT_COUNT,
		.overlaps = syn_model_overlaps,
		.overlap_count = SYN_MODEL_OVERLAP_COUNT,
		.region_size = SYN_MODEL_REGION_SIZE,
		.io = SYN_RUN_IO_PLAN,
		.arena = arena,
		.arena_size = sizeof(arena),
		.program = syn_model_program,
		.program_words = SYN_MODEL_PROGRAM_WORDS,
	},
	.input = input,
	.input_size = sizeof(input),
	.expected = expected,
	.expected_size = sizeof(expected),
	.output = output,
	.output_size = sizeof(output),
};

static void print(void *ctx, const char *fmt, ...)
{
	va_list ap;

	ARG_UNUSED(ctx);
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

int main(void)
{
	printk("synaptic-mem: arena %u B, scratch pool %u B\n", CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE,
	       CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE);
	const uint32_t weights[] = {64, 16};
	const uint32_t activations[] = {1, 32, 32, 8};

	if (syn_mem_tensor_alloc(weights, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT) == NULL ||
	    syn_mem_tensor_alloc(activations, 4, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) == NULL) {
		printk("synaptic-mem: allocation failed: %d\n", syn_mem_last_error());
	}
	syn_zephyr_set_model(&sample_model);
	int rc = syn_zephyr_run(print, NULL);

	printk("syn run at boot: %s\n", rc == 0 ? "ok" : "FAILED");
	return 0;
}
