#!/usr/bin/env bash
# Installs what the workbench test needs: Debian's chromium and ripgrep (and the
# headers code-server's native modules build against), then code-server and
# puppeteer-core from this folder's package-lock.json. Safe to run again: npm
# runs only when package-lock.json changed since the last successful install.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" != 20 ]; then
  echo "workbench: code-server 4.100 (VS Code 1.100) needs Node.js 20; this is Node.js $(node --version)" >&2
  exit 1
fi

# Debian packages, installed only when missing.
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v rg >/dev/null || need+=(ripgrep)
command -v python3 >/dev/null || need+=(python3)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
[ -e /usr/include/krb5.h ] || [ -e /usr/include/krb5/krb5.h ] || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "workbench: installing Debian packages: ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi

stamp=node_modules/.gram-installed
if [ -f "$stamp" ] && cmp -s "$stamp" package-lock.json && [ -x node_modules/.bin/code-server ]; then
  exit 0
fi

# @vscode/ripgrep downloads a release from GitHub at install time; give it
# Debian's rg in the archive it looks for, in its cache under TMPDIR.
scratch="$here/../../build/workbench"
mkdir -p "$scratch/tmp"
export TMPDIR="$scratch/tmp"
for v in 1.15.11; do
  cache="$TMPDIR/vscode-ripgrep-cache-$v"
  mkdir -p "$cache/x"
  cp "$(command -v rg)" "$cache/x/rg"
  tar -czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$cache/x" rg
done

# code-server's postinstall runs npm in its bundled VS Code, whose native
# modules build with node-gyp (started through npx) against the installed Node.
export npm_config_yes=true
export npm_config_nodedir=/usr
export npm_config_unsafe_perm=true
export PUPPETEER_SKIP_DOWNLOAD=1
for try in 1 2; do
  if npm ci --no-audit --no-fund --loglevel=error; then
    cp package-lock.json "$stamp"
    exit 0
  fi
  echo "workbench: npm ci failed (attempt $try)" >&2
done
exit 1
