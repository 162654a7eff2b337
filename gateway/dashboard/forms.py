"""A dashboard form that creates or changes through one API route, and shows what the API refuses
beside the field it refuses.

A form is declared once (`Form`: its title, where it goes back to, its fields named as the API's
body fields); `show` renders it (`form.html`), `field_errors` turns the API's 409/422 into
messages keyed by those fields (`details` is the flat map of field path to message every part
answers, libs/common/schemas.py `flatten_messages`), anything unkeyed going above the form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from gateway.dashboard.render import render
from gateway.dashboard.session import Membership
from libs.common.errors import ApiError

FORM = "form"  # the key of a message that belongs to no one field


@dataclass(frozen=True)
class Field:
    """One input, named as the API's body field it fills. `kind`: text, url, textarea, json (a
    textarea read as a JSON object), select (one of `options`), checkboxes (any of `options`)."""

    name: str
    label: str
    kind: str = "text"
    hint: str = ""
    required: bool = False
    options: tuple[tuple[str, str], ...] = ()
    max_length: int | None = None


@dataclass(frozen=True)
class Form:
    title: str
    submit: str
    back: str
    back_label: str
    fields: tuple[Field, ...]
    intro: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def field_errors(error: ApiError, names: Sequence[str], prefix: str = "") -> dict[str, str]:
    """The API's refusal as messages by field: `details` keys (after `prefix`, such as `routes.0.`)
    whose first segment is a field of the form go beside it, the rest (and the message, when no
    field is named) above the form."""
    details = error.details if isinstance(error.details, dict) else {}
    errors: dict[str, str] = {}
    rest = []
    for key, message in details.items():
        text = " ".join(map(str, message)) if isinstance(message, list) else str(message)
        path = str(key).removeprefix(prefix)
        name = path.split(".", 1)[0]
        if name in names:
            errors[name] = f"{errors[name]} {text}" if name in errors else text
        else:
            rest.append(text)
    if rest or not errors:
        errors[FORM] = " ".join(rest) if rest else error.message
    return errors


async def show(
    request: web.Request,
    membership: Membership,
    form: Form,
    values: Mapping[str, Any] | None = None,
    errors: Mapping[str, str] | None = None,
    status: int = 200,
) -> web.Response:
    context = {"membership": membership, "form": form, "values": values or {}, "errors": errors or {}}
    return await render(request, "form.html", context, status=status)


async def refused(
    request: web.Request,
    membership: Membership,
    form: Form,
    values: Mapping[str, Any],
    error: ApiError,
    prefix: str = "",
) -> web.Response:
    """The form again, with the values sent and the API's reasons beside their fields (a refusal
    other than 409/422 is raised, to the error page)."""
    if error.status not in (409, 422):
        raise error
    errors = field_errors(error, [item.name for item in form.fields], prefix)
    return await show(request, membership, form, values, errors, status=error.status)


def text(form: Mapping[str, Any], name: str) -> str:
    return str(form.get(name, "")).strip()
