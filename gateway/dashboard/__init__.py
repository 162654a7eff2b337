"""The dashboard: server-rendered pages for people, served by the gateway outside `/api/v1`."""
