"""Fixtures of the simulations tests: the integration tests' tenant (an organization, a product
the apps part knows, an API key of every scope)."""

from tests.integration.conftest import tenant  # noqa: F401
