#!/bin/sh
# Installs code-server (the VS Code workbench served over HTTP) for the end-to-end test,
# using only the npm registry and Debian packages: no other downloads are needed.
#
# Usage: install-code-server.sh [DIR]
#   DIR defaults to $MSL_CODE_SERVER_DIR, then /tmp/msl-code-server.
#
# Running it again is cheap: a marker file records a finished install of this version,
# and the Debian packages are only installed when one of them is missing.
set -eu

VERSION=4.100.3   # VS Code 1.100.3; later releases need a newer Node than 20
DIR=${1:-${MSL_CODE_SERVER_DIR:-/tmp/msl-code-server}}
MARKER="$DIR/.msl-code-server-$VERSION"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"

# Debian packages: Chromium for the browser side, ripgrep for the workbench's search,
# and headers plus a compiler for code-server's native modules.
PACKAGES="chromium ripgrep build-essential python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev"

missing=""
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "no dpkg here: make sure Chromium (or MSL_CHROMIUM), ripgrep, a C++ compiler, python3 and" >&2
    echo "the krb5, X11, xkbfile and libsecret headers are installed" >&2
    PACKAGES=""
fi
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        # python3 may come from elsewhere (pyenv, a toolchain image); a working one is enough
        if [ "$p" = python3 ] && command -v python3 >/dev/null 2>&1; then
            continue
        fi
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    echo "installing Debian packages:$missing"
    if [ "$(id -u)" = 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "error: these Debian packages are missing and this user cannot install them:$missing" >&2
        exit 1
    fi
    # wait for another apt or dpkg run to finish rather than failing at once
    APT="env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -qq"
    $SUDO $APT install $missing >/dev/null || {
        $SUDO $APT update >/dev/null
        $SUDO $APT install $missing >/dev/null
    }
fi

if [ -f "$MARKER" ] && [ -f "$ENTRY" ]; then
    echo "code-server $VERSION already installed in $DIR"
    exit 0
fi

RG=$(command -v rg) || { echo "error: ripgrep (rg) is needed by the workbench's search" >&2; exit 1; }

echo "installing code-server $VERSION into $DIR"
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || printf '{"name":"msl-code-server","version":"1.0.0","private":true}\n' > package.json

# node-pty's install step calls `npx node-gyp`, which would otherwise stop to ask
export npm_config_yes=true
export npm_config_audit=false
export npm_config_fund=false
export npm_config_update_notifier=false

# Lifecycle scripts are skipped at first: some of them fetch prebuilt binaries from GitHub.
npm install code-server@$VERSION --ignore-scripts
# argon2 (password hashing, unused with --auth none) must still load: build it locally.
npm rebuild argon2

cd node_modules/code-server/lib/vscode
npm install --omit=dev --ignore-scripts
# @vscode/ripgrep's install step downloads rg; an existing bin/rg makes it unnecessary.
mkdir -p node_modules/@vscode/ripgrep/bin
ln -sf "$RG" node_modules/@vscode/ripgrep/bin/rg
# Now build the native modules (node-pty, spdlog, kerberos, watcher) from source.
npm rebuild
# The server resolves some modules through node_modules.asar, as in a packaged build.
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sf code-linux.sh code-server)
(cd bin/helpers && ln -sf browser-linux.sh browser.sh)
(cd extensions && npm install --omit=dev)

touch "$MARKER"
echo "code-server $VERSION installed: node $ENTRY"
