/*
 * Start-up code of the C firmware kit, for every Cortex-M (v6-M, v7-M, v7E-M, v8-M mainline):
 * the vector table, the reset handler (FPU on, .data copied from flash, .bss zeroed, the stack
 * painted to measure its peak, main(), exit with its status) and fault handlers that say which
 * fault, where, and why (CFSR/HFSR/MMFAR/BFAR on v7-M and later) before exiting with status 3.
 *
 * The symbols come from the linker script (boards/sections.ld): _sidata/_sdata/_edata (.data's
 * load and run addresses), _sbss/_ebss, __stack_bottom/__stack_top. The arena section
 * (.synaptic_arena) is NOLOAD and neither copied nor zeroed: the runtime needs no zeroed arena,
 * and a large arena would cost start-up time for nothing.
 */
#include <stdint.h>

#include "kit.h"

extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[];

int main(void);
void Reset_Handler(void);
void Fault_Handler(void);
void kit_fault_report(const uint32_t *frame, uint32_t exc_return);

#define STACK_PAINT 0x5AC5AC5Au

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)

/* No loop may become a memcpy/memset call here: .data and .bss are not set up yet (and a
 * firmware without the library has neither function). */
__attribute__((noreturn, used, optimize("no-tree-loop-distribute-patterns"))) void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* The hard-float ABI (thumbv7em-none-eabihf, thumbv8m.main-none-eabihf): CP10 and CP11 on
     * before any floating-point instruction, the runtime's included. */
    SCB_CPACR |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    for (uint32_t *src = _sidata, *dst = _sdata; dst < _edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = _sbss; dst < _ebss;) {
        *dst++ = 0;
    }
    /* Paint the stack below this frame: kit_stack_peak() finds the deepest word touched. */
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = __stack_bottom; p < sp - 16;) {
        *p++ = STACK_PAINT;
    }
    kit_exit(main());
}

size_t kit_stack_peak(void)
{
    const uint32_t *p = __stack_bottom;
    while (p < __stack_top && *p == STACK_PAINT) {
        p++;
    }
    return (size_t)((const uint8_t *)__stack_top - (const uint8_t *)p);
}

/* Every fault and unexpected interrupt: the stacked frame (MSP or PSP, by EXC_RETURN bit 2) to
 * kit_fault_report(). Thumb-1 instructions only, so that it also assembles for v6-M. */
__attribute__((naked)) void Fault_Handler(void)
{
    __asm volatile(
        "movs r0, #4\n\t"
        "mov r1, lr\n\t"
        "tst r0, r1\n\t"
        "beq 1f\n\t"
        "mrs r0, psp\n\t"
        "b 2f\n"
        "1:\n\t"
        "mrs r0, msp\n"
        "2:\n\t"
        "ldr r2, =kit_fault_report\n\t"
        "bx r2\n\t"
        ".ltorg\n");
}

__attribute__((noreturn, used)) void kit_fault_report(const uint32_t *frame, uint32_t exc_return)
{
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    static const char *const names[] = {"thread",  "reset",      "NMI",        "HardFault",
                                        "MemManage", "BusFault", "UsageFault", "SecureFault"};
    uint32_t exc = ipsr & 0x1FFu;
    kit_write("syn-kit: FAULT ");
    if (exc < sizeof names / sizeof names[0]) {
        kit_write(names[exc]);
    } else {
        kit_write("unexpected exception ");
        kit_write_u32(exc);
        if (exc >= 16) {
            kit_write(" (IRQ ");
            kit_write_u32(exc - 16);
            kit_write(")");
        }
    }
    /* The stacked frame: r0 r1 r2 r3 r12 lr pc xpsr. */
    kit_write(" pc ");
    kit_write_x32(frame[6]);
    kit_write(" lr ");
    kit_write_x32(frame[5]);
    kit_write(" xpsr ");
    kit_write_x32(frame[7]);
    kit_write(" sp ");
    kit_write_x32((uint32_t)(uintptr_t)frame);
    kit_write(" exc_return ");
    kit_write_x32(exc_return);
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
    uint32_t cfsr = SCB_CFSR;
    kit_write(" cfsr ");
    kit_write_x32(cfsr);
    kit_write(" hfsr ");
    kit_write_x32(SCB_HFSR);
    if (cfsr & (1u << 7)) { /* MMARVALID */
        kit_write(" mmfar ");
        kit_write_x32(SCB_MMFAR);
    }
    if (cfsr & (1u << 15)) { /* BFARVALID */
        kit_write(" bfar ");
        kit_write_x32(SCB_BFAR);
    }
    if (cfsr & (1u << 16)) {
        kit_write(" (undefined instruction: the runtime's panic handler traps with udf)");
    }
    if (cfsr & (1u << 19)) {
        kit_write(" (no coprocessor: FPU off?)");
    }
#endif
    kit_write("\n");
    kit_exit(3);
}

/* The vector table: 16 system entries, then the board's interrupts (48 here; none is enabled
 * by this firmware, so any that fires is reported as unexpected). Entries 7-10 and 13 are
 * reserved by the architecture (7 is SecureFault on v8-M with the Security Extension). */
typedef void (*vector_t)(void);
#define F8 Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, \
           Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler
__attribute__((section(".vectors"), used)) const vector_t kit_vectors[16 + 48] = {
    (vector_t)(uintptr_t)__stack_top, /* initial MSP */
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    Fault_Handler, /* SecureFault */
    0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    Fault_Handler, /* SysTick */
    F8, F8, F8, F8, F8, F8, /* IRQ 0..47 */
};
