"""A resource's shape, declared once: its response schema, read back into rows and SQL.

The response schema (an `ApiSchema`: snake_case attributes, camelCase JSON keys) is what the
OpenAPI document shows. A `Shape` reads it: each field comes from the column of the same name,
unless `expressions` gives the SQL that computes it (`verified_at IS NOT NULL`) or `computed`
the Python that makes it from the row (a challenge built from a token). From that one list it
gives the select list, the row's answer (and webhook payload: the same dict), and the SQL that
makes PostgreSQL build the same JSON where that is faster. Adding a column-backed field to the
schema is then the only edit: the answer, the OpenAPI document and the webhook payload all
carry it (tests/common/test_shapes.py).

    APP = Shape(responses.App)
    rows = await fetch_all(cur, f"SELECT {APP.columns} FROM apps WHERE ...")
    return [APP.of(row) for row in rows]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from marshmallow import Schema

Row = Mapping[str, Any]
# Field names, keys and aliases go into SQL text as they are: only these characters may.
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class as_text:  # noqa: N801 - used as a function: `computed={"id": as_text("id")}`
    """A `computed` field: the column as text (a uuid compared with ids other parts send); with
    `nullable`, a null column stays null."""

    column: str
    nullable: bool = False

    def __call__(self, row: Row) -> str | None:
        value = row[self.column]
        return None if value is None and self.nullable else str(value)


class Shape:
    def __init__(
        self,
        schema: type[Schema],
        *,
        expressions: Mapping[str, str] | None = None,
        computed: Mapping[str, Callable[[Row], Any]] | None = None,
        nested: Mapping[str, tuple[Shape, str]] | None = None,
        omit: tuple[str, ...] = (),
        extra_columns: tuple[str, ...] = (),
    ) -> None:
        """`schema`'s fields, each from its column unless given an SQL `expression` or `computed`
        from the row, or `nested`: (its shape, the alias of its joined table) for SQL-built JSON;
        `omit` leaves out fields the caller attaches (a route's target), and `extra_columns` are
        read although no field shows them (the inputs of `computed`)."""
        self.schema = schema
        declared = schema().fields
        self._expressions = dict(expressions or {})
        self._computed = dict(computed or {})
        self._nested = dict(nested or {})
        named = set(self._expressions) | set(self._computed) | set(self._nested) | set(omit)
        unknown = named - set(declared)
        if unknown:
            raise ValueError(f"{schema.__name__} has no field {', '.join(sorted(unknown))}")
        plain = [*declared, *(field.data_key or "" for field in declared.values()), *extra_columns]
        plain += [alias for _, alias in self._nested.values()]
        if not all(_PLAIN.fullmatch(name) for name in plain if name):
            raise ValueError(f"{schema.__name__}: a name or alias that is not a plain identifier")
        # (attribute, JSON key) of every field the shape makes, in the schema's order.
        self.fields: tuple[tuple[str, str], ...] = tuple(
            (name, field.data_key or name) for name, field in declared.items() if name not in omit
        )
        self._of = self._compile()
        self._read = tuple(name for name, _ in self.fields if name not in self._computed and name not in self._nested)
        self._extra = tuple(column for column in extra_columns if column not in self._read)
        self.columns = self.columns_of(None)

    def columns_of(self, alias: str | None) -> str:
        """The select list, each column of the table `alias` (an expression is written as given)."""
        prefix = "" if alias is None else f"{alias}."
        selected = [
            f"{prefix}{name}" if name not in self._expressions else f"{self._expressions[name]} AS {name}"
            for name in self._read
        ]
        return ", ".join([*selected, *(f"{prefix}{column}" for column in self._extra)])

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for _, key in self.fields)

    def of(self, row: Row) -> dict[str, Any]:
        """The resource as answers and webhook payloads show it, from a row read with `columns`."""
        if self._nested:
            raise ValueError(f"{self.schema.__name__}: a shape with nested shapes is built in SQL only")
        return self._of(row)

    def _compile(self) -> Callable[[Row], dict[str, Any]]:
        """`of` as one dict display (`{"id": row["id"], ...}`), as fast as a mapper written by hand:
        it runs for every row of every list. The names in it are plain identifiers (checked above)."""
        namespace: dict[str, Any] = {}
        values = []
        for index, (name, key) in enumerate(self.fields):
            make = self._computed.get(name)
            if make is None:
                values.append(f"{key!r}: row[{name!r}]")
            elif isinstance(make, as_text) and _PLAIN.fullmatch(make.column):
                text = f"str(row[{make.column!r}])"
                if make.nullable:
                    text = f"(None if row[{make.column!r}] is None else {text})"
                values.append(f"{key!r}: {text}")
            else:
                namespace[f"make_{index}"] = make
                values.append(f"{key!r}: make_{index}(row)")
        exec(f"def of(row):\n    return {{{', '.join(values)}}}\n", namespace)  # noqa: S102
        of: Callable[[Row], dict[str, Any]] = namespace["of"]
        return of

    def json_sql(self, alias: str | None = None) -> str:
        """`json_build_object(...)` of the row `alias` (unqualified columns without one; the nested
        shapes' from their joined rows): the same keys and values as `of`, built by PostgreSQL.
        No field may be `computed` in Python."""
        if self._computed:
            raise ValueError(f"{self.schema.__name__}: fields computed in Python cannot be built in SQL")
        if alias is not None and not _PLAIN.fullmatch(alias):
            raise ValueError(f"{alias!r} is not a plain alias")
        pairs = ", ".join(f"'{key}', {self._value_sql(alias, name)}" for name, key in self.fields)
        return f"json_build_object({pairs})"

    def _value_sql(self, alias: str | None, name: str) -> str:
        if name in self._nested:
            shape, nested_alias = self._nested[name]
            return shape.json_sql(nested_alias)
        return self._expressions.get(name) or (name if alias is None else f"{alias}.{name}")
