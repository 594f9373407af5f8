/*
 * The `syn` shell command: `syn mem stats` prints the arena's statistics table (the one
 * syn_mem_print_stats() prints, through the shell), `syn mem reset` reclaims the ephemeral
 * tensors and scratch, and with CONFIG_SYNAPTIC_RUN `syn run` runs the registered model once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>

#include <zephyr/shell/shell.h>

#include <synaptic/syn_zephyr.h>

static bool printed;

static void to_shell(const char *buf, size_t len, void *ctx)
{
	printed = true;
	shell_fprintf((const struct shell *)ctx, SHELL_NORMAL, "%.*s", (int)len, buf);
}

static int cmd_mem_stats(const struct shell *sh, size_t argc, char **argv)
{
	ARG_UNUSED(argc);
	ARG_UNUSED(argv);
	printed = false;
	syn_mem_set_print_fn(to_shell, (void *)sh);
	syn_mem_print_stats();
	syn_mem_set_print_fn(NULL, NULL);
	if (!printed) {
		/* Only before syn_mem_init(): it printed nothing and recorded the error. */
		shell_error(sh, "syn mem stats: %d (arena not initialised)", syn_mem_last_error());
		return -ENODEV;
	}
	return 0;
}

static int cmd_mem_reset(const struct shell *sh, size_t argc, char **argv)
{
	ARG_UNUSED(argc);
	ARG_UNUSED(argv);
	syn_mem_reset_ephemeral();
	shell_print(sh, "ephemeral tensors and scratch reclaimed");
	return 0;
}

#ifdef CONFIG_SYNAPTIC_RUN
static void shell_vprint(void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	shell_vfprintf((const struct shell *)ctx, SHELL_NORMAL, fmt, ap);
	va_end(ap);
}

static int cmd_run(const struct shell *sh, size_t argc, char **argv)
{
	ARG_UNUSED(argc);
	ARG_UNUSED(argv);
	return syn_zephyr_run(shell_vprint, (void *)sh);
}
#endif

SHELL_STATIC_SUBCMD_SET_CREATE(syn_mem_cmds,
	SHELL_CMD(stats, NULL, "Print the tensor arena's statistics table", cmd_mem_stats),
	SHELL_CMD(reset, NULL, "Reclaim ephemeral tensors and scratch (syn_mem_reset_ephemeral)",
		  cmd_mem_reset),
	SHELL_SUBCMD_SET_END);

SHELL_STATIC_SUBCMD_SET_CREATE(syn_cmds,
	SHELL_CMD(mem, &syn_mem_cmds, "Tensor arena", NULL),
#ifdef CONFIG_SYNAPTIC_RUN
	SHELL_CMD(run, NULL, "Run the registered model once; print outputs and RAM", cmd_run),
#endif
	SHELL_SUBCMD_SET_END);

SHELL_CMD_REGISTER(syn, &syn_cmds, "SynapticOS tensor memory", NULL);
