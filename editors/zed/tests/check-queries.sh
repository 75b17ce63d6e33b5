#!/bin/sh
# Proves the Zed extension's tree-sitter queries (languages/metal/*.scm) against the C++
# grammar they are written for, and exits non-zero if any of them fails:
#
# 1. every query compiles with tree-sitter-cpp, and uses capture names Zed understands;
# 2. run over tests/sample.metal, the queries give what tests/expectations.tsv lists
#    (Metal's address spaces, types and attributes, outline entries, bracket pairs);
# 3. every node type, token and field the queries name exists at the grammar revision
#    extension.toml pins, which is what Zed builds. That revision is fetched with git
#    from the repository extension.toml names; without network access this step is
#    skipped with a note, or MSL_TS_GRAMMAR_DIR may point at a checkout of it.
#
# Steps 1 and 2 use tree-sitter-cpp 0.23.4 from npm (its prebuilt WebAssembly parser):
# the latest release, on which the pinned commit builds. The runtime is web-tree-sitter,
# which needs only Node.js. Packages go to $MSL_TS_DIR (default /tmp/msl-tree-sitter)
# and are installed once.
set -eu

grammar_version=0.23.4
runtime_version=0.24.7

here=$(cd "$(dirname "$0")" && pwd)
extension=$(dirname "$here")
cache=${MSL_TS_DIR:-/tmp/msl-tree-sitter}

for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "check-queries: $tool is needed" >&2
        exit 2
    fi
done

installed() {
    grep -q "\"version\": \"$2\"" "$cache/node_modules/$1/package.json" 2>/dev/null
}

if installed tree-sitter-cpp "$grammar_version" && installed web-tree-sitter "$runtime_version"; then
    echo "check-queries: using tree-sitter-cpp $grammar_version and web-tree-sitter $runtime_version in $cache"
else
    echo "check-queries: installing tree-sitter-cpp $grammar_version and web-tree-sitter $runtime_version into $cache"
    mkdir -p "$cache"
    cat >"$cache/package.json" <<EOF
{
  "private": true,
  "description": "Parsers for editors/zed/tests/check-queries.sh",
  "dependencies": {
    "tree-sitter-cpp": "$grammar_version",
    "web-tree-sitter": "$runtime_version"
  }
}
EOF
    # --ignore-scripts: only the prebuilt WebAssembly parser is used, not Node bindings.
    (cd "$cache" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

# The grammar revision extension.toml pins.
repository=$(sed -n 's/^repository = "\(https:\/\/github.com\/tree-sitter\/tree-sitter-cpp\)"$/\1/p' "$extension/extension.toml")
rev=$(sed -n 's/^rev = "\([0-9a-f]\{40\}\)"$/\1/p' "$extension/extension.toml")
if [ -z "$repository" ] || [ -z "$rev" ]; then
    echo "check-queries: extension.toml does not pin tree-sitter-cpp to a full commit hash" >&2
    exit 1
fi
pinned=${MSL_TS_GRAMMAR_DIR:-$cache/tree-sitter-cpp-$rev}
if [ -z "${MSL_TS_GRAMMAR_DIR:-}" ] && [ ! -f "$pinned/src/node-types.json" ] && command -v git >/dev/null 2>&1; then
    rm -rf "$pinned.partial"
    if git init -q "$pinned.partial" &&
        git -C "$pinned.partial" fetch -q --depth 1 "$repository" "$rev" 2>/dev/null &&
        git -C "$pinned.partial" checkout -q FETCH_HEAD 2>/dev/null; then
        mv "$pinned.partial" "$pinned"
    else
        rm -rf "$pinned.partial"
    fi
fi
node_types=
if [ -f "$pinned/src/node-types.json" ]; then
    node_types="$pinned/src/node-types.json"
else
    echo "check-queries: NOTE: could not fetch tree-sitter-cpp at $rev; the queries are proven against $grammar_version only"
fi

NODE_PATH="$cache/node_modules" node "$here/check-queries.js" \
    "$extension/languages/metal" "$here/sample.metal" "$here/expectations.tsv" \
    "$cache/node_modules/tree-sitter-cpp/tree-sitter-cpp.wasm" $node_types
