/*
 * The kit's console and exit over Arm semihosting (QEMU: -semihosting-config enable=on; a
 * board: a debugger with semihosting on, e.g. OpenOCD's `arm semihosting enable`). Without a
 * debugger attached the bkpt instruction faults: on a real board replace these two functions
 * (kit_write: the UART's transmit loop; kit_exit: a halt or reset), see docs/c-firmware.md.
 */
#include <stdint.h>

#include "kit.h"

#define SYS_WRITE0 0x04u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm("r0") = op;
    register const void *r1 __asm("r1") = arg;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void kit_write(const char *s)
{
    (void)semihost(SYS_WRITE0, s);
}

void kit_write_hex(const uint8_t *bytes, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char line[65];
    while (len > 0) {
        size_t n = len < 32 ? len : 32, k = 0;
        for (size_t i = 0; i < n; i++) {
            line[k++] = digits[bytes[i] >> 4];
            line[k++] = digits[bytes[i] & 15u];
        }
        line[k] = '\0';
        kit_write(line);
        bytes += n;
        len -= n;
    }
}

void kit_write_u32(uint32_t v)
{
    char buf[11];
    char *p = buf + sizeof buf;
    *--p = '\0';
    do {
        *--p = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    kit_write(p);
}

void kit_write_i32(int32_t v)
{
    if (v < 0) {
        kit_write("-");
        kit_write_u32(0u - (uint32_t)v);
    } else {
        kit_write_u32((uint32_t)v);
    }
}

void kit_write_x32(uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    char buf[11];
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 8; i++) {
        buf[2 + i] = digits[(v >> (28 - 4 * i)) & 15u];
    }
    buf[10] = '\0';
    kit_write(buf);
}

_Noreturn void kit_exit(int status)
{
    /* SYS_EXIT_EXTENDED: QEMU exits with `status` (plain SYS_EXIT on 32-bit Arm only tells
     * success from failure). */
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    (void)semihost(SYS_EXIT_EXTENDED, block);
    for (;;) {
        __asm volatile("bkpt 0");
    }
}
