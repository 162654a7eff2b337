"""Request and response shapes of the search service.

The body is the contract's `{query}` plus optional fields in the manner of a vector store's
query: `nResults`, `where` and `include`. The answer holds one inner list per query (always
one here), of documents, best first.
"""

from __future__ import annotations

from marshmallow import fields, validate

from libs.contract.api_schema import ApiSchema
from libs.contract.validators import JsonInteger, StrictString, UuidString, length

QUERY_MAX = 2000
DEFAULT_RESULTS, MAX_RESULTS = 10, 100
STATUSES = ("draft", "published")
INCLUDABLE = ("documents", "metadatas", "distances", "embeddings", "uris")
DEFAULT_INCLUDE = ["documents", "metadatas", "distances", "uris"]


class SearchWhere(ApiSchema):
    """Filters, applied before ranking."""

    product_id = UuidString(metadata={"description": "Only this product's documents."})
    status = StrictString(
        validate=validate.OneOf(STATUSES),
        metadata={"description": "Documents with this status; published when left out."},
    )
    type = StrictString(validate=length(1, 100), metadata={"description": "Only documents of this type."})


class SearchRequest(ApiSchema):
    query = StrictString(required=True, validate=length(1, QUERY_MAX))
    n_results = JsonInteger(
        load_default=DEFAULT_RESULTS,
        validate=validate.Range(min=1, max=MAX_RESULTS),
        metadata={"description": "How many documents to return at most."},
    )
    where = fields.Nested(SearchWhere, load_default=dict)
    include = fields.List(
        StrictString(validate=validate.OneOf(INCLUDABLE)),
        load_default=lambda: list(DEFAULT_INCLUDE),
        metadata={"description": "Which lists to fill; the others are empty (embeddings: null). Echoed in `included`."},
    )


class SearchMetadata(ApiSchema):
    document_id = fields.String(required=True)
    title = fields.String(required=True)
    file_path = fields.String(required=True, allow_none=True)
    source_url = fields.String(required=True, allow_none=True)
    status = fields.String(required=True)
    type = fields.String(required=True, allow_none=True)
    product_id = fields.String(required=True)
    chunk_index = fields.Integer(required=True)
    indexed_at = fields.String(required=True)


class SearchResult(ApiSchema):
    ids = fields.List(fields.List(fields.String()), required=True)
    distances = fields.List(
        fields.List(fields.Float()), required=True, metadata={"description": "Cosine distances (1 - similarity)."}
    )
    metadatas = fields.List(fields.List(fields.Nested(SearchMetadata)), required=True)
    embeddings = fields.Raw(
        required=True,
        allow_none=True,
        metadata={"description": "The best chunk's vector of each document, if included."},
    )
    documents = fields.List(
        fields.List(fields.String()), required=True, metadata={"description": "The best-matching chunk's text."}
    )
    uris = fields.List(fields.List(fields.String()), required=True, metadata={"description": "Each document's URL."})
    data = fields.Raw(required=True, allow_none=True)
    included = fields.List(fields.String(), required=True)
