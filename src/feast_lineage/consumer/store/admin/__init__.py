"""Administration of the store: statistics, retention pruning and reset, over reads and writes."""
