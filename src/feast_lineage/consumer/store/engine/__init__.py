"""The store's plumbing: engines, dialect differences, write locks, the meta table."""
