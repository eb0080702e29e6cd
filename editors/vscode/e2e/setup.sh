#!/bin/sh
# Installs what e2e/run.mjs needs into a prefix (default
# ~/.cache/agentls-e2e): code-server 4.100.3 (VS Code 1.100.3, the last
# release that runs on Node 20) and playwright-core; and, as root with
# apt-get, Debian's Chromium, ripgrep and the headers code-server's native
# modules build against. Not part of CI. About two minutes.
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
  apt-get install -y chromium ripgrep build-essential pkg-config python3 \
    libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev
fi
command -v rg >/dev/null || { echo "setup: ripgrep (rg) is needed" >&2; exit 1; }

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
echo "setup: code-server and playwright-core are in $prefix"
