#!/usr/bin/env bash
# Packs contentlib, checks what the tarball holds, then for each Node given (a folder holding
# bin/node, e.g. from `scripts/test-on-node.sh fetch 24`; default: the node on PATH) installs it
# globally into an empty prefix with that Node, as a user's npm would (nothing may be compiled),
# and runs the main commands from there: the embedded default, then `serve` with a remote `ls` —
# what `npm i -g contentlib` gives a user. Run by .ci/run after the tests.
#
#   scripts/check-package.sh [NODE_DIR…]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

echo "== npm pack"
tarball=$(npm pack --json --pack-destination "$work" 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].filename))')
tar -tzf "$work/$tarball" | sed 's|^package/||' | sort > "$work/contents"
echo "$(wc -l < "$work/contents") files, $(du -k "$work/$tarball" | cut -f1) KB"
unwanted=$(grep -E '^(test|src|bench|scripts|\.ci)/|^fixtures/(video|image|other)/|\.map$' "$work/contents" || true)
if [ -n "$unwanted" ]; then
  echo "The package holds files a user does not need:"; echo "$unwanted"; exit 1
fi
for needed in bin/contentlib.js dist/cli/main.cjs dist/launch/compile-cache.cjs dist/browse-assets/browse.css dist/browse-assets/browse.js man/contentlib.1 docs/cli.md fixtures/demo/intro.mp4 README.md CHANGELOG.md; do
  grep -qx "$needed" "$work/contents" || { echo "The package lacks $needed"; exit 1; }
done

