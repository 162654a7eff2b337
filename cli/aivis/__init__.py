"""`aivis`, the command-line client of the API. It speaks only the public API, as any outside
client does: it imports nothing of the gateway or the services."""
