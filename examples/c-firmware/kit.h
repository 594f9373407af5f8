/*
 * The C firmware kit's board layer: console output and exit. On QEMU (and a board under a
 * debugger) both go over Arm semihosting; on a board without a debugger replace kit_write()
 * with the UART's transmit loop and kit_exit() with a reset or a halt (see docs/c-firmware.md).
 */
#ifndef SYN_KIT_H
#define SYN_KIT_H

#include <stddef.h>
#include <stdint.h>

/* Writes a NUL-terminated string to the console. */
void kit_write(const char *s);
/* Writes `len` bytes as lowercase hex, no separators. */
void kit_write_hex(const uint8_t *bytes, size_t len);
/* Writes an unsigned decimal / a signed decimal / 0x-prefixed 32-bit hex. */
void kit_write_u32(uint32_t v);
void kit_write_i32(int32_t v);
void kit_write_x32(uint32_t v);
/* Ends the program with `status` (QEMU exits with it). */
_Noreturn void kit_exit(int status);

/* The stack region (the linker script's symbols) and the bytes of it ever used. */
extern uint32_t __stack_bottom[];
extern uint32_t __stack_top[];
size_t kit_stack_peak(void);

#endif /* SYN_KIT_H */
