"""The scopes of the contract, and what each membership role may do through a session."""

from __future__ import annotations

ALL_SCOPES = frozenset(
    {
        "content:read",
        "content:write",
        "prompts:read",
        "prompts:write",
        "simulations:read",
        "simulations:write",
        "logs:read",
        "analytics:read",
        "analytics:write",
        "products:read",
        "products:write",
    }
)

READ_SCOPES = frozenset(scope for scope in ALL_SCOPES if scope.endswith(":read"))

# A session carries a user, not scopes: the user's role in the organization decides.
ROLE_SCOPES: dict[str, frozenset[str]] = {
    "owner": ALL_SCOPES,
    "admin": ALL_SCOPES,
    "member": READ_SCOPES | {"content:write", "prompts:write", "products:write", "analytics:write"},
    "viewer": READ_SCOPES,
}


def parse_scopes(text: str) -> frozenset[str]:
    """Scopes from a comma- or space-separated list; `all` means every scope. An empty list and
    unknown scopes are refused, naming the valid ones."""
    names = {part for part in text.replace(",", " ").split() if part}
    valid = f"valid: all, {', '.join(sorted(ALL_SCOPES))}"
    if not names:
        raise ValueError(f"no scopes given ({valid})")
    if names == {"all"}:
        return ALL_SCOPES
    unknown = names - ALL_SCOPES
    if unknown:
        raise ValueError(f"unknown scopes: {', '.join(sorted(unknown))} ({valid})")
    return frozenset(names)
