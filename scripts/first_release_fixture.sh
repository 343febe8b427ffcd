#!/usr/bin/env bash
# Writes the first-release store fixtures (basel/tests/fixtures/first_release/)
# with the binary of the first release (commit 5dd3875, before contacts):
#   git worktree add /tmp/basel-5dd3875 5dd3875 && cargo build -p basel --bin basel
#   scripts/first_release_fixture.sh /path/to/that/basel [embedded|postgres]
# The store holds: the seed, a steward (ana), a verification with changes (JP),
# a check that reached nobody (NG), a country created over REST (XK), a check
# of the focal-point record DE, and an API key. Keys are derived under the
# fixed secret below, so the test can present the same key again.
set -euo pipefail
B=${1:?path to the first release basel binary}
MODE=${2:-embedded}
OUT=$(cd "$(dirname "$0")/.." && pwd)/basel/tests/fixtures/first_release
SECRET=fault-test-secret-0123456789abcdef0123456789
PORT=$((20000 + RANDOM % 20000)); MCP=$((PORT + 1))
WORK=$(mktemp -d)
ARGS=(--data-dir "$WORK" --secret "$SECRET")
if [ "$MODE" = postgres ]; then
  DB=basel_first_release_$$
  psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $DB"
  ARGS+=(--database-url "postgres://postgres@127.0.0.1:5432/$DB" --nats-url nats://127.0.0.1:4222
         --nats-stream "FIRST_RELEASE_$$" --nats-subject-prefix "first$$.events")
fi
TOKEN=$("$B" steward enrol "${ARGS[@]}" --name "Ana Lima" --email ana@stewards.example.org --id ana | tail -n 1)
"$B" serve "${ARGS[@]}" --listen 127.0.0.1:$PORT --mcp-listen 127.0.0.1:$MCP >"$WORK/serve.log" 2>&1 &
PID=$!
for _ in $(seq 1 200); do curl -sf http://127.0.0.1:$PORT/readyz >/dev/null && break; sleep 0.2; done
post() { curl -sf -X POST "http://127.0.0.1:$PORT$1" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$2"; echo; }
KEY=$(curl -sf -X POST http://127.0.0.1:$PORT/register -H 'content-type: application/json' \
  -d '{"email":"fixture-client@example.org"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])')
post /api/v1/ca/JP/verifications '{"verified":true,"checked_on":"2026-11-20","method":"email","source":"reply from env-basel@env.go.jp","note":"confirmed by e-mail","changes":{"email":"env-basel@env.go.jp","address":"1-2-2 Kasumigaseki, Chiyoda-ku, Tokyo"}}'
post /api/v1/ca/NG/verifications '{"verified":false,"checked_on":"2026-11-21","method":"email","source":"e-mail to the ministry","note":"no answer"}'
post /api/v1/ca/DE/verifications '{"verified":false,"checked_on":"2026-11-21","method":"website","source":"https://www.basel.int","changes":{"phone":"+49-30-8903-3296"}}'
post /api/v1/ca '{"country_code":"XK","country_name":"Kosovo","ca_name":"Ministry of Environment","email":"ca@example.org","phone":"+383-38-200-000","verified":true,"last_checked":"2026-11-19","source":"official letter"}'
sleep 2
kill -TERM $PID; wait $PID || true
rm -rf "$OUT/$MODE"; mkdir -p "$OUT/$MODE"
printf '{"api_key": "%s", "steward_token": "%s", "secret": "%s"}\n' "$KEY" "$TOKEN" "$SECRET" > "$OUT/$MODE/credentials.json"
if [ "$MODE" = postgres ]; then
  pg_dump -h 127.0.0.1 -U postgres --no-owner --no-privileges --inserts "$DB" | grep -v "^\\\\" > "$OUT/postgres/dump.sql"
  psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE $DB"
else
  for db in "$WORK"/*.db; do sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null; done
  cp "$WORK"/*.db "$OUT/embedded/"
fi
rm -rf "$WORK"
echo "fixture written to $OUT/$MODE"
