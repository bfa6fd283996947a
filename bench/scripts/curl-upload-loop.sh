#!/usr/bin/env bash
# The reference for the bulk benchmark: what a CI author would write by hand to upload every
# .mp4 of a folder, one file after another: presign → PUT → complete with curl and jq.
# Usage: BASE=http://127.0.0.1:PORT KEY=cl_... curl-upload-loop.sh DIR
set -euo pipefail
dir=$1
for f in "$dir"/*.mp4; do
  name=$(basename "$f")
  size=$(stat -c %s "$f")
  presigned=$(curl -sS --fail-with-body -X POST "$BASE/api/v1/upload/presign" \
    -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    -d "$(jq -nc --arg n "$name" --argjson s "$size" '{fileName: $n, contentType: "video/mp4", fileSize: $s}')")
  url=$(jq -r .presignedUrl <<<"$presigned")
  key=$(jq -r .key <<<"$presigned")
  type=$(jq -r .type <<<"$presigned")
  curl -sS --fail-with-body -T "$f" -H 'Content-Type: video/mp4' -o /dev/null "$url"
  curl -sS --fail-with-body -X POST "$BASE/api/v1/upload/complete" -o /dev/null \
    -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    -d "$(jq -nc --arg k "$key" --arg n "$name" --argjson s "$size" --arg t "$type" \
      '{key: $k, fileName: $n, contentType: "video/mp4", fileSize: $s, type: $t}')"
done
