#!/usr/bin/env bash
# The C release kit, in one command: the syn_run C library (crates/synaptic-run-ffi, which also
# holds the syn_mem API) and the syn_mem-only library (crates/synaptic-mem-ffi), built for
# speed (root Cargo.toml's `release-speed`: opt-level 3, fat LTO, one codegen unit, panic abort;
# thumbv6m-none-eabi for size, `release-min`: see profile_of below) for every Cortex-M target
# and the host, with the headers, a CMake package
# (find_package(synaptic) + target_link_libraries(app synaptic::run)), pkg-config files, the
# host `synmem` (to emit a model's header) and the C firmware template:
#
#   target/release-kit/
#     include/synaptic/syn_run.h, syn_mem.h
#     lib/<target>/libsynaptic_run_ffi.a          bare metal: own single-core critical section, int8 + float32
#     lib/<target>/int8/libsynaptic_run_ffi.a     the same without the float32 kernels
#     lib/<target>/rtos/libsynaptic_run_ffi.a     the RTOS provides _critical_section_1_0_acquire/_release
#     lib/<target>/rtos-int8/libsynaptic_run_ffi.a
#     lib/<target>/libsynaptic_mem_ffi.a          syn_mem only (and rtos/libsynaptic_mem_ffi.a)
#     lib/<target>/pkgconfig/synaptic-run.pc      (+ synaptic-run-int8, -rtos, -rtos-int8, synaptic-mem)
#     lib/cmake/synaptic/synapticConfig.cmake, synapticConfigVersion.cmake
#     bin/synmem                                  host CLI: plan, emit --lang c --with-model, run
#     share/synaptic/c-firmware/                  the firmware template (examples/c-firmware)
#     MANIFEST                                    commit, toolchain, features and sha256 of every library
#
# Targets: thumbv6m-none-eabi (Cortex-M0/M0+/M1), thumbv7m-none-eabi (M3; M4/M7 soft-float),
# thumbv7em-none-eabihf (M4F/M7F), thumbv8m.main-none-eabihf (M33/M35P/M55 with FPU), and the
# host (std: its own critical section; variants default and int8 only).
#
#   scripts/release.sh                      # everything (27 libraries: minutes cold on 2 cores, ~30 s warm)
#   scripts/release.sh --targets "thumbv7m-none-eabi thumbv7em-none-eabihf" --variants "default int8"
#   scripts/release.sh --out DIR --no-host --sizes   # --sizes: then scripts/code-size.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

OUT=$ROOT/target/release-kit
TARGETS="thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf"
VARIANTS="default int8 rtos rtos-int8"
HOST=1
SIZES=0
# Each target's build, chosen by measurement (scripts/bench-kit.sh, docs/c-firmware.md#speed):
# for speed (profile `release-speed`: opt-level 3, fat LTO), thumbv7em-none-eabihf tuned for the
# Cortex-M4 (`-C target-cpu=cortex-m4`: 16-21 % fewer instructions than the generic v7E-M
# code, as the Rust firmware builds), except thumbv6m-none-eabi at `release-min` (opt-level
# "z"): the Cortex-M0 parts have the least flash (the micro:bit image holds the library with
# every int8 operator only at "z": at "s" it overflowed by 212 B at 8073409). SYNAPTIC_PROFILE=<profile> builds every target at one
# profile; SYNAPTIC_TARGET_CPU=<cpu|generic> sets thumbv7em's tuning (by default the M4's at
# release-speed only: at opt-level "s" it ran more instructions, not fewer).
profile_of() { # TARGET
    if [ -n "${SYNAPTIC_PROFILE:-}" ]; then
        echo "$SYNAPTIC_PROFILE"
    else
        case "$1" in thumbv6m-*) echo release-min ;; *) echo release-speed ;; esac
    fi
}
cpu_of() { # TARGET
    local cpu=${SYNAPTIC_TARGET_CPU:-}
    if [ -z "$cpu" ]; then
        [ "$(profile_of "$1")" = release-speed ] && cpu=cortex-m4 || cpu=generic
    fi
    case "$1" in
        thumbv7em-*) [ "$cpu" = generic ] || echo "$cpu" ;;
    esac
}
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit "${1:-0}"
}
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
        --targets) TARGETS=$2; shift 2 ;;
        --variants) VARIANTS=$2; shift 2 ;;
        --no-host) HOST=0; shift ;;
        --sizes) SIZES=1; shift ;;
        -h | --help) usage 0 ;;
        *) echo "release: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
