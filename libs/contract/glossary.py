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
    # Brands, competitors, tracked prompts, engines and answers.
    "aliases": "Other names it goes by, as people write them (at most 20, each once whatever its case).",
    "competitorSetVersion": (
        "The product's competitor-set version: every change of one of its competitors adds one; an analysis"
        " records the version it was made with."
    ),
    "engines": "The engines it is asked of, by id (`GET /api/v1/engines`); empty: the product's default engines.",
    "cadence": "How often it is asked: every day, every week, or only when a run is started.",
    "samples": "How many times each engine is asked at each run (1-5): answers vary between asks.",
    "vendor": "Who runs the engine.",
    "searchesWeb": "Whether the engine searches the web before answering (its answers then cite pages).",
    "model": "The model that answered (or, in the catalog, the one this deployment asks).",
    "configured": "Whether this deployment holds the vendor's key: an engine that does not is refused, never imitated.",
    "answeredAt": "When the engine answered" + _WHEN + ".",
    "inputTokens": "Tokens of the prompt, as the vendor counted them; null when unknown.",
    "outputTokens": "Tokens of the answer, as the vendor counted them; null when unknown.",
    "analysedAt": "When the analysis was made" + _WHEN + ".",
    "mentions": "How many times the answer names it.",
    "position": "1 + how many other tracked brands the answer names first.",
    "listRank": "Its rank in the first numbered or bulleted list, or table, naming it; null when none does.",
    "bucket": "Which third of the answer first names it.",
    "spans": "Where the answer names it: character offsets into its text.",
    "cited": "Whether the answer cites the page (false: the engine only retrieved it).",
    "classification": "`owned`: a domain of the brand; `competitor`: a competitor's; `third_party`: anyone else's.",
    "brandMentioned": "Only answers that mention the product's own brand (`true`) or that do not (`false`).",
}

