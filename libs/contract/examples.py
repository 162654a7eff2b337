"""Example values of the API's fields, by field name, where a field's type alone would make a poor
or invalid example (a slug, a hostname, a path); everything else is generated from the field's
schema (libs/common/openapi_examples.py). And the examples of answers that are documents, not JSON."""

from __future__ import annotations

from typing import Any

# Example values where a field's type alone makes a poor one (patterns, free text).
EXAMPLES: dict[str, Any] = {
    # Brands, answers, engines, AI traffic and simulations.
    "text": "The best documentation platforms for AI agents are Acme Docs and Globex.",
    "aliases": ["Acme", "Acme Docs"],
    "alias": "Acme Docs",
    "engines": ["openai-search", "perplexity-sonar"],
    "engine": "openai-search",
    "model": "gpt-4.1-mini",
    "vendor": "openai",
    "goal": "Find the price of the Team plan.",
    "referenceAnswer": "$29 per month",
    "host": "docs.example.com",
    "kind": "bm25",
    "source": "ingested",
    "key": "pricing",
    "tag": "pricing",
    "timeZone": "Europe/Paris",
    "userAgent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    "clientNetwork": "203.0.113.0/24",
    "referer": "https://chatgpt.com/",
    "operator": "OpenAI",
    "matchedBy": "rdns",
    "referralPlatform": "chatgpt",
    "granularity": "day",
    "groupBy": "bot",
    "patterns": ["GPTBot"],
    "pattern": "GPTBot",
    "docs": "https://platform.openai.com/docs/bots",
    "rdnsSuffixes": [".openai.com"],
    "rdnsSuffix": ".openai.com",
    "signatureAgents": ["https://chatgpt.com"],
    "signatureAgent": "https://chatgpt.com",
    # Analytics reports: days are whole UTC dates, [from, to).
    "from": "2026-11-01",
    "to": "2026-12-01",
    "report": "brands",
    "weekStarts": "monday",
    "basis": "mentions of every tracked brand",
    # The headers of a webhook delivery (Standard Webhooks).
    "webhook-id": "6d1c9f2e-3b4a-4f7e-9a10-2c8b5e7d4f31",
    "webhook-timestamp": "1764322200",
    "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
    "slug": "docs-home",
    "name": "Docs site",
    "domain": "docs.example.com",
    "hostname": "docs.example.com",
    "path": "/pricing",
    "href": "https://docs.example.com/pricing",
    "filePath": "/pricing",
    "suggestedPath": "/pricing",
    "pathPrefix": "/docs",
    "sourceUrl": "https://www.example.com/pricing",
    "redirectToUrl": "https://www.example.com/plans",
    "canonicalUrl": "https://www.example.com/pricing",
    "origin": "https://origin.example.com",
    "url": "https://origin.example.com",
    "ogImage": "https://www.example.com/og/pricing.png",
    "twitterImage": "https://www.example.com/og/pricing.png",
    "image": "https://www.example.com/og/pricing.png",
    "title": "Pricing",
    "metaTitle": "Pricing | Example",
    "content": "# Pricing\n\nEvery plan includes unlimited pages.",
    "description": "What each plan costs.",
    "query": "how do I publish a page",
    "email": "ada@example.com",
    "prefix": "avk_3kq8w2mz",
    "message": "A page with this slug already exists.",
    "systemPrompt": "You are a marketing lead comparing documentation platforms.",
    "prompt": "Which platform publishes docs for AI agents?",
    "cssSelector": "main article",
    "cssExcludeSelector": "nav, footer",
    "tags": ["pricing"],
    "scopes": ["content:read", "simulations:read"],
    "category": "research",
    "type": "page",
    # A document's status where it is not an enumeration (a run's gives its own example).
    "status": "published",
    "metaDescription": "What each plan costs, and what every plan includes.",
    "descriptionForAgent": "Prices of each plan, for agents comparing documentation platforms.",
    "ogTitle": "Pricing",
    "ogDescription": "What each plan costs.",
    "twitterTitle": "Pricing",
    "twitterDescription": "What each plan costs.",
    "event": "content.document.published",
    "eventType": "content.document.published",
    "disabledReason": "deliveries failed for 3 days, since 2026-10-30T09:30:00+00:00",
    "value": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "nextCursor": "MjAyNi0xMS0wMlQwOTozMDowMFp8M2YyYjhjMWU",
    "cursor": "MjAyNi0xMS0wMlQwOTozMDowMFp8M2YyYjhjMWU",
    "sourceChecksum": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    "publishedHash": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    "publishError": "The origin answered 502 while the configuration was published.",
    "response": '{"received": true}',
    "error": "no answer within 10 seconds",
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "targetType": "product_document",
    "action": "app.created",
    "actor": "ada@example.com",
    "resourceType": "app",
    "method": "POST",
    "clientAddress": "203.0.113.7",
    "result": "success",
    "If-None-Match": '"5d41402abc4b2a76"',
    "If-Match": '"5d41402abc4b2a76"',
    "document": "Every plan includes unlimited pages and a custom domain.",
    "uri": "https://docs.example.com/pricing",
    "included": ["documents", "uris"],
    "sandboxSnapshot": "snapshot-2026-11-01-base",
}

# Answers that are documents rather than JSON (an App's llms.txt, its markdown pages, its sitemap), by media type.
DOCUMENT_EXAMPLES: dict[str, str] = {
    "text/plain": (
        "# Docs site\n\n> Guides and reference for Example's products.\n\n"
        "The full text of every page: https://docs.example.com/llms-full.txt\n\n"
        "## Docs\n\n- [Pricing](https://docs.example.com/pricing): What each plan costs.\n"
    ),
    "text/markdown": "# Pricing\n\nEvery plan includes unlimited pages.\n",
    "application/xml": (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "  <url><loc>https://docs.example.com/pricing</loc><lastmod>2026-01-05</lastmod></url>\n"
        "</urlset>\n"
    ),
}
