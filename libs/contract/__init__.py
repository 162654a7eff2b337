"""The ground floor every part stands on: the parts list, the declaration of a public route and of a
webhook event, the internal endpoints with their bodies and answers, and the base schema and field
types every declaration uses. It imports no other library of the project, so every part, `libs`,
the deployment and the tests may import it."""
