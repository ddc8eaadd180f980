#!/usr/bin/env bash
# What users write without this tool: curl a page, jq out the tenders and the cursor,
# repeat until the cursor is null. Two jq calls a page is what such loops usually do.
set -euo pipefail
url="${TENDERS_BASE_URL%/}/api/v1/tenders/search"
body='{"limit":100}'
while :; do
  page=$(curl -sS -X POST -H 'content-type: application/json' -d "$body" "$url")
  jq -c '.tenders[]' <<<"$page"
  cursor=$(jq -r '.page.nextCursor' <<<"$page")
  [ "$cursor" = "null" ] && break
  body="{\"limit\":100,\"cursor\":\"$cursor\"}"
done
