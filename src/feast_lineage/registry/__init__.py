"""The Feast registry as a lineage graph, read through Feast's public object model.

:mod:`.objects` reads one project's objects from a registry, :mod:`.relations`
says which objects each one is built from, :mod:`.locations` tells where a
data source's data lives, and :mod:`.graph` turns all of it into nodes and
edges. The producer's events and the server's registry lineage endpoints
share these, so both tell the same story. Feast is imported only by callers.
"""
