"""What the API's parameters and fields mean, said once for every operation that uses them.

The OpenAPI document (gateway/openapi.py) describes each field by, in this order: its own
`metadata={"description": ...}` in its schema, the entry `"<Schema>.<jsonName>"` here, then the
entry `"<jsonName>"`. A field whose name means one thing everywhere is described by name alone;
where it means something else in one schema, that schema's entry says so. Enumerations get
their values appended by the generator, so the list never drifts from the validator.

`EXAMPLES` gives example values by field name where the type alone would make a poor or invalid
example (a slug, a hostname, a path); everything else is generated from the field's schema.
"""

from __future__ import annotations

from typing import Any

_WHEN = " (ISO 8601, UTC)"

FIELDS: dict[str, str] = {
    # Agent-simulation tasks.
    "goal": "What the agent is asked, in the words of someone looking for it.",
    "criteria": "The success criteria; each one's verdict, and why, is recorded with every run.",
    "referenceAnswer": "The answer a person would give, shown beside the agent's; null when none.",
    "stepBudget": "The most documents the agent may fetch for this task (the environment's `maxSteps` may be less).",
    "rerunOnChange": "Run the task's environments again when the organization's published content changes.",
    # Identity and ownership.
    "id": "The resource's id (a UUID).",
    "organizationId": "The id of the organization that owns it.",
    "productId": "The id of the product it belongs to.",
    "brandId": "The id of the product the document belongs to (the contract's older name for a product).",
    "appId": "The id of the App.",
    "name": "Its name, as people see it.",
    "slug": "Its slug: lowercase letters, digits and single hyphens, unique within its owner.",
    "organization": "The organization.",
    "product": "The product, with its id, name and slug; null when it has been deleted since.",
    "metadata": "Free-form JSON the client keeps with the resource; null when none.",
    # Lifecycle.
    "createdAt": "When it was created" + _WHEN + ".",
    "updatedAt": "When it last changed" + _WHEN + ".",
    "deletedAt": "When it was deleted" + _WHEN + "; null while it is live.",
    "publishedAt": "When it was last published" + _WHEN + "; null when never.",
    "startedAt": "When the run started" + _WHEN + "; null before it has.",
    "completedAt": "When the run ended" + _WHEN + "; null before it has.",
    "expiresAt": "When it stops working" + _WHEN + "; null when it does not expire.",
    "lastIndexedAt": "When the search index last took this version in" + _WHEN + "; null when not yet.",
    "indexedAt": "When the search index took the document in" + _WHEN + ".",
    # Lists and counts.
    "total": "How many items match, on all pages.",
    "items": "The items of this page.",
    "page": "The page number, from 1.",
    "pageSize": "How many items a page holds.",
    "totalPages": "How many pages the matching items fill.",
    "limit": "How many items at most in this answer.",
    "offset": "How many matching items to skip before the first one returned.",
    "cursor": "The `nextCursor` of the previous answer, to get the page after it.",
    "nextCursor": "The `cursor` for the next page; absent or null on the last page.",
    "query": "Text to search for.",
    "orderBy": "Which timestamp sorts the list.",
    "orderByDirection": "The sort direction: `asc` oldest first, `desc` newest first.",
    "scope": "Who the resource belongs to: the product or App the answer is about.",
    "count": "How many.",
    "createdCount": "How many were created.",
    "updatedCount": "How many were updated.",
    "deletedCount": "How many were deleted.",
    "failedCount": "How many failed (each is listed in `failed`).",
    "created": "The resources created.",
    "updated": "The resources updated.",
    "deleted": "The resources deleted.",
    "failed": "The items that failed, each with its own message; the others were applied.",
    "message": "Why it failed, for people.",
    # Content documents and site pages.
    "title": "The document's title.",
    "content": "The document's body, in markdown.",
    "description": "A short description, for people.",
    "descriptionForAgent": "A description written for AI agents reading the document.",
    "filePath": "The document's path within its product (`/pricing`).",
    "sourceUrl": "The page the document was taken from; null for one written here.",
    "status": "Whether the document is a draft or published.",
    "type": "The document's kind, free text (`page` unless it was given another).",
    "isManual": "Whether the document was written by hand rather than taken from a site.",
    "noIndex": "Whether search engines are asked not to index the page.",
    "redirectToUrl": "Where the page redirects (an http(s) URL or a path); null when it does not.",
    "metaTitle": "The page's HTML title for search engines.",
    "metaDescription": "The page's meta description for search engines.",
    "canonicalUrl": "The page's canonical URL.",
    "canonicalDomainId": "The id of the attached domain that is the document's canonical one.",
    "ogTitle": "The Open Graph title (link previews).",
    "ogDescription": "The Open Graph description (link previews).",
    "ogImage": "The URL of the Open Graph image (link previews).",
    "twitterTitle": "The title of the Twitter/X card.",
    "twitterDescription": "The description of the Twitter/X card.",
    "twitterImage": "The URL of the Twitter/X card's image.",
    "image": "The URL of the document's main image.",
    "cssSelector": "The CSS selector of the part of the source page the document was taken from.",
    "cssExcludeSelector": "The CSS selector of parts of the source page left out.",
    "sourceChecksum": "A checksum of the source page when it was last taken.",
    "tiptapJson": "The document as the editor's (Tiptap) JSON tree; null when not edited there.",
    "tags": "Free-form labels.",
    "priority": "How much the document matters to its product, from 0 (least) to 100 (most).",
    "currentDraftId": "The id of a draft pending for this published document; null when none.",
    "promptId": "The id of the prompt the document was written for; null when none.",
    "domains": "The domains the document is attached to.",
    "domain": "A hostname (`docs.example.com`).",
    "domainId": "The id of a domain.",
    "domainIds": "The ids of domains to attach the new page to.",
    "attachDomainIds": "The ids of domains to attach the page to.",
    "detachDomainIds": "The ids of domains to detach the page from.",
    "attach": "The ids of domains to attach the document to.",
    "detach": "The ids of domains to detach the document from.",
    "isCanonical": "Whether this is the document's canonical domain.",
    "hasContent": "Only documents with (true) or without (false) a body.",
    "pathPrefix": "Only documents whose path starts with this.",
    "includeRouted": "Whether documents the App already routes are listed too (as `already_routed`).",
    "pages": "The pages, each applied on its own.",
    "pageIds": "The ids of the pages to delete.",
    "path": "A URL path (`/pricing`).",
    # Apps.
    "config": "The configuration object, any JSON object the App's publishing reads.",
    "appConfig": "The App's configuration.",
    "resources": "What the App publishes: its products.",
    "resourceType": "The kind of resource.",
    "resourceId": "The id of the resource (for a product, the product's id).",
    "origin": "The origin the domain's traffic is sent to (an http(s) URL); null when none.",
    "providerId": "The id of the domain at its hosting provider.",
    "routes": "The URL routes.",
    "targetType": "The kind of resource the route points at.",
    "targetId": "The id of the resource the route points at (a content document).",
    "target": "The content document the route points at; null when it has been deleted since.",
    "suggestedPath": "The path the route would get: the document's own path.",
    "pathStatus": "Whether a route can be made at the suggested path.",
    "existingRoute": "The App's route already pointing at this document; null when none.",
    "pathConflict": "The App's route already holding this path for another document; null when none.",
    "input": "The row as it was sent.",
    "action": "What creating the routes would do with this row.",
    "issues": "What stands in the way of this row, if anything.",
    "valid": "Whether every row could be created as sent.",
    "createCount": "How many rows would be created.",
    "conflictCount": "How many rows conflict with existing routes or each other.",
    "skipCount": "How many rows would be skipped (already routed).",
    "candidateCount": "How many documents could be routed.",
    "candidates": "The documents that could be routed, with the path each would get.",
    # Legacy routing.
    "version": "The version of the configuration's format.",
    "hostname": "The hostname the configuration routes.",
    "mode": "How the configuration routes traffic.",
    "fallbackOrigin": "Where requests matching no path go.",
    "url": "An http(s) URL.",
    "paths": "The path prefixes routed to Apps.",
    "destination": "Where requests under the prefix go.",
    "preservePathPrefix": "Whether the prefix is kept in the path sent on.",
    "publishedHash": "A hash of the configuration last published; null when never.",
    "publishStatus": "The state of the last publication.",
    "publishError": "Why the last publication failed; null when it did not.",
    # Personas, topics and prompt suggestions.
    "systemPrompt": "The instructions an AI agent playing the persona is given.",
    "personas": "The personas.",
    "topics": "The topics.",
    "suggestions": "The prompt suggestions.",
    "personaId": "The id of the persona.",
    "topicId": "The id of the topic.",
    "prompt": "The suggested prompt's text.",
    # Search.
    "where": "Filters on the documents' fields; every one given must match.",
    "nResults": "How many documents at most.",
    "ids": "The ids found, one list per query.",
    "distances": "How far each document is from the query (smaller is closer), one list per query.",
    "metadatas": "The fields of each document found, one list per query.",
    "documents": "The text of each document found, one list per query.",
    "embeddings": "The documents' vectors when asked for; otherwise null.",
    "uris": "The documents' URIs when asked for; otherwise null.",
    "data": "Data stored with the documents when asked for; otherwise null.",
    "included": "Which of the lists above the answer holds.",
    "documentId": "The id of the content document.",
    "chunkIndex": "Which part of the document matched, from 0.",
    # Simulation runs.
    "runs": "The runs of this page, newest first.",
    "environmentId": "The id of the environment the run used.",
    "taskId": "The id of the task the run performed.",
    "environment": "The environment the run used: its agent configuration and task.",
    "task": "The task the run performed.",
    "category": "The task's category.",
    "agentConfig": "The agent's configuration in this environment; null when none.",
    "sandboxId": "The id of the sandbox the run used; null when none.",
    "sandboxSnapshot": "The sandbox snapshot the run started from; null when none.",
    "overallScore": "The run's overall score; null until it is scored.",
    "passed": "Whether the run passed; null until it is judged.",
    "tokensUsed": "How many model tokens the run used; null when not counted.",
    "costUsd": "What the run cost, in US dollars; null when not counted.",
    "duration": "How long the run took, in seconds; null until it ends.",
    "volumeIds": "The storage volumes the run used; null when none.",
    "logS3Keys": "Where the run's logs are stored; null when none.",
    # Credentials.
    "kind": "How the request proved itself.",
    "scopes": "The scopes the credential holds: what it may do.",
    "user": "The user behind a bearer token or a session; null for an API key.",
    "key": "The API key; null for a user.",
    "email": "The user's email address.",
    "prefix": "The first characters of the key, shown to tell keys apart.",
}