done
log() { echo "release: $*"; }

for v in $VARIANTS; do
    case "$v" in default | int8 | rtos | rtos-int8) ;; *) echo "release: unknown variant '$v'" >&2; exit 2 ;; esac
done

# ---- tools ------------------------------------------------------------------------------------
command -v cargo >/dev/null || { echo "release: cargo not found (install rustup)" >&2; exit 1; }
installed=$(rustup target list --installed 2>/dev/null || true)
for t in $TARGETS; do
    if ! grep -qx "$t" <<<"$installed"; then
        log "rustup target add $t"
        rustup target add "$t"
    fi
done
STRIP_ARM=$(command -v arm-none-eabi-strip || true)
NM_ARM=$(command -v arm-none-eabi-nm || true)
[ -n "$STRIP_ARM" ] || log "arm-none-eabi-strip not found: the Cortex-M libraries keep their debug info"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
host_triple=$(rustc -vV | sed -n 's/^host: //p')

mkdir -p "$OUT/include/synaptic" "$OUT/lib/cmake/synaptic" "$OUT/bin" "$OUT/share/synaptic"
manifest=$OUT/MANIFEST.tmp
{
    echo "synaptic C release kit $version"
    echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- crates Cargo.toml Cargo.lock 2>/dev/null || echo ' (crates/ modified)')"
    echo "rustc $(rustc -V | cut -d' ' -f2-)"
    for p in release-min release-size release-speed ${SYNAPTIC_PROFILE:-}; do
        echo "profile $p ($(sed -n "/^\[profile.$p\]/,/^\[/p" Cargo.toml | grep -v '^\[\|^#\|^$' | tr '\n' ' '))"
    done | sort -u
    # A library cut to a model's operators names them (the devices' libraries only).
    [ -n "${SYNAPTIC_RUN_OPS:-}" ] && echo "SYNAPTIC_RUN_OPS $SYNAPTIC_RUN_OPS"
    [ -n "${SYNAPTIC_RUN_PATHS:-}" ] && echo "SYNAPTIC_RUN_PATHS $SYNAPTIC_RUN_PATHS"
    echo
    echo "library features profile target-cpu sha256"
} >"$manifest"

# features_of VARIANT HOST(0|1) -> the cargo features (a device library's with
# SYNAPTIC_RUN_FEATURES appended: e.g. program-given-only, a library that loads only a program
# given and links no compiler)
features_of() {
    case "$1:$2" in
        *:0) features_of_base "$1" "$2" | sed "s/\$/${SYNAPTIC_RUN_FEATURES:+,$SYNAPTIC_RUN_FEATURES}/" ;;
        *) features_of_base "$1" "$2" ;;
    esac
}
features_of_base() {
    case "$1:$2" in
        default:0) echo cortex-m-single-core,float32,lstm,signal ;;
        int8:0) echo cortex-m-single-core,lstm,signal ;;
        rtos:0) echo float32,lstm,signal ;;
        rtos-int8:0) echo lstm,signal ;;
        default:1) echo std,float32,lstm,signal ;;
        int8:1) echo std,lstm,signal ;;
    esac
}
# build CRATE TARGET FEATURES DEST_DIR
build() {
    local crate=$1 t=$2 feats=$3 dest=$4 lib profile cpu env=()
    lib=lib$(tr - _ <<<"$crate").a
    profile=$(profile_of "$t")
    cpu=$(cpu_of "$t")
    # The tuning for every crate of the target (the dependencies too: LTO keeps each
    # function's own), by the target's RUSTFLAGS variable.
    [ -n "$cpu" ] && env=("CARGO_TARGET_$(tr 'a-z.-' 'A-Z__' <<<"$t")_RUSTFLAGS=-C target-cpu=$cpu")
    # `cargo rustc --crate-type staticlib`: the crates' crate-type is [staticlib, rlib], and with
    # an rlib among them cargo does not apply the profile's LTO (it only embeds bitcode):
    # ~20 KB more flash on a Cortex-M3 and LLVM bitcode in every archive member.
    local args=(rustc -q -p "$crate" --lib --crate-type staticlib --profile "$profile"
        --no-default-features --target "$t")
    [ -n "$feats" ] && args+=(--features "$feats")
    log "${env[*]} cargo ${args[*]}"
    env "${env[@]}" nice cargo "${args[@]}"
    mkdir -p "$dest"
    cp "$target_dir/$t/$profile/$lib" "$dest/$lib.tmp"
    if [[ "$t" == thumb* ]]; then
        [ -n "$STRIP_ARM" ] && "$STRIP_ARM" --strip-debug "$dest/$lib.tmp"
    else
        strip --strip-debug "$dest/$lib.tmp" 2>/dev/null || true
    fi
    mv "$dest/$lib.tmp" "$dest/$lib"
    echo "${dest#"$OUT"/}/$lib ${feats:-(none)} $profile ${cpu:-generic} $(sha256sum "$dest/$lib" | cut -c1-64)" >>"$manifest"
}
# The critical section of a Cortex-M library: defined (bare metal) or left to the RTOS.
check_cs() { # LIB VARIANT
    [ -n "$NM_ARM" ] || return 0
    local syms
    syms=$("$NM_ARM" "$1" 2>/dev/null | grep ' _critical_section_1_0_acquire$' || true)
    case "$2" in
        rtos*) grep -q ' U ' <<<"$syms" && ! grep -q ' T ' <<<"$syms" \
            || { echo "release: $1 should leave _critical_section_1_0_acquire to the RTOS" >&2; return 1; } ;;
        *) grep -q ' T ' <<<"$syms" \
            || { echo "release: $1 does not define _critical_section_1_0_acquire" >&2; return 1; } ;;
    esac
}
subdir() { [ "$1" = default ] && echo "" || echo "/$1"; }

