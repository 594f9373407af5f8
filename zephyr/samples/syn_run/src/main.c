/*
 * synaptic-mem's Zephyr sample: the model planned on the host (net_plan.h, `synmem emit --lang c
 * --with-model`: plan slots, declared overlaps, the compiled program and the model, in flash) runs once at boot and on `syn run`;
 * its output must equal the host's. A persistent and an ephemeral tensor in the module's arena
 * give `syn mem stats` something to count, and a timer interrupt acquires and releases scratch
 * while the main thread allocates and resets: the C API's critical section (irq_lock) keeps
 * both consistent.
 */
#include <stdarg.h>

#include <zephyr/kernel.h>
#include <zephyr/sys/atomic.h>
#include <zephyr/sys/printk.h>

#include <synaptic/syn_zephyr.h>

#include "net_plan.h"

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
		.model = net_model,
		.model_size = NET_MODEL_BYTES,
		.slots = net_slots,
		.slot_count = NET_SLOT_COUNT,
		.overlaps = net_overlaps,
		.overlap_count = NET_OVERLAP_COUNT,
		.region_size = NET_REGION_SIZE,
		.io = SYN_RUN_IO_PLAN,
		.arena = arena,
		.arena_size = sizeof(arena),
		.program = net_program,
		.program_words = NET_PROGRAM_WORDS,
	},
	.input = input,
	.input_size = sizeof(input),
	.expected = expected,
	.expected_size = sizeof(expected),
	.output = output,
	.output_size = sizeof(output),
};

static atomic_t isr_ok, isr_failed;

static void from_isr(struct k_timer *t)
{
	ARG_UNUSED(t);
	void *p = syn_mem_scratch_acquire(64);

	if (p != NULL) {
		syn_mem_scratch_release(p);
		atomic_inc(&isr_ok);
	} else {
		atomic_inc(&isr_failed);
	}
}

K_TIMER_DEFINE(isr_timer, from_isr, NULL);

/* The main thread allocates and resets ephemeral tensors while the timer's ISR takes scratch;
 * afterwards every count must add up. */
static int isr_and_thread(void)
{
	const uint32_t shape[] = {4, 16};
	syn_mem_stats_t before, after;
	unsigned allocs = 0;

	(void)syn_mem_get_stats(&before);
	k_timer_start(&isr_timer, K_MSEC(1), K_MSEC(1));
	int64_t end = k_uptime_get() + 200;

	while (k_uptime_get() < end) {
		for (int i = 0; i < 8; i++) {
			if (syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL) !=
			    NULL) {
				allocs++;
			}
		}
		syn_mem_reset_ephemeral();
	}
	k_timer_stop(&isr_timer);
	(void)syn_mem_get_stats(&after);
	printk("isr: %ld scratch acquire/release pairs in an ISR, %ld failed, while the thread made "
	       "%u allocations; alloc_count +%u, failed_count +%u\n",
	       (long)atomic_get(&isr_ok), (long)atomic_get(&isr_failed), allocs,
	       (unsigned)(after.alloc_count - before.alloc_count),
	       (unsigned)(after.failed_count - before.failed_count));
	/* Every successful call of either context counted once, none lost to a race. */
	bool counted = after.alloc_count - before.alloc_count == allocs + (uint32_t)atomic_get(&isr_ok);

	return atomic_get(&isr_ok) > 0 && atomic_get(&isr_failed) == 0 && counted &&
			       after.failed_count == before.failed_count
		       ? 0
		       : -1;
}

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
	printk("isr and thread: %s\n", isr_and_thread() == 0 ? "ok" : "FAILED");
	/* The ephemeral tensor of the stats table, again (the loop above reset it). */
	(void)syn_mem_tensor_alloc(activations, 4, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
	syn_zephyr_set_model(&sample_model);
	int rc = syn_zephyr_run(print, NULL);

	printk("syn run at boot: %s\n", rc == 0 ? "ok" : "FAILED");
	return 0;
}
