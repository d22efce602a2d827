"""What each upsert of ingest assigns, and when it changes a stored row at all.

Every statement is idempotent and its outcome does not depend on the order
events arrive in: facets, run state and a job's latest inputs and outputs
keep the highest rank, start times the minimum, and a row that would not
change is left alone (the ``*_where`` conditions). :func:`reduce_runs`
combines a batch's rows of one run the same way before they are sent.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, case, or_

from feast_lineage.consumer.store.write.rows import RunRow

# A job's latest event that listed inputs, and outputs: (rank, run) column pairs.
JOB_IO_COLUMNS = (("input_rank", "input_run"), ("output_rank", "output_run"))


def reduce_runs(rows: list[RunRow]) -> list[RunRow]:
    """One row per run: the batch's rows of a run combined as the run upsert would."""
    by_id: dict[str, RunRow] = {}
    for row in rows:
        old = by_id.get(row["run_id"])
        if old is None:
            by_id[row["run_id"]] = row.copy()
            continue
        if row["state_rank"] > old["state_rank"]:
            old["state"], old["state_rank"], old["ended_us"] = (
                row["state"],
                row["state_rank"],
                row["ended_us"],
            )
        old["first_event_us"] = min(old["first_event_us"], row["first_event_us"])
        old["last_event_us"] = max(old["last_event_us"], row["last_event_us"])
        starts = [s for s in (old["start_event_us"], row["start_event_us"]) if s is not None]
        old["start_event_us"] = min(starts) if starts else None
        for key in ("parent_run_id", "root_run_id"):  # the least, so order does not matter
            ids = [i for i in (old[key], row[key]) if i is not None]
            old[key] = min(ids) if ids else None
    for row in by_id.values():
        start = row["start_event_us"]
        row["started_us"] = start if start is not None else row["first_event_us"]
    return list(by_id.values())


def _greater(a: Any, b: Any) -> Any:
    return case((a > b, a), else_=b)


def _lesser(a: Any, b: Any) -> Any:
    return case((a < b, a), else_=b)


def _node_set(c: Any, x: Any) -> dict[str, Any]:
    newer = x.updated_us > c.updated_us
    return {
        "producer": case((or_(newer, c.producer.is_(None)), x.producer), else_=c.producer),
        "updated_us": _greater(x.updated_us, c.updated_us),
        "created_us": _lesser(x.created_us, c.created_us),
    }


def _producer_wins(c: Any, x: Any) -> Any:
    """The incoming dataset row names its producer (:mod:`.producer_rank`)."""
    return _later(c, x, "producer_rank")


def _node_where(c: Any, x: Any) -> Any:
    return or_(x.updated_us > c.updated_us, x.created_us < c.created_us)


def _later(c: Any, x: Any, rank: str) -> Any:
    """The incoming row's ``rank`` column is present and above the stored one."""
    return and_(x[rank].is_not(None), or_(c[rank].is_(None), x[rank] > c[rank]))


def job_set(c: Any, x: Any) -> dict[str, Any]:
    values = _node_set(c, x)
    for rank, run in JOB_IO_COLUMNS:
        later = _later(c, x, rank)
        values[rank] = case((later, x[rank]), else_=c[rank])
        values[run] = case((later, x[run]), else_=c[run])
    return values


def job_where(c: Any, x: Any) -> Any:
    return or_(_node_where(c, x), *(_later(c, x, rank) for rank, _run in JOB_IO_COLUMNS))


def dataset_set(c: Any, x: Any) -> dict[str, Any]:
    better_uri = and_(x.uri_rank.is_not(None), or_(c.uri_rank.is_(None), x.uri_rank > c.uri_rank))
    values = _node_set(c, x)
    wins = _producer_wins(c, x)
    values.update(
        producer=case((wins, x.producer), else_=c.producer),
        producer_rank=case((wins, x.producer_rank), else_=c.producer_rank),
        datasource_uri=case((better_uri, x.datasource_uri), else_=c.datasource_uri),
        uri_id=case((better_uri, x.uri_id), else_=c.uri_id),
        uri_rank=case((better_uri, x.uri_rank), else_=c.uri_rank),
        feast_type=case((c.feast_type.is_(None), x.feast_type), else_=c.feast_type),
        feast_project=case((c.feast_project.is_(None), x.feast_project), else_=c.feast_project),
    )
    return values


def dataset_where(c: Any, x: Any) -> Any:
    return or_(
        _node_where(c, x),
        _producer_wins(c, x),
        and_(x.uri_rank.is_not(None), or_(c.uri_rank.is_(None), x.uri_rank > c.uri_rank)),
        and_(c.feast_type.is_(None), x.feast_type.is_not(None)),
    )


def run_set(c: Any, x: Any) -> dict[str, Any]:
    wins = x.state_rank > c.state_rank
    start = case(
        (c.start_event_us.is_(None), x.start_event_us),
        (x.start_event_us.is_(None), c.start_event_us),
        else_=_lesser(x.start_event_us, c.start_event_us),
    )
    first = _lesser(x.first_event_us, c.first_event_us)
    return {
        "state": case((wins, x.state), else_=c.state),
        "state_rank": case((wins, x.state_rank), else_=c.state_rank),
        "ended_us": case((wins, x.ended_us), else_=c.ended_us),
        "first_event_us": first,
        "last_event_us": _greater(x.last_event_us, c.last_event_us),
        "start_event_us": start,
        "started_us": case((start.is_(None), first), else_=start),
        # A run names one parent; should its events disagree, the least id wins
        # (the same whatever order they arrive in).
        "parent_run_id": _least_present(x.parent_run_id, c.parent_run_id),
        "root_run_id": _least_present(x.root_run_id, c.root_run_id),
    }


def run_where(c: Any, x: Any) -> Any:
    """Whether ``run_set`` would change the stored run (else it is not rewritten)."""
    return or_(
        x.state_rank > c.state_rank,
        x.last_event_us > c.last_event_us,
        x.first_event_us < c.first_event_us,
        _lowers(x.start_event_us, c.start_event_us),
        _lowers(x.parent_run_id, c.parent_run_id),
        _lowers(x.root_run_id, c.root_run_id),
    )


def _lowers(new: Any, old: Any) -> Any:
    """``new`` would replace ``old`` under "the least present value wins"."""
    return and_(new.is_not(None), or_(old.is_(None), new < old))


def _least_present(a: Any, b: Any) -> Any:
    return case((a.is_(None), b), (b.is_(None), a), else_=_lesser(a, b))


def ranked_set(c: Any, x: Any) -> dict[str, Any]:
    later = x.rank > c.rank
    return {
        "rank": case((later, x.rank), else_=c.rank),
        "blob_id": case((later, x.blob_id), else_=c.blob_id),
    }


def ranked_where(c: Any, x: Any) -> Any:
    return x.rank > c.rank


def column_set(c: Any, x: Any) -> dict[str, Any]:
    """A column lineage pointer: the payload of the highest rank."""
    later = x.rank > c.rank
    return {
        "rank": case((later, x.rank), else_=c.rank),
        "digest": case((later, x.digest), else_=c.digest),
        "run_id": case((later, x.run_id), else_=c.run_id),
    }


def digest_set(c: Any, x: Any) -> dict[str, Any]:
    """An explicit lineage pointer: the payload of the highest rank."""
    later = x.rank > c.rank
    return {
        "rank": case((later, x.rank), else_=c.rank),
        "digest": case((later, x.digest), else_=c.digest),
    }
