#!/usr/bin/env bash
# Packs contentlib, checks what the tarball holds, installs it globally into an empty prefix and
# runs the main commands from there on the embedded default — what `npm i -g contentlib` gives
# a user. Run by .ci/run after the tests.
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
for needed in bin/contentlib.js dist/cli/main.js man/contentlib.1 docs/cli.md fixtures/demo/intro.mp4 README.md CHANGELOG.md; do
  grep -qx "$needed" "$work/contents" || { echo "The package lacks $needed"; exit 1; }
done

echo "== npm i -g into an empty prefix"
# npm 11 runs no dependency install script unless allowed; better-sqlite3 compiles its addon.
npm i -g "$work/$tarball" --prefix "$work/prefix" --allow-scripts=better-sqlite3 --no-audit --no-fund --loglevel=error

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
echo "package check: ok"
