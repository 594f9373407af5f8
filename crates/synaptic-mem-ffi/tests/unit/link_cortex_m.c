/*
 * Links as a bare-metal C firmware would: arm-none-eabi-gcc, newlib's nosys stubs and the
 * library built with `cortex-m-single-core`, nothing else (scripts/test-ffi.sh). Without the
 * feature the link fails on _critical_section_1_0_acquire/_release: an RTOS defines them.
 */
#include "synaptic/syn_mem.h"

static unsigned char arena[8192] __attribute__((aligned(16)));

int main(void)
{
    return syn_mem_init(arena, sizeof arena);
}
