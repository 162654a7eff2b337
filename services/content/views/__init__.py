"""Handlers of the content service, one module per resource."""
