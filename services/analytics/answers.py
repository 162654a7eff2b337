"""Answers as the API shows them: the stored row and its current analysis, shaped once here for
the one answer and the list."""

from __future__ import annotations

from typing import Any

from libs.common.db import Row


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def _app_route(citation: dict[str, Any]) -> dict[str, Any] | None:
    if citation["route_id"] is None:
        return None
    app_id, route_id = str(citation["app_id"]), str(citation["route_id"])
    return {
        "appId": app_id,
        "routeId": route_id,
        "path": citation["route_path"],
        "href": f"/api/v1/apps/{app_id}/routes/{route_id}",
    }


def analysis_view(analysis: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(analysis["id"]),
        "version": analysis["version"],
        "competitorSetVersion": analysis["competitor_set_version"],
        "analysedAt": analysis["created_at"],
        "brands": [
            {
                "kind": brand["kind"],
                "competitorId": _id(brand["competitor_id"]),
                "name": brand["name"],
                "mentions": brand["mentions"],
                "position": brand["position"],
                "listRank": brand["list_rank"],
                "bucket": brand["bucket"],
                "sentiment": {"label": brand["sentiment_label"], "score": brand["sentiment_score"]},
                "spans": brand["spans"],
            }
            for brand in analysis["brands"]
        ],
        "citations": [
            {
                "url": citation["url"],
                "host": citation["host"],
                "domain": citation["domain"],
                "cited": citation["cited"],
                "classification": citation["classification"],
                "competitorId": _id(citation["competitor_id"]),
                "title": citation["title"],
                "spans": citation["spans"],
                "appRoute": _app_route(citation),
            }
            for citation in analysis["citations"]
        ],
    }


def answer_view(row: Row, analysis: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "externalId": row["external_id"],
        "organizationId": str(row["organization_id"]),
        "productId": str(row["product_id"]),
        "source": row["source"],
        "runId": _id(row["run_id"]),
        "prompt": {
            "id": _id(row["prompt_id"]),
            "version": row["prompt_version"],
            "text": row["prompt_text"],
            "topicId": _id(row["topic_id"]),
        },
        "engine": row["engine"],
        "model": row["model"],
        "status": row["status"],
        "text": row["text"],
        "citations": row["citations"],
        "sources": row["sources"],
        "usage": {
            "inputTokens": row["input_tokens"],
            "outputTokens": row["output_tokens"],
            "costUsd": None if row["cost_usd"] is None else float(row["cost_usd"]),
        },
        "answeredAt": row["answered_at"],
        "createdAt": row["created_at"],
        "analysis": None if analysis is None else analysis_view(analysis),
    }
