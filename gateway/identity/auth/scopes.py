"""The scopes of the contract, and what each membership role may do through a session."""

from __future__ import annotations

from libs.common.audit import SIGN_INS_SCOPE

# The contract's scope table, in its order: each scope and what it grants.
SCOPE_GRANTS: dict[str, str] = {
    "content:read": "read site pages, markdown content, llms.txt files",
    "content:write": "create, update, delete site pages and content",
    "prompts:read": "read prompts, topics, prompt suggestions, prompt analysis results",
    "prompts:write": "create, update, archive prompts; generate, edit, review prompt suggestions",
    "simulations:read": "read agent-simulation tasks, runs, environments, analytics",
    "simulations:write": "create and trigger simulation runs",
    "logs:read": "read AI-traffic logs and request-level audit events",
    "analytics:read": "read analytics aggregates (rankings, mentions, sources, share of voice)",
    "analytics:write": "write events to analytics",
    "products:read": "read product metadata and competitor data",
    "products:write": "update product settings and competitor lists",
    # Beside the contract's eleven: the organization's webhook endpoints and their deliveries.
    "webhooks:read": "read webhook endpoints and their deliveries",
    "webhooks:write": "create, change, test and delete webhook endpoints; retry deliveries",
    # The audit trail's sign-ins say where each member signs in from: for owners and admins.
    SIGN_INS_SCOPE: "read members' sign-ins in the audit trail, with the addresses they came from",
}
ALL_SCOPES = frozenset(SCOPE_GRANTS)

# What members and viewers may read: every read but members' sign-ins.
READ_SCOPES = frozenset(scope for scope in ALL_SCOPES if scope.endswith(":read")) - {SIGN_INS_SCOPE}

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
