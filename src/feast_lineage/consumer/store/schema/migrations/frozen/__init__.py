"""Frozen copies of the code the data migrations run: never change them.

A data migration (0009, 0010, 0011, 0012) derives rows from the events a store
already holds, with the rules ingest had when the migration was written.
Were it to import the live code (``feast_lineage.identity``,
``consumer/store/write/column_rows.py``, ``explicit_lineage.py``, ...), a later
change to ingest would silently change what an old migration does on a
user's store that upgrades late, and two stores upgraded a release apart
would differ. So each migration imports nothing of ``feast_lineage``
outside this migrations package (``tests/consumer/store/schema/test_frozen_migrations.py``
fails if one does), and what it needs is copied here, as it was, in a
module named for the revision that froze it: ``ids_0009`` (the stable ids),
``payloads_0009`` (stored payloads and canonical JSON), ``column_rows_0009``
(a ``columnLineage`` facet to rows), ``explicit_0010`` (explicit lineage
facets to rows), ``producer_rank_0011`` (who produced a dataset), ``dataset_versions_0012``
(an event's dataset version rows), ``job_versions_0013`` (an event's job
version parts, a version's content and id), ``dataset_states_0015`` (a
dataset state's id and rank) and ``job_versions_0016`` (a run's merged job
version parts).

Rules:

* Never edit a frozen module, not even to follow a rename or a lint rule
  elsewhere: a fix to ingest goes to the live code and, if stores need it,
  to a new migration with a new frozen copy named for its own revision.
* A later migration may import a frozen module only when it wants exactly
  what that revision did.
* The ``duplicates`` command lists these modules beside the live code they
  were copied from: the repetition is by design, not a clean-up to make.
"""
