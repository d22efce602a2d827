"""Ingest: from request bytes to committed rows.

:mod:`.body` decodes a request, :mod:`.validation` checks each event's
structure, :mod:`.derive` turns an event into store rows, and
:mod:`.pipeline` commits them in group commits on one writer thread.
"""