echo "== the manifest: no install-time script, run-time dependencies = what dist/ leaves out"
# npm warns about (and asks users to allow) any preinstall/install/postinstall/prepare script;
# a clone builds through postprepare instead, which runs only for the project's own npm ci.
# dist/ must import no package but node's and the declared dependencies: the rest is bundled.
tar -xzf "$work/$tarball" -C "$work" package/package.json package/dist
node --input-type=module - "$work/package" <<'JS'
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
const dir = process.argv[2];
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const installScripts = ['preinstall', 'install', 'postinstall', 'prepare'].filter((s) => pkg.scripts?.[s]);
if (installScripts.length) throw new Error(`the package runs ${installScripts.join(', ')} when installed`);
const deps = new Set(Object.keys(pkg.dependencies ?? {}));
const imported = new Set();
for (const f of readdirSync(join(dir, 'dist'), { recursive: true })) {
  if (!/\.c?js$/.test(String(f))) continue;
  const text = readFileSync(join(dir, 'dist', String(f)), 'utf8');
  // How the bundle loads a package left out of it: require("name") (or from"name" and
  // import("name") in ES modules). Not when quoted: ajv's generated code holds
  // 'require("ajv/dist/runtime/…")' in strings and templates.
  for (const m of text.matchAll(/(?<![\w$.'"`])(?:from|import\(|require\()\s*"([^".$][^"]*)"/g)) imported.add(m[1]);
  // The launcher's import() for a package the cached bundle cannot import itself (src/launch).
  for (const m of text.matchAll(/__contentlibImport\("([^".$][^"]*)"\)/g)) imported.add(m[1]);
  // A package required on first use through createRequire (jq-web, for --jq: src/cli/output/json.ts).
  for (const m of text.matchAll(/createRequire\)?\([\w$.]*\)\("([^".$][^"]*)"\)/g)) imported.add(m[1]);
}
const pkgName = (s) => (s.startsWith('@') ? s.split('/').slice(0, 2) : s.split('/').slice(0, 1)).join('/');
// Optional native add-ons of bundled libraries, left out on purpose (scripts/build.js): pg's
// pg-native and the AWS SDK's CRT signer; both are required only when asked for.
const optional = new Set(['pg-native', '@aws-sdk/signature-v4-crt']);
const strays = [...imported].filter(
  (s) => !s.startsWith('node:') && !builtinModules.includes(s) && !deps.has(pkgName(s)) && !optional.has(s),
);
if (strays.length) throw new Error(`dist/ imports packages the install lacks: ${strays.join(', ')}`);
const unused = [...deps].filter((d) => ![...imported].some((s) => pkgName(s) === d));
if (unused.length) throw new Error(`dependencies that dist/ never imports (bundle them instead): ${unused.join(', ')}`);
console.log(`dependencies: ${[...deps].join(', ') || 'none'}`);
JS

check_on() {
(
if [ -n "${1:-}" ]; then export PATH="$1/bin:$PATH" npm_config_nodedir="$1"; fi
tgz="$work/$tarball" work="$work/node-$(node --version)"
mkdir -p "$work"
echo "== npm i -g into an empty prefix, Node $(node --version)"
# No dependency has native code or an install script (SQLite is Node's own node:sqlite), so npm
# runs nothing and needs no compiler; a compiled addon would show as a build/ folder.
started=$(date +%s)
npm i -g "$tgz" --prefix "$work/prefix" --no-audit --no-fund --loglevel=error
installed="$work/prefix/lib/node_modules/contentlib"
compiled=$(find "$installed/node_modules" -path '*/build/Release/*.node' 2>/dev/null | head -3)
[ -z "$compiled" ] || { echo "npm i -g compiled native code:"; echo "$compiled"; exit 1; }
packages=$(node -e '
  const { existsSync, readdirSync } = require("node:fs");
  const { join } = require("node:path");
  let n = 0;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir).filter((e) => !e.startsWith("."))) {
      const names = e.startsWith("@") ? readdirSync(join(dir, e)).map((s) => join(e, s)) : [e];
      for (const name of names) (n++, walk(join(dir, name, "node_modules")));
    }
  };
  walk(process.argv[1]);
  console.log(n);' "$installed/node_modules")
echo "installed in $(($(date +%s) - started)) s: $packages packages besides contentlib, $(du -sm "$installed" | cut -f1) MB"

echo "== the installed command, on the embedded default"
bin="$work/prefix/bin/contentlib"
export CONTENTLIB_HOME="$work/home"
# No terminal here (and CI is set): a write with no remote configured is refused…
if "$bin" upload "$root/fixtures/demo" </dev/null >/dev/null 2>"$work/refused"; then
  echo "upload with no remote and no terminal should have been refused"; exit 1
fi
grep -q "CONTENTLIB_EMBEDDED=1" "$work/refused" || { echo "the refusal does not say how to choose:"; cat "$work/refused"; exit 1; }
# …unless the embedded library is chosen on purpose.
export CONTENTLIB_EMBEDDED=1
cd "$work"
want=$(node -p "require('$root/package.json').version")
got=$("$bin" --version)
[ "$got" = "$want" ] || { echo "--version says $got, package.json $want"; exit 1; }
cp -r "$root/fixtures/demo" demo
"$bin" upload demo
"$bin" ls
carousel=$("$bin" ls --type carousel --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].id))')
"$bin" show "$carousel" > /dev/null
"$bin" edit "$carousel" --title "Renamed from the installed package" > /dev/null
"$bin" ls --search "Renamed from" --json | grep -q "$carousel"
"$bin" rm --yes "$carousel"
[ "$("$bin" ls --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).length))')" = 2 ]
# The man page is installed with the command.
[ -f "$work/prefix/share/man/man1/contentlib.1" ] || { echo "npm i -g did not install the man page"; exit 1; }
# --jq loads jq (WebAssembly) from the installed package.
[ "$("$bin" ls --type carousel --jq 'length')" = 0 ]
# browse serves its pages and their assets from the installed package (dist/browse-assets).
"$bin" browse --no-open > "$work/browse.url" 2>/dev/null &
browse_pid=$!
for _ in $(seq 50); do [ -s "$work/browse.url" ] && break; sleep 0.1; done
url=$(head -1 "$work/browse.url")
origin=${url%%/\?*}
curl -fsS -c "$work/cookies" -o /dev/null "$url"
curl -fsS -b "$work/cookies" -o "$work/grid.html" "$origin/"
grep -q "Intro to the demo library" "$work/grid.html" || { echo "browse's grid lacks the demo items"; exit 1; }
curl -fsS -b "$work/cookies" -o /dev/null "$origin/assets/browse.css" || { echo "browse cannot serve its stylesheet"; exit 1; }
kill -INT "$browse_pid"
wait "$browse_pid"

# serve, and the installed command against it as a remote (the server's code from the package).
unset CONTENTLIB_EMBEDDED
"$bin" serve --port 0 --data-dir "$work/served" > "$work/serve.url" 2> "$work/serve.log" &
serve_pid=$!
for _ in $(seq 100); do [ -s "$work/serve.url" ] && break; sleep 0.1; done
url=$(head -1 "$work/serve.url")
curl -fsS -o /dev/null "$url/healthz" || { echo "serve does not answer at '$url':"; cat "$work/serve.log"; exit 1; }
key=$("$bin" keys create --brand acme --data-dir "$work/served")
export CONTENTLIB_BASE_URL="$url" CONTENTLIB_API_KEY="$key"
"$bin" upload demo > /dev/null
[ "$("$bin" ls --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).length))')" = 3 ]
kill -INT "$serve_pid"
wait "$serve_pid" || { echo "serve did not stop cleanly on Ctrl-C (exit $?)"; cat "$work/serve.log"; exit 1; }
unset CONTENTLIB_BASE_URL CONTENTLIB_API_KEY
echo "package check on Node $(node --version): ok"
)
}

if [ $# -eq 0 ]; then check_on ""; else for node_dir in "$@"; do check_on "$node_dir"; done; fi
