"""The agents a simulation runs: what they read of an App, how they rank and answer, and how
their answer is judged (docs/architecture.md, "Agent simulations")."""
