"""The ground floor every part stands on: the parts list, the declaration of a public route, the
internal endpoints and their clients. It imports nothing of the parts, so every part, `libs`, the
deployment and the tests may import it."""
