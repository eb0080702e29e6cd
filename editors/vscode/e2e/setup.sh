#!/bin/sh
# Installs what e2e/run.mjs needs into a prefix (default
# ~/.cache/agentls-e2e): code-server 4.100.3 (VS Code 1.100.3, the last
# release that runs on Node 20) and playwright-core; and, as root with
# apt-get, Debian's Chromium, ripgrep and the headers code-server's native
# modules build against (only those missing; the package lists are
# fetched first then, as a fresh machine has none). .ci/run runs it
# before e2e/run.mjs. About two and a half minutes on 2 cores; a second
# run finds everything in place and takes seconds.
#
# Offline-safe where only the package registries are reached (npm,
# Debian): the native modules build against the system Node's own headers
# (npm_config_nodedir=/usr, from the nodejs package's /usr/include/node),
# so node-gyp does not download them, and nothing fetches a browser or a
# binary of its own.
#
# code-server's own postinstall does not work here: npm 11 does not run
# install scripts unless allowed, code-server refuses to install as root
# without npm's removed --unsafe-perm, and @vscode/ripgrep downloads its
# binary from GitHub. So its steps are done by hand: packages installed
# with --ignore-scripts, the native modules rebuilt, ripgrep taken from the
# system, and the symlinks the postinstall would make.
set -eu

prefix=${AGENTLS_E2E_PREFIX:-$HOME/.cache/agentls-e2e}

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  missing=
  for pkg in chromium ripgrep build-essential pkg-config python3 \
    libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # shellcheck disable=SC2086 # one word per package
    apt-get install -y --no-install-recommends $missing
  fi
fi
command -v rg >/dev/null || { echo "setup: ripgrep (rg) is needed" >&2; exit 1; }
command -v chromium >/dev/null || [ -n "${CHROMIUM:-}" ] || { echo "setup: Chromium is needed (Debian's chromium, or CHROMIUM=/path)" >&2; exit 1; }
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

# A finished install leaves this mark: a second run has nothing to do.
done_mark="$prefix/.agentls-e2e-code-server-4.100.3"
if [ -f "$done_mark" ] && [ -f "$prefix/node_modules/code-server/out/node/entry.js" ]; then
  echo "setup: code-server and playwright-core are already in $prefix"
  exit 0
fi

mkdir -p "$prefix"
cd "$prefix"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund --ignore-scripts code-server@4.100.3 playwright-core
npm rebuild argon2

vscode="$prefix/node_modules/code-server/lib/vscode"
cd "$vscode"
npm install --no-audit --no-fund --omit=dev --ignore-scripts
for m in kerberos @vscode/spdlog native-watchdog @vscode/deviceid node-pty; do
  # node-pty's post-install step (compile_commands.json for its
  # developers) fails offline after the module is built.
  npm rebuild "$m" || echo "setup: npm rebuild $m failed; checking its binary"
done
[ -f node_modules/node-pty/build/Release/pty.node ] || { echo "setup: node-pty did not build" >&2; exit 1; }
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
rm -rf node_modules.asar && ln -s node_modules node_modules.asar
(cd bin/remote-cli && rm -f code-server && ln -s code-linux.sh code-server)
(cd bin/helpers && rm -f browser.sh && ln -s browser-linux.sh browser.sh)
(cd extensions && npm install --no-audit --no-fund --omit=dev)
touch "$done_mark"
echo "setup: code-server and playwright-core are in $prefix"
