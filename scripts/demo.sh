#!/usr/bin/env bash
# Set up, then run the lineage server on an embedded SQLite store, load the
# sample events shipped in examples/, and print how to look at them.
# Ctrl-C stops the server. Options: PORT (default 6580), DEMO_DIR (default demo/).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/bootstrap.sh

PORT=${PORT:-6580}
DEMO_DIR=${DEMO_DIR:-demo}
mkdir -p "$DEMO_DIR"
cat > "$DEMO_DIR/feature_store.yaml" <<YAML
project: demo
registry:
  registry_type: sql
  path: sqlite:///data/registry.db
provider: local
online_store:
  type: sqlite
  path: data/online_store.db
entity_key_serialization_version: 3
openlineage:
  enabled: true
  consumer:
    enabled: true
    store_type: sql
    connection_string: sqlite:///data/lineage.db
YAML

.venv/bin/feast-lineage -c "$DEMO_DIR" serve_lineage --port "$PORT" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null' EXIT INT TERM

URL="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
  curl -fsS "$URL/healthz" >/dev/null 2>&1 && break
  kill -0 $SERVER 2>/dev/null || { echo "the lineage server failed to start" >&2; exit 1; }
  sleep 0.2
done

curl -fsS -X POST "$URL/api/v1/lineage" -H 'Content-Type: application/json' \
  --data-binary @examples/sample-events.json -o /dev/null
echo
echo "feast-lineage is running at $URL (store: $DEMO_DIR/data/lineage.db)"
echo "Loaded $(grep -c '"eventTime"' examples/sample-events.json) sample events. Try:"
echo "  curl -s '$URL/api/v1/lineage/openlineage/events?limit=5'"
echo "  curl -s '$URL/api/v1/lineage/openlineage/graph'"
echo "  curl -s '$URL/api/v1/lineage/openlineage/runs?job_name=train_driver_ranking'"
echo "  curl -s -X POST '$URL/api/v1/lineage' -H 'Content-Type: application/json' -d @your-event.json"
echo "  open $URL/docs for the whole API"
echo "Press Ctrl-C to stop."
wait $SERVER