# Where a name means something else in one schema.
SCHEMA_FIELDS: dict[str, str] = {
    # Brands, competitors, tracked prompts, engines and answers.
    "Brand.name": "The name AI answers are searched for: the product's name unless another is set.",
    "Brand.domains": "Hostnames the brand owns: a cited page on one of them, or under one, is `owned`.",
    "BrandUpdate.name": "The brand's name; null goes back to the product's name.",
    "BrandUpdate.domains": (
        "Hostnames the brand owns (at most 50): a cited page on one of them, or under one, is `owned`."
    ),
    "ProductDetail.brand": "How AI answers are searched for the product.",
    "ProductUpdate.brand": "The brand fields to change; those left out stay.",
    "Competitor.name": "The competitor's name, unique among the product's competitors (case-insensitive).",
    "CompetitorCreate.name": "The competitor's name, unique among the product's competitors (case-insensitive).",
    "CompetitorUpdate.name": "The competitor's name, unique among the product's competitors (case-insensitive).",
    "Competitor.domains": "Hostnames the competitor owns: a cited page on one of them, or under one, is `competitor`.",
    "CompetitorCreate.domains": "Hostnames the competitor owns (at most 50).",
    "CompetitorUpdate.domains": "Hostnames the competitor owns (at most 50).",
    "Prompt.text": "The prompt as it is asked of the engines.",
    "PromptCreate.text": "The prompt as it is asked of the engines; unique among the product's prompts not archived.",
    "PromptUpdate.text": "A new text: the prompt's version goes up by one.",
    "Prompt.version": "How many texts the prompt has had: 1, then one more at each edit of its text.",
    "Prompt.suggestionId": "The prompt suggestion it was made from; null when written directly.",
    "Prompt.status": (
        "`active` prompts run on their cadence; `paused` ones keep their answers but do not run; `archived`"
        " ones free their text."
    ),
    "PromptCreate.status": "Whether it runs on its cadence (`active`) or not yet (`paused`).",
    "PromptUpdate.status": (
        "Whether it runs on its cadence (`active`) or not (`paused`); an archived prompt is unarchived instead."
    ),
    "PromptListQuery.status": "Only prompts in this state.",
    "PromptListQuery.tag": "Only prompts with this tag.",
    "PromptListQuery.engine": "Only prompts asked of this engine.",
    "PromptListQuery.cadence": "Only prompts with this cadence.",
    "Engine.id": "The engine's stable id, as prompts, runs and answers name it.",
    "Engine.name": "The engine, as people know it.",
    "AnswerIngest.id": (
        "The collector's own id of the answer: sent again, it is the same answer (200); with another body, a 409."
    ),
    "AnswerIngest.promptId": (
        "The tracked prompt the answer answers (its current version is recorded); or send `prompt`."
    ),
    "AnswerIngest.prompt": "The prompt's text, when it is not a tracked prompt of the product.",
    "AnswerIngest.engine": (
        "The engine that answered: an id of the catalog, or the collector's own (lowercase letters, digits,"
        " `.` and `-`)."
    ),
    "AnswerIngest.text": "The answer's text as the engine gave it (at most 200,000 characters).",
    "AnswerIngest.status": "`completed` (with text), `empty`, `refused` (the engine declined) or `failed`.",
    "AnswerIngest.citations": "The pages the answer cites, in order (at most 200).",
    "AnswerIngest.sources": "Pages the engine retrieved, cited or not (at most 500).",
    "AnswerIngest.usage": "Tokens and cost of the answer, when the collector knows them.",
    "Usage.costUsd": "What the answer cost, in US dollars; null when unknown.",
    "UsageIn.costUsd": "What the answer cost, in US dollars.",
    "PageIn.title": "The page's title, as the engine gave it.",
    "Page.title": "The page's title, as the engine gave it; null when none.",
    "Citation.title": "The page's title, as the engine gave it; null when none.",
    "Answer.externalId": "The collector's own id of an ingested answer; null for an answer of a prompt run.",
    "Answer.source": "`run`: asked by a prompt run; `ingested`: sent by the organization's own collector.",
    "Answer.runId": "The prompt run that asked it; null for an ingested answer.",
    "Answer.prompt": "The prompt answered: the tracked prompt and the version of its text, or only the text.",
    "Answer.engine": "The engine that answered.",
    "Answer.text": "The answer's text, exactly as the engine gave it.",
    "Answer.status": "`completed` (with text), `empty`, `refused` (the engine declined) or `failed`.",
    "Answer.citations": "The pages the engine cited, as it gave them (never changed).",
    "Answer.sources": "The pages the engine retrieved, as it gave them (never changed).",
    "Answer.usage": "Tokens and cost of the answer.",
    "Answer.analysis": "The answer's current analysis; null for the moments before it is made.",
    "PromptRef.id": "The tracked prompt's id; null when only the text was sent.",
    "PromptRef.version": "The version of the prompt's text the answer answered; null when only the text was sent.",
    "PromptRef.text": "The prompt's text the answer answered.",
    "Analysis.id": "The analysis's id (a UUID).",
    "Analysis.version": "The version of the analysis rules it was made with.",
    "Analysis.brands": "The tracked brands the answer mentions (the product's own and its competitors), by position.",
    "Analysis.citations": "Every page the answer cites, then those only retrieved, each once (normalised URL).",
    "BrandMention.kind": "`brand`: the product's own; `competitor`: one of its competitors.",
    "BrandMention.name": "The brand's name when the answer was analysed.",
    "BrandMention.competitorId": "The competitor's id; null for the product's own brand.",
    "BrandMention.sentiment": "The sentiment of the sentences naming it (VADER; reads English).",
    "Sentiment.label": "The score's reading: positive from 0.05, negative to -0.05, else neutral.",
    "Sentiment.score": "The mean compound score of the sentences, from -1 to 1.",
    "Span.start": "The offset of its first character in the answer's text.",
    "Span.end": "The offset after its last character.",
    "Span.text": "The text as the answer writes it.",
    "Span.fuzzy": "A near spelling of one of its names, not a name as written.",
    "Citation.url": "The page's URL, normalised: lowercase host, no fragment, default port or tracking parameters.",
    "Citation.host": "The page's host.",
    "Citation.domain": "The registrable domain of the host (by the public suffix list).",
    "Citation.competitorId": "The competitor owning the page's domain; null unless `competitor`.",
    "AnswerListQuery.engine": "Only answers of this engine.",
    "AnswerListQuery.competitorId": "Only answers that mention this competitor.",
    "AnswerListQuery.domain": "Only answers citing a page of this registrable domain or host.",
    "AnswerListQuery.from": "Only answers given at or after this time" + _WHEN + ".",
    "AnswerListQuery.to": "Only answers given before this time" + _WHEN + ".",
    "AnswerListQuery.runId": "Only answers of this prompt run.",
    "AnswerListQuery.promptId": "Only answers of this tracked prompt.",
    "PromptRunCreate.promptIds": (
        "The prompts to ask (active or paused, at most 100); left out, every active prompt of the product."
    ),
    "PromptRunCreate.engines": (
        "The engines to ask, each configured here; left out, each prompt's own, else every configured engine."
    ),
    "PromptRunCreate.samples": "How many times each engine is asked each prompt (1-5); left out, each prompt's own.",
    "PromptRunListQuery.status": "Only runs in this state.",
    "PromptRun.trigger": "`manual`: started by a call; `schedule`: started by its prompt's cadence.",
    "PromptRun.status": (
        "`queued`, `running`, then `completed` (every answer), `partial` (some failed), `failed` (none) or `cancelled`."
    ),
    "PromptRun.promptIds": "The prompts the run asks.",
    "PromptRun.engines": "The engines the run asks.",
    "PromptRun.samples": "How many times each engine is asked each prompt.",
    "PromptRun.progress": "How many answers the run asks for, and how many it has and could not get.",
    "PromptRun.usage": "Tokens and cost of the run's answers so far.",
    "PromptRun.finishedAt": "When the run ended" + _WHEN + "; null while it runs.",
    "PromptRunProgress.total": "How many answers the run asks for (prompts × engines × samples).",
    "PromptRunProgress.done": "How many answers it has.",
    "PromptRunProgress.failed": "How many asks failed after the vendor's retries.",
    "PromptRunUsage.costUsd": "What the run's answers cost so far, in US dollars (answers of unknown cost count 0).",
    "Run.status": (
        "The run's state as the simulation runner records it: `queued`, `running`, `completed`, `failed` or"
        " `cancelled` (the contract leaves the values open, so others may appear)."
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
    "endpointId": "The webhook endpoint's id (a UUID).",
    "deliveryId": "The webhook delivery's id (a UUID).",
    "competitorId": "The competitor's id (a UUID).",
    "promptId": "The tracked prompt's id (a UUID).",
    "answerId": "The answer's id (a UUID).",
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
