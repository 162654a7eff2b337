"""The command groups of `aivis`; each module's `register` adds its commands to the root."""
