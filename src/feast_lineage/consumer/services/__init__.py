"""Service functions: what the routes do, free of HTTP details."""
