"""The gateway's edge: the route table, every request's checks (credential, rate limit, scope,
tenancy), the envelope, idempotency, the OpenAPI document and the server that runs them."""
