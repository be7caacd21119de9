#!/usr/bin/env bash
# System packages the platform needs: bubblewrap and libseccomp for the bot sandbox.
# Installs only what is missing; needs root (or sudo) the first time.
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || need+=(libseccomp2)
if [ "${LINEIT_BROWSER_TESTS:-1}" = "1" ] && [ -n "${LINEIT_NEED_CHROMIUM:-}" ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "installing system packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
