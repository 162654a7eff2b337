"""libs/common/shapes.py: a response schema read into the select list, the answer and SQL-built JSON."""

from __future__ import annotations

import pytest
from marshmallow import fields

from libs.common.shapes import Shape, as_text
from libs.contract.api_schema import ApiSchema


class Owner(ApiSchema):
    id = fields.String(required=True)
    display_name = fields.String(required=True)


class Thing(ApiSchema):
    id = fields.String(required=True)
    shown_name = fields.String(required=True)
    is_big = fields.Boolean(required=True)
    label = fields.String(required=True)
    owner = fields.Nested(Owner, required=True)
    extras = fields.List(fields.String(), required=True)


def test_each_field_comes_from_its_column_an_expression_or_python():
    shape = Shape(
        Thing,
        expressions={"is_big": "size > 10"},
        computed={"id": as_text("id"), "label": lambda row: row["shown_name"].upper()},
        omit=("owner", "extras"),
        extra_columns=("id", "organization_id"),
    )
    assert shape.columns == "shown_name, size > 10 AS is_big, id, organization_id"
    assert shape.columns_of("t") == "t.shown_name, size > 10 AS is_big, t.id, t.organization_id"
    row = {"id": 7, "shown_name": "lamp", "is_big": False, "organization_id": "o"}
    assert shape.of(row) == {"id": "7", "shownName": "lamp", "isBig": False, "label": "LAMP"}
    assert shape.keys == ("id", "shownName", "isBig", "label")


def test_postgresql_builds_the_same_keys_nested_shapes_from_their_joined_rows():
    shape = Shape(Thing, expressions={"is_big": "t.size > 10"}, nested={"owner": (Shape(Owner), "o")}, omit=("label",))
    assert shape.json_sql("t") == (
        "json_build_object('id', t.id, 'shownName', t.shown_name, 'isBig', t.size > 10,"
        " 'owner', json_build_object('id', o.id, 'displayName', o.display_name), 'extras', t.extras)"
    )
    assert Shape(Owner).json_sql() == "json_build_object('id', id, 'displayName', display_name)"
    with pytest.raises(ValueError, match="built in SQL only"):
        shape.of({})


def test_a_shape_refuses_what_its_schema_does_not_declare_and_what_sql_cannot_build():
    with pytest.raises(ValueError, match="Thing has no field colour"):
        Shape(Thing, expressions={"colour": "1"})
    with pytest.raises(ValueError, match="cannot be built in SQL"):
        Shape(Thing, computed={"label": as_text("shown_name")}).json_sql("t")
    with pytest.raises(ValueError, match="plain alias"):
        Shape(Owner).json_sql("o; DROP TABLE x")


def test_a_nullable_column_as_text_stays_null_in_the_compiled_answer_and_alone():
    shape = Shape(Owner, computed={"id": as_text("id", nullable=True)})
    assert [shape.of({"id": value, "display_name": "x"})["id"] for value in (None, 7)] == [None, "7"]
    assert as_text("id", nullable=True)({"id": None}) is None
    assert as_text("id")({"id": None}) == "None"