pc() { # DIR NAME LIBNAME DESCRIPTION LIBDIR_SUFFIX EXTRA_LIBS
    cat >"$1/pkgconfig/$2.pc" <<PC
prefix=\${pcfiledir}/../../..
includedir=\${prefix}/include
libdir=\${pcfiledir}/..$5

Name: $2
Description: $4
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -l$3$6
PC
}

# ---- Cortex-M libraries ----------------------------------------------------------------------
for t in $TARGETS; do
    dir=$OUT/lib/$t
    mkdir -p "$dir/pkgconfig"
    for v in $VARIANTS; do
        build synaptic-run-ffi "$t" "$(features_of "$v" 0)" "$dir$(subdir "$v")"
        check_cs "$dir$(subdir "$v")/libsynaptic_run_ffi.a" "$v"
        name=synaptic-run$( [ "$v" = default ] || echo "-$v")
        what="syn_run + syn_mem C API for $t ($v: $(features_of "$v" 0 | sed 's/^$/external critical section, int8 only/'))"
        pc "$dir" "$name" synaptic_run_ffi "$what" "$(subdir "$v")" ""
    done
    # syn_mem only (the smallest library): bare metal and RTOS.
    if grep -qw default <<<"$VARIANTS"; then
        build synaptic-mem-ffi "$t" cortex-m-single-core "$dir"
        pc "$dir" synaptic-mem synaptic_mem_ffi "syn_mem C API only for $t (single-core critical section)" "" ""
    fi
    if grep -qw rtos <<<"$VARIANTS"; then
        build synaptic-mem-ffi "$t" "" "$dir/rtos"
        pc "$dir" synaptic-mem-rtos synaptic_mem_ffi "syn_mem C API only for $t (external critical section)" "/rtos" ""
    fi
done

# ---- host ---------------------------------------------------------------------------------------
if [ "$HOST" = 1 ]; then
    dir=$OUT/lib/$host_triple
    mkdir -p "$dir/pkgconfig"
    for v in default int8; do
        grep -qw "$v" <<<"$VARIANTS" || continue
        build synaptic-run-ffi "$host_triple" "$(features_of "$v" 1)" "$dir$(subdir "$v")"
        pc "$dir" "synaptic-run$( [ "$v" = default ] || echo "-$v")" synaptic_run_ffi \
            "syn_run + syn_mem C API for the host ($v)" "$(subdir "$v")" " -lpthread -ldl -lm"
    done
    build synaptic-mem-ffi "$host_triple" std "$dir"
    pc "$dir" synaptic-mem synaptic_mem_ffi "syn_mem C API only for the host" "" " -lpthread -ldl -lm"
    log "cargo build -q --release -p synmem"
    nice cargo build -q --release -p synmem
    cp "$target_dir/release/synmem" "$OUT/bin/synmem.tmp"
    strip "$OUT/bin/synmem.tmp" 2>/dev/null || true
    mv "$OUT/bin/synmem.tmp" "$OUT/bin/synmem"
