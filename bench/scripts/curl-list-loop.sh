#!/usr/bin/env bash
# The reference for the listing benchmark: fetch every page of the library with curl, 100 items
# a page, until hasMore is false; the pages go to stdout.
# Usage: BASE=http://127.0.0.1:PORT KEY=cl_... curl-list-loop.sh > /dev/null
set -euo pipefail
offset=0
while :; do
  page=$(curl -sS --fail-with-body -H "Authorization: Bearer $KEY" "$BASE/api/v1/content?limit=100&offset=$offset")
  printf '%s\n' "$page"
  [ "$(jq -r .hasMore <<<"$page")" = true ] || break
  offset=$((offset + 100))
done
