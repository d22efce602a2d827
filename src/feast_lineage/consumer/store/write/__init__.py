"""The write side: the rows ingest hands over, their merge rules, and the writer's transaction."""
