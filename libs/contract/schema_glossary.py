"""What a field means in one schema where its name alone means something else there: the entries
`"<Schema>.<jsonName>"` the OpenAPI document (gateway/edge/openapi.py) reads before the glossary's
entry by name (libs/contract/glossary.py)."""

from __future__ import annotations

from libs.contract.glossary import WHEN

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
    "Span.text": "The text as the answer writes it.",
    "Span.fuzzy": "A near spelling of one of its names, not a name as written.",
    "Citation.url": "The page's URL, normalised: lowercase host, no fragment, default port or tracking parameters.",
    "Citation.host": "The page's host.",
    "Citation.domain": "The registrable domain of the host (by the public suffix list).",
    "Citation.competitorId": "The competitor owning the page's domain; null unless `competitor`.",
    "AnswerListQuery.engine": "Only answers of this engine.",
    "AnswerListQuery.competitorId": "Only answers that mention this competitor.",
    "AnswerListQuery.domain": "Only answers citing a page of this registrable domain or host.",
    "AnswerListQuery.from": "Only answers given at or after this time" + WHEN + ".",
    "AnswerListQuery.to": "Only answers given before this time" + WHEN + ".",
    "AnswerListQuery.runId": "Only answers of this prompt run.",
    "AnswerListQuery.promptId": "Only answers of this tracked prompt.",
    "ReanalysisRequest.answerIds": "Only these answers of the product (at most 1,000); left out, all of them.",
    "ReanalysisQueued.queued": "How many answers are queued for a new analysis.",
    "ReanalysisQueued.analysisVersion": "The version of the analysis rules the new analyses are made with.",
    "SuggestionReview.track": "With `accepted`: track the suggestion as a prompt of its product (once).",
    "SuggestionReviewed.trackedPromptId": "The tracked prompt made from the suggestion (with `track`).",
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
    "PromptRun.finishedAt": "When the run ended" + WHEN + "; null while it runs.",
    "PromptRunProgress.total": "How many answers the run asks for (prompts × engines × samples).",
    "PromptRunProgress.done": "How many answers it has.",
    "PromptRunProgress.failed": "How many asks failed after the vendor's retries.",
    "PromptRunUsage.costUsd": "What the run's answers cost so far, in US dollars (answers of unknown cost count 0).",
    "Delivery.status": "Where the delivery stands: `pending` (to be sent or retried), `succeeded` or `failed`.",
    "AuditEvent.status": "The HTTP status the request was answered with; null when it had no answer.",
    "AuditEvent.action": "What was done, as `<resource type>.<action>` (`app.created`, `session.sign_in`).",
    "DnsRecord.type": "The DNS record's type.",
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
    "SuggestionReviewed.status": "Where the suggestion stands in its review.",
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
    "AppDomain.verifiedAt": "When the domain's ownership was proved" + WHEN + "; null while it is not.",
    "AppDomain.verificationCheckedAt": "When the TXT record was last looked up"
    + WHEN
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
    "Endpoint.failingSince": "Since when every delivery to the endpoint has failed" + WHEN + "; null when it answers.",
    "EndpointWithSecret.failingSince": (
        "Since when every delivery to the endpoint has failed" + WHEN + "; null when it answers."
    ),
    "EndpointList.endpoints": "The organization's webhook endpoints.",
    "Attempt.number": "The attempt's number, from 1.",
    "Attempt.attemptedAt": "When the attempt was sent" + WHEN + ".",
    "Attempt.statusCode": "The HTTP status the endpoint answered; null when it gave none (timeout, refused).",
    "Attempt.latencyMs": "How long the endpoint took to answer, in milliseconds.",
    "Attempt.error": "Why the attempt failed (no answer in time, refused, the status it answered); null on success.",
    "Delivery.endpointId": "The id of the endpoint the event is sent to.",
    "Delivery.eventId": "The event's id: the `webhook-id` header of every attempt.",
    "Delivery.eventType": "The event's type (`content.document.published`, ...).",
    "Delivery.attempts": "Each attempt so far, oldest first.",
    "Delivery.nextAttemptAt": "When the next attempt is due" + WHEN + "; null when none is.",
    "Delivery.finishedAt": "When the delivery succeeded or was given up" + WHEN + "; null while it goes on.",
    "TestResult.delivery": "The `ping` delivery sent.",
    "DeliveryList.deliveries": "A page of the endpoint's deliveries, newest first.",
    "AuditEvent.occurredAt": "When the request was made" + WHEN + ".",
    "AuditEvent.method": "The request's HTTP method; null for an operator command.",
    "AuditEvent.clientAddress": "The client's address, as the trusted proxies give it; null for an operator command.",
    "AuditEvent.requestId": "The request's `X-Request-Id`; null for an operator command.",
    "AuditEvent.result": "How the request ended: `success` (a status below 400) or `failure`.",
    "AuditEventList.events": "A page of audit events, newest first.",
}
