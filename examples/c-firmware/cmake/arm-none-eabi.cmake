# CMake toolchain file of the C firmware kit: arm-none-eabi-gcc (Debian: gcc-arm-none-eabi), bare
# metal, for one Cortex-M CPU. The CPU sets the compiler flags and CMAKE_SYSTEM_PROCESSOR, from
# which synapticConfig.cmake picks the Rust target's library (or set SYNAPTIC_TARGET):
#
#   KIT_CPU        Rust target                  flags
#   cortex-m0plus  thumbv6m-none-eabi           -mcpu=cortex-m0plus              (also cortex-m0, -m1)
#   cortex-m3      thumbv7m-none-eabi           -mcpu=cortex-m3
#   cortex-m4      thumbv7m-none-eabi           -mcpu=cortex-m4 -mfloat-abi=soft (no FPU used)
#   cortex-m4f     thumbv7em-none-eabihf        -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
#   cortex-m7f     thumbv7em-none-eabihf        -mcpu=cortex-m7 -mfpu=fpv5-sp-d16 -mfloat-abi=hard
#   cortex-m33f    thumbv8m.main-none-eabihf    -mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard
#
# KIT_CPU defaults to the board's (KIT_BOARD): mps2-an385 and lm3s6965evb cortex-m3, mps2-an386
# cortex-m4f, mps2-an505 cortex-m33f, microbit cortex-m0.
#   cmake -S examples/c-firmware -B build -DCMAKE_TOOLCHAIN_FILE=examples/c-firmware/cmake/arm-none-eabi.cmake \
#         -DKIT_BOARD=mps2-an386 ...
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)   # no start-up code for CMake's probes

set(KIT_TOOLCHAIN_PREFIX "arm-none-eabi-" CACHE STRING "prefix of the GNU Arm tools")
set(CMAKE_C_COMPILER ${KIT_TOOLCHAIN_PREFIX}gcc)
set(CMAKE_ASM_COMPILER ${KIT_TOOLCHAIN_PREFIX}gcc)
set(CMAKE_OBJCOPY ${KIT_TOOLCHAIN_PREFIX}objcopy CACHE FILEPATH "objcopy")
set(CMAKE_SIZE ${KIT_TOOLCHAIN_PREFIX}size CACHE FILEPATH "size")

if(NOT KIT_CPU)
  if(KIT_BOARD STREQUAL "mps2-an386")
    set(KIT_CPU cortex-m4f)
  elseif(KIT_BOARD STREQUAL "mps2-an505")
    set(KIT_CPU cortex-m33f)
  elseif(KIT_BOARD STREQUAL "microbit")
    set(KIT_CPU cortex-m0)
  else()
    set(KIT_CPU cortex-m3)
  endif()
endif()
set(KIT_CPU "${KIT_CPU}" CACHE STRING "Cortex-M CPU: cortex-m0plus, cortex-m3, cortex-m4, cortex-m4f, cortex-m7f, cortex-m33f")

if(KIT_CPU MATCHES "^cortex-m(0|0plus|1)$")
  set(_kit_cpu_flags "-mcpu=${KIT_CPU} -mthumb -mfloat-abi=soft")
elseif(KIT_CPU MATCHES "^cortex-m(3|4)$")
  set(_kit_cpu_flags "-mcpu=${KIT_CPU} -mthumb -mfloat-abi=soft")
elseif(KIT_CPU STREQUAL "cortex-m4f")
  set(_kit_cpu_flags "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
elseif(KIT_CPU STREQUAL "cortex-m7f")
  set(_kit_cpu_flags "-mcpu=cortex-m7 -mthumb -mfpu=fpv5-sp-d16 -mfloat-abi=hard")
elseif(KIT_CPU STREQUAL "cortex-m33f")
  set(_kit_cpu_flags "-mcpu=cortex-m33 -mthumb -mfpu=fpv5-sp-d16 -mfloat-abi=hard")
else()
  message(FATAL_ERROR "KIT_CPU '${KIT_CPU}': not one of cortex-m0, cortex-m0plus, cortex-m1, cortex-m3, cortex-m4, cortex-m4f, cortex-m7f, cortex-m33f")
endif()
string(REGEX REPLACE "f$" "" CMAKE_SYSTEM_PROCESSOR "${KIT_CPU}")

set(CMAKE_C_FLAGS_INIT "${_kit_cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${_kit_cpu_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_kit_cpu_flags} -nostdlib -nostartfiles -Wl,--gc-sections -Wl,-z,noexecstack")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
