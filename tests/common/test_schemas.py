"""load_json and load_query: 400 for what is not JSON, 422 with field paths for what does not fit."""

from __future__ import annotations

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from marshmallow import fields, validate
from multidict import CIMultiDict

from libs.common.errors import BadRequest, ValidationFailed
from libs.common.schemas import flatten_messages, load_json, load_query
from libs.contract.api_schema import ApiSchema
from libs.contract.validators import StrictString


class Page(ApiSchema):
    slug = StrictString(required=True, validate=validate.Length(min=1))


class Body(ApiSchema):
    product_id = StrictString(required=True)
    pages = fields.List(fields.Nested(Page), required=True, validate=validate.Length(min=1, max=2))


class Query(ApiSchema):
    page = fields.Integer(load_default=1)
    tags = fields.List(fields.String())


def request_with(body: bytes, content_type: str = "application/json") -> web.Request:
    request = make_mocked_request("POST", "/", headers=CIMultiDict({"Content-Type": content_type}))

    async def read() -> bytes:
        return body

    request.read = read  # type: ignore[method-assign]
    return request


async def test_a_valid_body_loads_with_snake_case_names():
    data = await load_json(request_with(b'{"productId": "p", "pages": [{"slug": "a"}]}'), Body())
    assert data == {"product_id": "p", "pages": [{"slug": "a"}]}


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (b"", "application/json", "a JSON body is required"),
        (b"{not json", "application/json", "the body is not valid JSON"),
        (b'{"a": NaN}', "application/json", "the body is not valid JSON"),
        (b'{"productId": "p"}', "text/plain", "the body must be sent as application/json"),
    ],
)
async def test_what_is_not_json_is_a_400(body, content_type, message):
    with pytest.raises(BadRequest) as caught:
        await load_json(request_with(body, content_type), Body())
    assert caught.value.message == message


async def test_problems_are_422_with_field_paths():
    with pytest.raises(ValidationFailed) as caught:
        await load_json(request_with(b'{"pages": [{"slug": ""}, {}], "extra": 1}'), Body())
    assert caught.value.details == {
        "productId": "Missing data for required field.",
        "pages.0.slug": "Shorter than minimum length 1.",
        "pages.1.slug": "Missing data for required field.",
        "extra": "Unknown field.",
    }


async def test_a_body_that_is_not_an_object_is_a_422():
    with pytest.raises(ValidationFailed) as caught:
        await load_json(request_with(b"[1, 2]"), Body())
    assert caught.value.details == {"_schema": "Invalid input type."}


def test_query_lists_take_repeated_parameters_and_scalars_refuse_them():
    assert load_query(make_mocked_request("GET", "/?tags=a&tags=b"), Query()) == {"page": 1, "tags": ["a", "b"]}
    with pytest.raises(ValidationFailed) as caught:
        load_query(make_mocked_request("GET", "/?page=1&page=2"), Query())
    assert caught.value.details == {"page": "Expected a single value."}


def test_unknown_query_parameters_are_refused():
    with pytest.raises(ValidationFailed) as caught:
        load_query(make_mocked_request("GET", "/?pgae=2"), Query())
    assert caught.value.details == {"pgae": "Unknown field."}


def test_flattening_keeps_every_message():
    assert flatten_messages({"a": {0: {"b": ["x", "y"]}}, "c": ["z"]}) == {"a.0.b": "x y", "c": "z"}


def test_a_time_with_any_offset_python_takes_is_loaded_as_the_same_moment_in_utc():
    from marshmallow import Schema, ValidationError

    from libs.contract.validators import UtcDateTime

    class Window(Schema):
        start = UtcDateTime()

    loaded = Window().load({"start": "5020-09-15T06:44:39-22:19"})["start"]
    assert loaded.utcoffset().total_seconds() == 0 and loaded.isoformat() == "5020-09-16T05:03:39+00:00"
    with pytest.raises(ValidationError):
        Window().load({"start": "9999-12-31T23:00:00-13:00"})  # past the calendar in UTC