fi

# ---- headers, CMake package, template ---------------------------------------------------------
cp crates/synaptic-mem-ffi/include/synaptic/syn_mem.h crates/synaptic-run-ffi/include/synaptic/syn_run.h \
    "$OUT/include/synaptic/"
rm -rf "$OUT/share/synaptic/c-firmware"
mkdir -p "$OUT/share/synaptic/c-firmware"
(cd examples/c-firmware && tar --exclude=build -cf - .) | (cd "$OUT/share/synaptic/c-firmware" && tar -xf -)
[ -f docs/c-firmware.md ] && cp docs/c-firmware.md "$OUT/share/synaptic/c-firmware/GUIDE.md"

cat >"$OUT/lib/cmake/synaptic/synapticConfigVersion.cmake" <<CMAKE
# synaptic $version: compatible with a request of the same 0.minor (or major, from 1.0) version.
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(PACKAGE_FIND_VERSION_MAJOR STREQUAL "0" AND NOT PACKAGE_FIND_VERSION_MINOR STREQUAL "$(cut -d. -f2 <<<"$version")")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "$(cut -d. -f1 <<<"$version")")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
CMAKE

cat >"$OUT/lib/cmake/synaptic/synapticConfig.cmake" <<'CMAKE'
# The synaptic C libraries (scripts/release.sh): find_package(synaptic) then
#   target_link_libraries(app PRIVATE synaptic::run)   # syn_run.h + syn_mem.h, one library
#   target_link_libraries(app PRIVATE synaptic::mem)   # syn_mem.h only (never both)
#
# Which library:
#   SYNAPTIC_TARGET            the Rust target: thumbv6m-none-eabi, thumbv7m-none-eabi,
#                              thumbv7em-none-eabihf, thumbv8m.main-none-eabihf or the host's
#                              triple. Default: from CMAKE_SYSTEM_PROCESSOR and CMAKE_C_FLAGS
#                              (-mcpu=cortex-mN, -mfloat-abi=hard), the host when not
#                              cross-compiling.
#   SYNAPTIC_FLOAT32           ON (default): the float32 kernels too; OFF: int8 only (smaller)
#   SYNAPTIC_CRITICAL_SECTION  single-core (default on Cortex-M: the library masks interrupts
#                              itself, bare metal) or external (an RTOS defines
#                              _critical_section_1_0_acquire/_release, see docs/c-firmware.md)
# Sets synaptic_LIBRARY, synaptic_MEM_LIBRARY, synaptic_INCLUDE_DIR, synaptic_RUST_TARGET,
# synaptic_VARIANT (default, int8, rtos, rtos-int8).
get_filename_component(_syn_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT SYNAPTIC_TARGET)
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR} ${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_INIT}" _syn_f)
  if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_SYSTEM_NAME STREQUAL "Generic")
    execute_process(COMMAND rustc -vV OUTPUT_VARIABLE _syn_rustc ERROR_QUIET)
    if(_syn_rustc MATCHES "host: ([^\n]+)")
      set(SYNAPTIC_TARGET "${CMAKE_MATCH_1}")
    elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$" AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
      set(SYNAPTIC_TARGET x86_64-unknown-linux-gnu)
    endif()
  elseif(_syn_f MATCHES "cortex-m0|cortex-m1|armv6-m|armv6s-m")
    set(SYNAPTIC_TARGET thumbv6m-none-eabi)
  elseif(_syn_f MATCHES "cortex-m23|armv8-m\\.base")
    set(SYNAPTIC_TARGET thumbv6m-none-eabi)   # v8-M baseline runs v6-M code
  elseif(_syn_f MATCHES "cortex-m33|cortex-m35p|cortex-m55|cortex-m85|armv8-m\\.main|armv8\\.1-m")
    if(_syn_f MATCHES "-mfloat-abi=hard")
      set(SYNAPTIC_TARGET thumbv8m.main-none-eabihf)
    else()
      set(SYNAPTIC_TARGET thumbv7m-none-eabi)   # soft-float: v7-M code runs on v8-M mainline
    endif()
  elseif(_syn_f MATCHES "cortex-m4|cortex-m7|armv7e-m")
    if(_syn_f MATCHES "-mfloat-abi=hard")
      set(SYNAPTIC_TARGET thumbv7em-none-eabihf)
    else()
      set(SYNAPTIC_TARGET thumbv7m-none-eabi)
    endif()
  elseif(_syn_f MATCHES "cortex-m3|armv7-m")
    set(SYNAPTIC_TARGET thumbv7m-none-eabi)
  endif()
  if(NOT SYNAPTIC_TARGET)
    set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
    set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
        "cannot tell the Rust target from CMAKE_SYSTEM_PROCESSOR '${CMAKE_SYSTEM_PROCESSOR}' and the flags: set SYNAPTIC_TARGET")
    return()
  endif()
