"""The OAuth tests' gateway and clock, for the attacks on tokens (test_token_revocation.py)."""

from tests.oauth.conftest import clock, oauth  # noqa: F401
