"""Access control: who may send events, change the store, and see which namespaces.

Modules: :mod:`.scope` (the ``Scope`` of visible namespaces), :mod:`.keys`
(API keys and bearer tokens, compared in constant time; the admin key of prune
and reset), :mod:`.authorizers` (the ``open`` and ``api_keys`` authorizers and
the one place that asks an authorizer), :mod:`.feast_permissions` (the
``feast`` authorizer: Feast's own auth and permissions) and :mod:`.origin`
(refusing changes sent by pages of another site).

The contract
------------
An :class:`Authorizer` has one method, ``scope(request) -> Scope``, called
once per query request before anything is read. The :class:`Scope` it
returns is either *every namespace* (``Scope.everything()``) or a finite set
of OpenLineage namespaces (``Scope.of(...)``, possibly empty). Every query
endpoint shows only rows of those namespaces; an edge only when both of its
ends are visible.

To refuse a request, raise :class:`~feast_lineage.consumer.errors.Unauthorized`
(401) or :class:`~feast_lineage.consumer.errors.Forbidden` (403) with a
message for the caller. Any other exception is an authorizer failure: the
request gets a 500 with no data (see :func:`.authorizers.request_scope`), never
"everything". An authorizer must be thread-safe. It runs in a worker thread
and may block (the ``feast`` authorizer asks the registry),
unless it has the class attribute ``blocking = False``: then it promises to
only compute, and runs on the event loop, saving a thread hop per request.

An authorizer may also have ``write_refusal(key) -> Forbidden | None``
(:data:`.keys.WriteRefusal`): for a key that is not the consumer's
``api_key`` sent to ingest, prune or reset, the ``403`` that says it is one of
its own read credentials (a read key, a Feast token), or ``None`` (then the
caller gets ``401`` ``invalid_api_key``). It runs as ``scope`` does (in a
worker thread unless ``blocking = False``).

Implementations, picked by ``openlineage.consumer.authorizer.type``:

* ``open`` (default): every caller sees everything, the spec's behaviour
  when Feast RBAC is off.
* ``api_keys``: read API keys each grant Feast projects. A project's
  namespaces are those of :func:`.scope.project_namespaces`: its own OpenLineage
  namespace (the project name, or ``{producer namespace}/{project}``) and the
  ``namespace_mapping`` keys whose value is the project. The consumer's admin
  ``api_key`` sees everything.

* ``feast``: the projects the caller's Feast token may ``DESCRIBE``
  (:mod:`.feast_permissions`).

Both ``api_keys`` and ``feast`` take ``anonymous_projects``: what a caller
without any credential sees, added to what every valid one sees
(:func:`.scope.projects_scope`).

Adding one: write a class with ``scope``, a settings model in
:mod:`feast_lineage.config.authorizer`, and a branch in
:func:`.authorizers.build_authorizer`.
"""
