"""The analytics part's public routes: the engine catalog and answers of AI engines.

Declarations only (libs/contract/route.py): the part registers its handlers by these names, the
gateway compiles them into its checks and the OpenAPI document.
"""

from __future__ import annotations

from libs.contract.route import Route
from services.analytics import report_schemas, report_shapes, schemas

PART = "analytics"

ROUTES: tuple[Route, ...] = (
    # Any verified credential may read the catalog.
    Route(
        "GET",
        "/api/v1/engines",
        PART,
        None,
        "engines_list",
        "The AI engines answers come from, and whether this deployment can call each",
        response=schemas.EngineList,
        tag="Engines",
    ),
    Route(
        "POST",
        "/api/v1/answers",
        PART,
        "analytics:write",
        "answers_ingest",
        "Store an answer collected elsewhere, to be analysed as the product's own; idempotent by its id",
        product_body="productId",
        body=schemas.AnswerIngest,
        response=schemas.Answer,
        status=201,
        tag="Answers",
    ),
    Route(
        "GET",
        "/api/v1/answers",
        PART,
        "prompts:read",
        "answers_list",
        "List answers, newest first, by product, prompt, run, engine, brands mentioned, domain cited, time",
        product_query="productId",
        query=schemas.AnswerListQuery,
        response=schemas.AnswerList,
        tag="Answers",
    ),
    Route(
        "GET",
        "/api/v1/answers/{answerId}",
        PART,
        "prompts:read",
        "answers_get",
        "An answer: its text, engine, model, prompt and version, and its analysis",
        response=schemas.Answer,
        tag="Answers",
    ),
    Route(
        "POST",
        "/api/v1/answers/reanalyse",
        PART,
        "analytics:write",
        "answers_reanalyse",
        "Analyse a product's answers again (new rules, brand or competitors); each keeps its analysis until then",
        product_body="productId",
        body=schemas.ReanalysisRequest,
        response=schemas.ReanalysisQueued,
        status=202,
        tag="Answers",
    ),
    Route(
        "POST",
        "/api/v1/prompt-runs",
        PART,
        "prompts:write",
        "prompt_runs_create",
        "Ask the engines a product's prompts now: the run is queued (202) and its progress read after",
        product_body="productId",
        body=schemas.PromptRunCreate,
        response=schemas.PromptRun,
        status=202,
        tag="Prompt runs",
    ),
    Route(
        "GET",
        "/api/v1/prompt-runs",
        PART,
        "prompts:read",
        "prompt_runs_list",
        "List prompt runs, newest first",
        product_query="productId",
        query=schemas.PromptRunListQuery,
        response=schemas.PromptRunList,
        tag="Prompt runs",
    ),
    Route(
        "GET",
        "/api/v1/prompt-runs/{runId}",
        PART,
        "prompts:read",
        "prompt_runs_get",
        "A prompt run: its status, progress, tokens and cost",
        response=schemas.PromptRun,
        tag="Prompt runs",
    ),
    Route(
        "POST",
        "/api/v1/prompt-runs/{runId}/cancel",
        PART,
        "prompts:write",
        "prompt_runs_cancel",
        "Cancel a prompt run: tasks not started are dropped",
        response=schemas.PromptRun,
        tag="Prompt runs",
    ),
    Route(
        "GET",
        "/api/v1/products/{productId}/analytics/overview",
        PART,
        "analytics:read",
        "analytics_overview",
        "The brand's and each competitor's visibility, share of voice, average position, sentiment and citation"
        " rate over [from, to) in days of a named time zone (UTC by default), beside the period before",
        product_param="productId",
        query=report_schemas.OverviewQuery,
        response=report_shapes.Overview,
        tag="Analytics",
    ),
    Route(
        "POST",
        "/api/v1/analytics/query",
        PART,
        "analytics:read",
        "analytics_query",
        "A page of a report of a product's brands or cited domains over [from, to) in days of a named time zone,"
        " by day, week (from Monday) or month, or per engine, prompt or topic, with filters; a read (POST for"
        " the body)",
        product_body="productId",
        body=report_schemas.AnalyticsQuery,
        response=report_shapes.QueryResult,
        status=200,
        tag="Analytics",
        read_only=True,
    ),
)
