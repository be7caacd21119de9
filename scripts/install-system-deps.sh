#!/usr/bin/env bash
# System packages: bubblewrap and libseccomp for the bot sandbox, apparmor's parser for the
# deployment profile's test, Chromium for the browser tests.
# Installs only what is missing; needs root (or sudo) the first time.
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || need+=(libseccomp2)
# apparmor_parser compiles the worker container's AppArmor profile in the tests (deploy/).
command -v apparmor_parser >/dev/null 2>&1 || [ -x /sbin/apparmor_parser ] || need+=(apparmor)
# Browser tests drive Debian's Chromium (never a downloaded browser). `make run` skips it.
if [ "${LINEIT_BROWSER:-1}" = "1" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  [ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing system packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
