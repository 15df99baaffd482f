#!/usr/bin/env bash
# Runs the Neovim test (test/lsp_test.lua) headless against a freshly built
# gram-lsp. Installs Debian's neovim (0.7 on bookworm) when nvim is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if ! command -v nvim >/dev/null; then
  echo "neovim: installing Debian's neovim"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq neovim
fi
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && ${GO:-go} build -o "$bin/gram-lsp" ./cmd/gram-lsp)
nvim --version | head -n 1
# The test's own timeouts end it; this one ends a Neovim that hangs.
PATH="$bin:$PATH" HOME="$bin" XDG_CONFIG_HOME="$bin/config" XDG_DATA_HOME="$bin/data" XDG_STATE_HOME="$bin/state" \
  timeout 120 nvim --headless --clean -c "luafile $here/test/lsp_test.lua"
