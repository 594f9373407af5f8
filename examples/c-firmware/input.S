/*
 * The input bytes of the kit's inference, linked from a raw file (flash): assembled with
 * -DKIT_HAVE_INPUT and -Wa,-I,<dir of kit_input.bin> (the CMake and make builds copy
 * KIT_INPUT=<file> there). A real firmware fills the input from its sensor instead.
 */
    .section .rodata.kit_input, "a"
    .balign 16
    .global kit_input
    .global kit_input_end
kit_input:
    .incbin "kit_input.bin"
kit_input_end:

    .section .note.GNU-stack, "", %progbits
