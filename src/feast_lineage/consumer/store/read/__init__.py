"""The read side: one module per thing read (events, runs, jobs, datasets, graph, columns)."""
