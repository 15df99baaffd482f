#!/usr/bin/env bash
# Installs what the playground's browser test needs beyond its npm packages
# (which make playground installs from package-lock.json): Debian's chromium,
# only when missing. puppeteer-core never downloads a browser of its own.
set -euo pipefail
if command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || [ -n "${CHROMIUM:-}" ]; then
  exit 0
fi
echo "playground: installing Debian's chromium"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
