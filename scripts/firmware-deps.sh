# Sourced by scripts/test-firmware.sh and scripts/bench-firmware.sh: installs what the
# firmware needs if it is missing (apt: qemu-system-arm, the Arm GCC with newlib, Arm
# binutils, python3; rustup: the thumbv7m/thumbv6m/thumbv7em-hf/thumbv8m.main-hf targets).
sudo_=()
if [ "$(id -u)" -ne 0 ]; then sudo_=(sudo); fi
pkgs=()
command -v qemu-system-arm >/dev/null 2>&1 || pkgs+=(qemu-system-arm)
command -v arm-none-eabi-gcc >/dev/null 2>&1 || pkgs+=(gcc-arm-none-eabi)
[ -f /usr/lib/arm-none-eabi/include/errno.h ] || pkgs+=(libnewlib-arm-none-eabi)
command -v arm-none-eabi-objdump >/dev/null 2>&1 || pkgs+=(binutils-arm-none-eabi)
command -v python3 >/dev/null 2>&1 || pkgs+=(python3)
if [ "${#pkgs[@]}" -gt 0 ]; then
  echo "==> installing ${pkgs[*]}"
  "${sudo_[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_[@]}" apt-get install -y --no-install-recommends "${pkgs[@]}"
fi
installed=$(rustup target list --installed)
for t in thumbv7m-none-eabi thumbv6m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done
