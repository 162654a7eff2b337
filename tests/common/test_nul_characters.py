"""Strings with a NUL character, which PostgreSQL cannot store, are refused at the edge by path."""

from __future__ import annotations

import pytest
from marshmallow import fields

from libs.common.errors import ValidationFailed
from libs.common.schemas import load_data, nul_paths
from libs.contract.api_schema import ApiSchema


class Sample(ApiSchema):
    title = fields.String()
    tags = fields.List(fields.String())
    extra = fields.Raw()


def test_nul_paths_name_every_string_and_key_holding_one():
    value = {"title": "a\x00", "tags": ["ok", "b\x00"], "extra": {"deep": [{"x\x00": 1}, "fine"]}}
    assert nul_paths(value) == ["title", "tags.1", "extra.deep.0.x\x00"]
    assert nul_paths("\x00") == ["body"]
    assert nul_paths({"title": "clean", "n": 1, "none": None}) == []


def test_loading_refuses_nul_characters_before_the_schema_sees_them():
    with pytest.raises(ValidationFailed) as caught:
        load_data(Sample(), {"title": "x\x00y", "extra": ["\x00"]})
    assert caught.value.details == {
        "title": "Must not contain NUL characters.",
        "extra.0": "Must not contain NUL characters.",
    }
