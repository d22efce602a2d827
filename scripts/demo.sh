#!/usr/bin/env bash
# The quickstart, in one command: set up, create a sample Feast repository
# with lineage (the driver-stats example: producer and consumer on SQLite),
# apply it, materialize, retrieve features, add what Airflow, dbt and Spark
# report about the data around it, and start the lineage UI.
#
#   ./scripts/demo.sh     then open the URL it prints; Ctrl-C stops it.
#
# Environment: PORT (default 8888), HOST (default 127.0.0.1; 0.0.0.0 to be
# reached from other machines), DEMO_DIR (default demo/, rebuilt each run).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8888}
HOST=${HOST:-127.0.0.1}
DEMO_DIR=${DEMO_DIR:-demo}

echo "==> setting up (virtualenv and web UI)"
./scripts/bootstrap.sh

# Start from scratch, but never remove a directory this script did not write.
if [ -e "$DEMO_DIR" ]; then
  if ! grep -qs "written by examples/quickstart" "$DEMO_DIR/feature_store.yaml"; then
    echo "$DEMO_DIR exists and is not a quickstart repository; set DEMO_DIR to another path" >&2
    exit 1
  fi
  rm -rf "$DEMO_DIR"
fi

echo "==> creating the Feast repository $DEMO_DIR/ and running Feast on it"
.venv/bin/python examples/quickstart/quickstart.py setup "$DEMO_DIR"

echo "==> starting feast-lineage ui (log: $DEMO_DIR/ui.log)"
.venv/bin/feast-lineage -c "$DEMO_DIR" ui --host "$HOST" --port "$PORT" >"$DEMO_DIR/ui.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null' EXIT INT TERM

SHOWN_HOST=$HOST
[ "$HOST" = "0.0.0.0" ] && SHOWN_HOST=127.0.0.1
URL="http://$SHOWN_HOST:$PORT"
# Ready once its migrations ran and Feast's registry is open (a minute or more
# on a loaded machine): until then /readyz answers 503.
READY=
for _ in $(seq 1 1500); do
  if curl -fsS "$URL/readyz" >/dev/null 2>&1; then READY=1; break; fi
  if ! kill -0 $SERVER 2>/dev/null; then
    tail -n 5 "$DEMO_DIR/ui.log" >&2
    echo "feast-lineage ui did not start (is port $PORT taken? try PORT=8899 $0)" >&2
    exit 1
  fi
  sleep 0.2
done
if [ -z "$READY" ]; then
  tail -n 5 "$DEMO_DIR/ui.log" >&2
  echo "feast-lineage ui was not ready after 5 minutes (log: $DEMO_DIR/ui.log)" >&2
  exit 1
fi

echo "==> sending the lineage of the Airflow DAG, the dbt model and the Spark training job"
.venv/bin/python examples/quickstart/quickstart.py post-events "$DEMO_DIR" "$URL"

cat <<EOF

  The lineage UI is running: open $URL/

  Lineage   one graph from the raw trips table through Airflow, dbt and Feast
            to the model Spark trains; click a node for its schema, Feast
            metadata and runs; "Feast only lineage" shows the registry's view.
  Events    every event, newest first, with filters.

  Try Feast through feast-lineage in another terminal, in $PWD (each emits lineage):
    .venv/bin/feast-lineage -c $DEMO_DIR materialize-incremental \$(date -u +%Y-%m-%dT%H:%M:%S)
    .venv/bin/feast-lineage -c $DEMO_DIR feature-views list
    .venv/bin/feast-lineage -c $DEMO_DIR apply
  The API: $URL/docs    Press Ctrl-C to stop.
EOF
wait $SERVER
