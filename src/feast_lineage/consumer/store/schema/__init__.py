"""What the store holds: its tables, how payloads are encoded, and its migrations."""
