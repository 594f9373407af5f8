/*
 * scripts/code-size.sh: the smallest useful syn_mem firmware (libsynaptic_mem_ffi.a only): the
 * spec's calls of the README's C quickstart, statistics printed through the kit's console.
 */
#include <synaptic/syn_mem.h>

#include "kit.h"

static uint8_t arena[16384] __attribute__((section(".synaptic_arena"), aligned(16)));

static void print(const char *buf, size_t len, void *ctx)
{
    char line[128];
    (void)ctx;
    while (len > 0) {
        size_t n = len < sizeof line - 1 ? len : sizeof line - 1;
        for (size_t i = 0; i < n; i++) {
            line[i] = buf[i];
        }
        line[n] = '\0';
        kit_write(line);
        buf += n;
        len -= n;
    }
}

int main(void)
{
    if (syn_mem_init(arena, sizeof arena) != 0) {
        return 1;
    }
    syn_mem_set_print_fn(print, NULL);
    uint32_t shape[] = {1, 96, 96, 1};
    syn_tensor_t *w = syn_mem_tensor_alloc(shape, 2, SYN_NPU_DTYPE_INT8, SYN_MEM_PERSISTENT);
    syn_tensor_t *in = syn_mem_tensor_alloc(shape, 4, SYN_NPU_DTYPE_INT8, SYN_MEM_EPHEMERAL);
    void *tmp = syn_mem_scratch_acquire(256);
    syn_mem_scratch_release(tmp);
    syn_mem_reset_ephemeral();
    syn_mem_print_stats();
    return w == NULL || in == NULL || tmp == NULL;
}
