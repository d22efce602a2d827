"""``GET /runs/{run_id}/lineage``: what a run read and wrote, walked, as of the run's end."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient

from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, run_event

ETL = ("spark://prod", "etl")
FEED = ("spark://prod", "feed")
RAW, OLD, NEW, OUT, USE = ("dataset:s3://b:" + n for n in ("raw", "old", "new", "out", "use"))
ETL_ID, FEED_ID = "job:spark://prod:etl", "job:spark://prod:feed"


def _history(client: TestClient) -> tuple[str, str, str]:
    """feed: raw -> old (at 1); etl run one: old -> out (10); run two: new -> out, running."""
    feed, one, two = (str(uuid.uuid4()) for _ in range(3))
    ingest(
        client,
        run_event(
            "COMPLETE",
            run_id=feed,
            job=FEED,
            time=at(1),
            inputs=[dataset("s3://b", "raw")],
            outputs=[dataset("s3://b", "old")],
        ),
        run_event(
            "COMPLETE",
            run_id=one,
            job=ETL,
            time=at(10),
            inputs=[dataset("s3://b", "old")],
            outputs=[dataset("s3://b", "out")],
        ),
        run_event(
            "START",
            run_id=two,
            job=ETL,
            time=at(20),
            inputs=[dataset("s3://b", "new")],
            outputs=[dataset("s3://b", "out")],
        ),
        run_event(
            "COMPLETE",
            run_id=str(uuid.uuid4()),
            job=("spark://prod", "use"),
            time=at(30),
            inputs=[dataset("s3://b", "out")],
            outputs=[dataset("s3://b", "use")],
        ),
    )
    return feed, one, two


def _ids(body: dict) -> dict[str, int]:
    return {n["id"]: n["depth"] for n in body["nodes"]}


def _edges(body: dict) -> set[tuple[str, str]]:
    return {(e["source"], e["target"]) for e in body["edges"] if e["type"] != "derived"}


def test_an_ended_run_answers_as_of_its_end(client: TestClient) -> None:
    _, one, _ = _history(client)
    body = client.get(f"{API}/runs/{one}/lineage", params={"depth": 5}).json()
    assert (body["run_id"], body["job"], body["state"]) == (one, ETL_ID, "COMPLETE")
    assert body["as_of"] == at(10)
    # What fed it then: old from raw through feed; out's later reader did not exist yet.
    assert _ids(body) == {ETL_ID: 0, OLD: 1, OUT: 1, "job:spark://prod:feed": 2, RAW: 3}
    assert {(OLD, ETL_ID), (ETL_ID, OUT)} <= _edges(body)
    assert NEW not in _ids(body)


def test_a_running_run_answers_now_and_direction_narrows_the_walk(client: TestClient) -> None:
    _, _, two = _history(client)
    body = client.get(f"{API}/runs/{two}/lineage", params={"depth": 3}).json()
    assert (body["as_of"], body["state"]) == (None, "RUNNING")
    assert _ids(body) == {ETL_ID: 0, NEW: 1, OUT: 1, "job:spark://prod:use": 2, USE: 3}
    up = client.get(f"{API}/runs/{two}/lineage", params={"direction": "upstream"}).json()
    assert _ids(up) == {ETL_ID: 0, NEW: 1}
    zero = client.get(f"{API}/runs/{two}/lineage", params={"depth": 0}).json()
    assert _ids(zero) == {ETL_ID: 0}


def test_an_unknown_run_is_404_and_a_bad_one_400(client: TestClient) -> None:
    _history(client)
    missing = client.get(f"{API}/runs/{uuid.uuid4()}/lineage")
    assert missing.status_code == 404
    assert "no run with run_id" in missing.json()["error"]["message"]
    bad = client.get(f"{API}/runs/nope/lineage")
    assert bad.status_code == 400
    assert "run_id" in bad.json()["error"]["message"]
    deep = client.get(f"{API}/runs/{uuid.uuid4()}/lineage", params={"depth": 51})
    assert deep.status_code == 400
    assert "depth" in deep.json()["error"]["message"]


def test_depth_one_shows_the_aliases_of_what_the_run_wrote_as_the_subgraph_does(
    client: TestClient,
) -> None:
    """An alias is at its dataset's own depth: at depth 1 the run's output's alias is a node,
    as in the job's subgraph as of the run's end, and every symlink listed has both ends."""
    run = str(uuid.uuid4())
    alias = {"namespace": "saved_dataset", "name": "training_set", "type": "TABLE"}
    ingest(
        client,
        run_event(
            "COMPLETE",
            run_id=run,
            job=ETL,
            time=at(10),
            inputs=[dataset("s3://b", "raw")],
            outputs=[dataset("s3://b", "out", symlinks={"identifiers": [alias]})],
        ),
        run_event(
            "COMPLETE",
            job=("feast", "save"),
            time=at(5),
            outputs=[dataset("saved_dataset", "training_set")],
        ),
    )
    saved = "dataset:saved_dataset:training_set"
    for direction, want in (
        ("both", {ETL_ID: 0, RAW: 1, OUT: 1, saved: 1}),
        ("downstream", {ETL_ID: 0, OUT: 1, saved: 1}),
        ("upstream", {ETL_ID: 0, RAW: 1}),
    ):
        body = client.get(
            f"{API}/runs/{run}/lineage", params={"depth": 1, "direction": direction}
        ).json()
        assert _ids(body) == want, direction
        ends = {end for s in body["symlinks"] for end in (s["dataset"], s["alias"])}
        assert ends <= set(_ids(body)), direction
        assert (saved in ends) == (saved in want), direction
        node = {"type": "job", "namespace": ETL[0], "name": ETL[1], "as_of": at(10)}
        sub = client.get(
            f"{API}/graph/node", params={**node, "depth": 1, "direction": direction}
        ).json()
        assert {n["id"]: n["depth"] for n in sub["nodes"]} == want, direction
        if saved in want:
            links = {(e["source"], e["target"]) for e in body["edges"] if e["type"] == "symlink"}
            assert links == {(OUT, saved)}, direction
    # A running run answers now, by the current graph's walk: the same.
    running = str(uuid.uuid4())
    ingest(
        client,
        run_event(
            "START",
            run_id=running,
            job=ETL,
            time=at(20),
            outputs=[dataset("s3://b", "out", symlinks={"identifiers": [alias]})],
        ),
    )
    now = client.get(f"{API}/runs/{running}/lineage", params={"depth": 1}).json()
    assert now["as_of"] is None
    assert _ids(now) == {ETL_ID: 0, OUT: 1, saved: 1}
    assert {end for s in now["symlinks"] for end in (s["dataset"], s["alias"])} == {OUT, saved}