endif()
set(SYNAPTIC_TARGET "${SYNAPTIC_TARGET}" CACHE STRING "Rust target of the synaptic library")
option(SYNAPTIC_FLOAT32 "synaptic: link the library with the float32 kernels" ON)
if(SYNAPTIC_TARGET MATCHES "^thumb")
  set(SYNAPTIC_CRITICAL_SECTION "single-core" CACHE STRING "synaptic: single-core or external (RTOS)")
else()
  set(SYNAPTIC_CRITICAL_SECTION "std" CACHE STRING "synaptic: the host library's own (std)")
endif()

set(synaptic_RUST_TARGET "${SYNAPTIC_TARGET}")
if(SYNAPTIC_CRITICAL_SECTION STREQUAL "external")
  set(synaptic_VARIANT rtos)
elseif(SYNAPTIC_CRITICAL_SECTION MATCHES "^(single-core|std)$")
  set(synaptic_VARIANT default)
else()
  set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
  set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE "SYNAPTIC_CRITICAL_SECTION '${SYNAPTIC_CRITICAL_SECTION}': single-core or external")
  return()
endif()
if(NOT SYNAPTIC_FLOAT32)
  if(synaptic_VARIANT STREQUAL "default")
    set(synaptic_VARIANT int8)
  else()
    set(synaptic_VARIANT rtos-int8)
  endif()
endif()
set(_syn_libdir "${_syn_prefix}/lib/${SYNAPTIC_TARGET}")
if(synaptic_VARIANT STREQUAL "default")
  set(_syn_vdir "${_syn_libdir}")
else()
  set(_syn_vdir "${_syn_libdir}/${synaptic_VARIANT}")
endif()
set(synaptic_INCLUDE_DIR "${_syn_prefix}/include")
set(synaptic_LIBRARY "${_syn_vdir}/libsynaptic_run_ffi.a")
if(synaptic_VARIANT MATCHES "^rtos")
  set(synaptic_MEM_LIBRARY "${_syn_libdir}/rtos/libsynaptic_mem_ffi.a")
else()
  set(synaptic_MEM_LIBRARY "${_syn_libdir}/libsynaptic_mem_ffi.a")
endif()
if(NOT EXISTS "${synaptic_LIBRARY}")
  set(${CMAKE_FIND_PACKAGE_NAME}_FOUND FALSE)
  set(${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND_MESSAGE
      "${synaptic_LIBRARY} is not in this kit (scripts/release.sh --targets ${SYNAPTIC_TARGET} --variants ${synaptic_VARIANT})")
  return()
endif()

set(_syn_extra "")
if(NOT SYNAPTIC_TARGET MATCHES "^thumb")
  set(_syn_extra pthread dl m)
endif()
if(NOT TARGET synaptic::run)
  add_library(synaptic::run STATIC IMPORTED)
  set_target_properties(synaptic::run PROPERTIES
    IMPORTED_LOCATION "${synaptic_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${synaptic_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${_syn_extra}")
endif()
if(NOT TARGET synaptic::mem AND EXISTS "${synaptic_MEM_LIBRARY}")
  add_library(synaptic::mem STATIC IMPORTED)
  set_target_properties(synaptic::mem PROPERTIES
    IMPORTED_LOCATION "${synaptic_MEM_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${synaptic_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${_syn_extra}")
endif()
set(synaptic_FOUND TRUE)
CMAKE

{
    cat "$manifest"
    echo
    echo "layout: include/synaptic, lib/<target>[/int8|/rtos|/rtos-int8], lib/<target>/pkgconfig,"
    echo "        lib/cmake/synaptic, bin/synmem, share/synaptic/c-firmware"
} >"$OUT/MANIFEST"
rm -f "$manifest"
log "kit in ${OUT#"$ROOT"/}:"
(cd "$OUT" && find lib -name '*.a' -printf '  %p %s B\n' | sort)

if [ "$SIZES" = 1 ]; then
    exec scripts/code-size.sh --kit "$OUT"
fi