# Where a name means something else in one schema.
SCHEMA_FIELDS: dict[str, str] = {
    "Run.status": (
        "The run's state: `queued`, `running`, `completed` (judged, passed or not), `failed` (it could not be"
        " done; `metadata.error` says why) or `cancelled` (the contract leaves the values open, so runs recorded"
        " by an outside runner may carry others)."
    ),
    "RunListQuery.status": (
        "Only runs in this state: `queued`, `running`, `completed`, `failed` or `cancelled` (any value is"
        " accepted, as the contract leaves them open)."
    ),
    "Suggestion.status": "Where the suggestion stands in its review.",
    "SuggestionReview.status": "The review's decision.",
    "AppDomain.type": "What the domain is used for.",
    "DomainCreate.type": "What the domain is used for.",
    "AppDomain.scope": "Whether the domain belongs to an App or to a product.",
    "LegacyDestination.type": "The kind of destination.",
    "TaskRef.name": "The task's name.",
    "EnvironmentRef.name": "The environment's name.",
    "FailedPage.id": "The page's id, when the failure concerns an existing page.",
    "FailedPage.slug": "The slug the page was sent with.",
    "CreatedPage.slug": "The slug the page was sent with.",
    "PageCreate.slug": "The page's slug, unique within the request.",
    "SearchRequest.query": "What to look for, in plain words: documents are ranked by meaning.",
    "SitePageList.query": "The search text the list was filtered by.",
    "SitePageList.domain": "The hostname the list was filtered by.",
    "SitePageList.domainId": "The id of the domain the list was filtered by.",
    "SitePageList.type": "The document type the list was filtered by.",
    "SitePageList.status": "The status the list was filtered by.",
    "SitePageList.isManual": "The `isManual` the list was filtered by.",
    "SitePageList.pathPrefix": "The path prefix the list was filtered by.",
    "SitePageList.hasContent": "The `hasContent` the list was filtered by.",
    "SearchMetadata.type": "The document's kind.",
    "RegenerateResult.ids": "The ids of the prompt suggestions generated.",
    "RegenerateResult.count": "How many prompt suggestions were generated.",
    "Scope.product": "The product the pages belong to.",
    "Scope.organization": "The organization the pages belong to.",
    "ErrorEnvelope.ok": "Always false in an error.",
    "ContentByPathQuery.path": "The document's path within the product (`/pricing`), or its full URL.",
    # Domain ownership (docs/architecture.md, "Domain ownership").
    "DnsRecord.value": "The record's value: the token to publish in the TXT record.",
    "VerificationError.code": ("Why the check failed: `NO_RECORD`, `WRONG_VALUE`, `DNS_TIMEOUT` or `DNS_ERROR`."),
    "AppDomain.verifiedAt": "When the domain's ownership was proved" + _WHEN + "; null while it is not.",
    "AppDomain.verificationCheckedAt": "When the TXT record was last looked up"
    + _WHEN
    + "; null before the first check.",
    "AppDomain.releaseReason": (
        "Why the domain was released: `expired` (its claim lapsed unproved) or `claimed` (another organization"
        " proved the hostname); null while it is held."
    ),
    # Webhooks and the audit trail (docs/architecture.md, "Events").
    "Endpoint.events": 'The event types sent to the endpoint, or `["*"]` for every type.',
    "EndpointWithSecret.events": 'The event types sent to the endpoint, or `["*"]` for every type.',
    "Endpoint.enabled": "Whether events are sent to the endpoint.",
    "EndpointWithSecret.enabled": "Whether events are sent to the endpoint.",
    "EndpointUpdate.enabled": "Send events to the endpoint (true) or pause it (false).",
    "Endpoint.disabledReason": "Why the platform disabled the endpoint (failing for 5 days); null when it did not.",
    "EndpointWithSecret.disabledReason": (
        "Why the platform disabled the endpoint (failing for 5 days); null when it did not."
    ),
    "Endpoint.failingSince": "Since when every delivery to the endpoint has failed" + _WHEN + "; null when it answers.",
    "EndpointWithSecret.failingSince": (
        "Since when every delivery to the endpoint has failed" + _WHEN + "; null when it answers."
    ),
    "EndpointList.endpoints": "The organization's webhook endpoints.",
    "Attempt.number": "The attempt's number, from 1.",
    "Attempt.attemptedAt": "When the attempt was sent" + _WHEN + ".",
    "Attempt.statusCode": "The HTTP status the endpoint answered; null when it gave none (timeout, refused).",
    "Attempt.latencyMs": "How long the endpoint took to answer, in milliseconds.",
    "Attempt.error": "Why the attempt failed (no answer in time, refused, the status it answered); null on success.",
    "Delivery.endpointId": "The id of the endpoint the event is sent to.",
    "Delivery.eventId": "The event's id: the `webhook-id` header of every attempt.",
    "Delivery.eventType": "The event's type (`content.document.published`, ...).",
    "Delivery.attempts": "Each attempt so far, oldest first.",
    "Delivery.nextAttemptAt": "When the next attempt is due" + _WHEN + "; null when none is.",
    "Delivery.finishedAt": "When the delivery succeeded or was given up" + _WHEN + "; null while it goes on.",
    "TestResult.delivery": "The `ping` delivery sent.",
    "DeliveryList.deliveries": "A page of the endpoint's deliveries, newest first.",
    "AuditEvent.occurredAt": "When the request was made" + _WHEN + ".",
    "AuditEvent.method": "The request's HTTP method; null for an operator command.",
    "AuditEvent.clientAddress": "The client's address, as the trusted proxies give it; null for an operator command.",
    "AuditEvent.requestId": "The request's `X-Request-Id`; null for an operator command.",
    "AuditEvent.result": "How the request ended: `success` (a status below 400) or `failure`.",
    "AuditEventList.events": "A page of audit events, newest first.",
}

