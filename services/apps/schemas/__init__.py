"""Request and response shapes of the apps service: the limits and value sets (values.py), what
requests may hold (requests.py) and the answers' shapes (responses.py).

Responses are built as dicts by the queries and views (no marshmallow on the hot path); the
response schemas (responses.py) document them in OpenAPI, and the tests check answers against them.
"""
