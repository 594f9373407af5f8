/*
 * synaptic-mem's Zephyr glue: the arena in its section, its initialisation at boot, the
 * critical section of the Rust library (critical-section 1.x's C ABI, restore state u32) and
 * the `syn run` model runner.
 */
#include <errno.h>
#include <string.h>

#include <zephyr/init.h>
#include <zephyr/irq.h>
#include <zephyr/kernel.h>
#include <zephyr/sys/printk.h>

#include <synaptic/syn_zephyr.h>

uint8_t syn_zephyr_arena[CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE]
	__attribute__((section(CONFIG_SYNAPTIC_ARENA_SECTION), aligned(16)));

/*
 * The library's critical section: irq_lock() masks interrupts on this CPU (and on SMP takes
 * Zephyr's global recursive lock), nests, and returns the key irq_unlock() restores.
 */
uint32_t _critical_section_1_0_acquire(void)
{
	return (uint32_t)irq_lock();
}

void _critical_section_1_0_release(uint32_t key)
{
	irq_unlock((unsigned int)key);
}

#ifdef CONFIG_SYNAPTIC_MEM_AUTO_INIT
static int syn_zephyr_init(void)
{
	int rc = syn_mem_init(syn_zephyr_arena, sizeof(syn_zephyr_arena));

	if (rc != 0) {
		printk("synaptic-mem: syn_mem_init failed: %d\n", rc);
	}
	return rc;
}

SYS_INIT(syn_zephyr_init, POST_KERNEL, CONFIG_APPLICATION_INIT_PRIORITY);
#endif

#ifdef CONFIG_SYNAPTIC_RUN
static const struct syn_zephyr_model *syn_model;
static syn_run_model_t syn_loaded;
static bool syn_is_loaded;

void syn_zephyr_set_model(const struct syn_zephyr_model *model)
{
	if (syn_is_loaded) {
		(void)syn_run_unload(&syn_loaded);
		syn_is_loaded = false;
	}
	syn_model = model;
}

static void print_error(void (*print)(void *, const char *, ...), void *ctx, const char *what,
			int rc)
{
	char msg[SYN_RUN_MESSAGE_MAX + 1];

	(void)syn_run_last_error_message(msg, sizeof(msg));
	print(ctx, "syn run: %s failed: %d (%s)\n", what, rc, msg);
}

int syn_zephyr_run(void (*print)(void *ctx, const char *fmt, ...), void *ctx)
{
	const struct syn_zephyr_model *m = syn_model;
	syn_run_memory_t mem;
	syn_run_io_info_t io;
	int rc;

	if (m == NULL) {
		print(ctx, "syn run: no model registered (syn_zephyr_set_model)\n");
		return -ENODEV;
	}
	if (!syn_is_loaded) {
		rc = syn_run_load(&syn_loaded, &m->config);
		if (rc != 0) {
			print_error(print, ctx, "syn_run_load", rc);
			return rc;
		}
		syn_is_loaded = true;
	}
	rc = syn_run_io_info(&syn_loaded, &io);
	if (rc == 0 && (io.output_bytes > m->output_size || io.input_bytes != m->input_size)) {
		print(ctx, "syn run: %s: input %u B (model %u), output room %u B (model %u)\n",
		      m->name, (unsigned)m->input_size, (unsigned)io.input_bytes,
		      (unsigned)m->output_size, (unsigned)io.output_bytes);
		return -EINVAL;
	}
	rc = rc != 0 ? rc
		     : syn_run_invoke_copy(&syn_loaded, m->input, m->input_size, m->output,
					   io.output_bytes);
	if (rc != 0) {
		print_error(print, ctx, "syn_run_invoke_copy", rc);
		return rc;
	}
	(void)syn_run_memory(&syn_loaded, &mem);
	print(ctx, "syn run: %s: %u output bytes:", m->name, (unsigned)io.output_bytes);
	for (size_t i = 0; i < io.output_bytes && i < 16; i++) {
		print(ctx, " %d", ((const int8_t *)m->output)[i]);
	}
	print(ctx, "%s\n", io.output_bytes > 16 ? " ..." : "");
	print(ctx, "syn run: %s: RAM %u B (persistent %u + planned %u + scratch %u + shared %u), "
		   "program in flash %u B\n",
	      m->name, (unsigned)mem.total, (unsigned)mem.persistent, (unsigned)mem.planned,
	      (unsigned)mem.scratch, (unsigned)mem.shared, (unsigned)mem.program_flash);
#if defined(CONFIG_INIT_STACKS) && defined(CONFIG_THREAD_STACK_INFO)
	size_t unused;

	if (k_thread_stack_space_get(k_current_get(), &unused) == 0) {
		print(ctx, "syn run: %s: stack peak of this thread so far: %u of %u B\n",
		      m->name, (unsigned)(k_current_get()->stack_info.size - unused),
		      (unsigned)k_current_get()->stack_info.size);
	}
#endif
	if (m->expected != NULL) {
		bool same = m->expected_size == io.output_bytes &&
			    memcmp(m->expected, m->output, io.output_bytes) == 0;
		print(ctx, "syn run: %s: output %s the host's\n", m->name,
		      same ? "equals" : "DIFFERS FROM");
		if (!same) {
			return -EIO;
		}
	}
	return 0;
}
#endif