# Path parameters: by `<segment before it>/{name}` where one name means different things, else by name.
PARAMETERS: dict[str, str] = {
    "content/{id}": "The content document's id (a UUID).",
    "domain/{id}": "The domain's id (a UUID).",
    "orgId": "The organization's id (a UUID): the caller's own; another organization's is 404.",
    "appId": "The App's id (a UUID).",
    "routeId": "The route's id (a UUID).",
    "appResourceId": "The id of the App's resource (a UUID): the `id` its resource list gives, not the product's.",
    "domainId": "The domain's id (a UUID).",
    "productId": "The product's id (a UUID).",
    "personaId": "The persona's id (a UUID).",
    "suggestionId": "The prompt suggestion's id (a UUID).",
    "runId": "The simulation run's id (a UUID).",
    "taskId": "The agent-simulation task's id (a UUID).",
    "environmentId": "The agent-simulation environment's id (a UUID).",
    "endpointId": "The webhook endpoint's id (a UUID).",
    "deliveryId": "The webhook delivery's id (a UUID).",
}

# Example values where a field's type alone makes a poor one (patterns, free text).
EXAMPLES: dict[str, Any] = {
    "slug": "docs-home",
    "name": "Docs site",
    "domain": "docs.example.com",
    "hostname": "docs.example.com",
    "path": "/pricing",
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
