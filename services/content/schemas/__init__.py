"""Request and response shapes of the content service.

Responses are built as dicts by the handlers; the response schemas document them in OpenAPI,
and the schemathesis suite holds the two together.
"""
