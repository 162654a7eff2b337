"""`aivis pages` (site pages of a product) and `aivis content` (content documents)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from aivis.api import Endpoint
from aivis.confirm import confirm, yes_option
from aivis.context import Context, pass_context
from aivis.inputs import compact, json_value, text_or_file
from aivis.output import json_option, plural, print_json, when
from aivis.resolve import product_option

PAGES = Endpoint("GET", "/api/v1/site/pages")
PAGES_CREATE = Endpoint("POST", "/api/v1/site/pages")
PAGES_UPDATE = Endpoint("PATCH", "/api/v1/site/pages")
PAGES_DELETE = Endpoint("DELETE", "/api/v1/site/pages")
DOCUMENT = Endpoint("GET", "/api/v1/content/{id}")
DOCUMENT_BY_PATH = Endpoint("GET", "/api/v1/content/by-path")
DOCUMENT_PRIORITY = Endpoint("PATCH", "/api/v1/content/{id}")
DOCUMENT_UPDATE = Endpoint("PUT", "/api/v1/content/{id}")
DOCUMENT_DOMAINS = Endpoint("PATCH", "/api/v1/content/{id}/domains")

PAGE_COLUMNS = ("id", "title", "filePath", "status", when("updatedAt"))
DOCUMENT_FIELDS = ("id", "title", "filePath", "sourceUrl", "status", "type", "priority", "publishedAt", "updatedAt")
STATUSES = click.Choice(["draft", "published"])
Command = TypeVar("Command", bound=Callable[..., Any])


@click.group()
def pages() -> None:
    """Site pages of a product."""


@pages.command("list")
@product_option()
@click.option("--page", type=int, help="Page number, from 1.")
@click.option("--page-size", type=int)
@click.option("--query", help="Text in the title or path.")
@click.option("--status", type=STATUSES)
@click.option("--type", "page_type")
@click.option(
    "--manual/--not-manual", "is_manual", default=None, help="Only pages made by hand, or only imported ones."
)
@click.option("--path-prefix")
@click.option("--has-content/--no-content", "has_content", default=None)
@click.option("--domain-id")
@click.option("--domain")
@click.option("--order-by", type=click.Choice(["createdAt", "updatedAt"]))
@click.option("--direction", type=click.Choice(["asc", "desc"]))
@json_option
@pass_context
def pages_list(
    context: Context,
    product_id: str,
    page: int | None,
    page_size: int | None,
    query: str | None,
    status: str | None,
    page_type: str | None,
    is_manual: bool | None,
    path_prefix: str | None,
    has_content: bool | None,
    domain_id: str | None,
    domain: str | None,
    order_by: str | None,
    direction: str | None,
    as_json: bool,
) -> None:
    """List a product's site pages."""
    params = compact(
        productId=product_id,
        page=page,
        pageSize=page_size,
        query=query,
        status=status,
        type=page_type,
        isManual=is_manual,
        pathPrefix=path_prefix,
        hasContent=has_content,
        domainId=domain_id,
        domain=domain,
        orderBy=order_by,
        orderByDirection=direction,
    )
    data = context.api().call(PAGES, query=params)
    note = f"page {data['page']} of {data['totalPages']}, {plural(data['total'], 'page')} in all"
    context.out.items(data["items"], PAGE_COLUMNS, as_json, total=data["total"], note=note)


def pages_from_file(path: str) -> list[dict[str, Any]]:
    value = json_value(f"@{path}", "--file")
    return value if isinstance(value, list) else [value]


def report_bulk(context: Context, data: dict[str, Any], as_json: bool, done: str) -> None:
    """A bulk answer: what was done, then each failure (numbered from 1, in the order sent)."""
    if as_json:
        print_json(data)
        return
    context.out.table(data[done], ("id", "title"))
    context.out.note(f"{done} {plural(data[done + 'Count'], 'page')}")
    if data["failed"]:
        context.out.table(data["failed"], ("id", "slug", "message"), title="Failed")
        context.out.note(f"failed: {plural(data['failedCount'], 'page')}")


def page_options(file_help: str) -> Callable[[Command], Command]:
    """The options `pages create` and `pages update` share: --file, or the fields of one page."""
    shared = (
        click.option("--file", "file", type=click.Path(exists=True, dir_okay=False), help=file_help),
        click.option("--title"),
        click.option("--content", help="Markdown, or @file."),
        click.option("--description"),
        click.option("--meta-title"),
        click.option("--meta-description"),
        click.option("--status", type=STATUSES),
        click.option("--canonical-domain", "canonical_domain_id"),
    )

    def decorate(command: Command) -> Command:
        for option in reversed(shared):
            command = option(command)
        return command

    return decorate


def page_items(page: dict[str, Any], **own: Any) -> list[dict[str, Any]]:
    """The pages a create or update sends: those of --file, or the one its options describe
    (the shared fields of `page_options`, and the command's `own`)."""
    if page["file"] is not None:
        return pages_from_file(page["file"])
    return [
        compact(
            **own,
            title=page["title"],
            content=text_or_file(page["content"]),
            description=page["description"],
            metaTitle=page["meta_title"],
            metaDescription=page["meta_description"],
            status=page["status"],
            canonicalDomainId=page["canonical_domain_id"],
        )
    ]


@pages.command("create")
@product_option()
@page_options("A JSON list of pages (1-25) with the contract's fields, instead of the options below.")
@click.option("--slug")
@click.option("--domain", "domain_ids", multiple=True, help="A domain id to attach (repeatable).")
@json_option
@pass_context
def pages_create(
    context: Context, /, product_id: str, slug: str | None, domain_ids: tuple[str, ...], as_json: bool, **page: Any
) -> None:
    """Create site pages (deprecated by the API in favour of apps)."""
    items = page_items(page, slug=slug, domainIds=list(domain_ids) or None)
    data = context.api().call(PAGES_CREATE, body={"productId": product_id, "pages": items})
    report_bulk(context, data, as_json, "created")


@pages.command("update")
@product_option()
@page_options("A JSON list of page changes (1-25), each with its `id`, instead of the options below.")
@click.option("--id", "page_id")
@click.option("--file-path")
@click.option("--manual/--not-manual", "is_manual", default=None)
@click.option("--no-index/--index", "no_index", default=None)
@click.option("--redirect-to-url")
@click.option("--attach", "attach", multiple=True, help="A domain id to attach (repeatable).")
@click.option("--detach", "detach", multiple=True, help="A domain id to detach (repeatable).")
@json_option
@pass_context
def pages_update(
    context: Context,
    /,
    product_id: str,
    page_id: str | None,
    file_path: str | None,
    is_manual: bool | None,
    no_index: bool | None,
    redirect_to_url: str | None,
    attach: tuple[str, ...],
    detach: tuple[str, ...],
    as_json: bool,
    **page: Any,
) -> None:
    """Update site pages (deprecated by the API in favour of apps)."""
    if page["file"] is None and page_id is None:
        raise click.UsageError("give --id, or --file")
    items = page_items(
        page,
        id=page_id,
        filePath=file_path,
        isManual=is_manual,
        noIndex=no_index,
        redirectToUrl=redirect_to_url,
        attachDomainIds=list(attach) or None,
        detachDomainIds=list(detach) or None,
    )
    data = context.api().call(PAGES_UPDATE, body={"productId": product_id, "pages": items})
    report_bulk(context, data, as_json, "updated")


@pages.command("delete")
@product_option()
@click.argument("page_ids", nargs=-1, required=True)
@yes_option
@json_option
@pass_context
def pages_delete(context: Context, product_id: str, page_ids: tuple[str, ...], yes: bool, as_json: bool) -> None:
    """Delete site pages by id (1-50)."""
    confirm(context, yes, f"Delete {plural(len(page_ids), 'page')}?")
    data = context.api().call(PAGES_DELETE, body={"productId": product_id, "pageIds": list(page_ids)})
    report_bulk(context, data, as_json, "deleted")


@click.group()
def content() -> None:
    """Content documents."""


@content.command("get")
@click.argument("document_id")
@json_option
@pass_context
def content_get(context: Context, document_id: str, as_json: bool) -> None:
    """Show a content document."""
    context.out.record(context.api().call(DOCUMENT, id=document_id), DOCUMENT_FIELDS, as_json)


@content.command("by-path")
@product_option()
@click.option("--path", required=True, help="The document's path, e.g. /docs/start.")
@json_option
@pass_context
def content_by_path(context: Context, product_id: str, path: str, as_json: bool) -> None:
    """Find a product's content document by its path."""
    data = context.api().call(DOCUMENT_BY_PATH, query={"brandId": product_id, "path": path})
    context.out.record(data, ("id", "title", "filePath", "sourceUrl", "description"), as_json)


@content.command("priority")
@click.argument("document_id")
@click.argument("priority", type=click.FloatRange(0, 100))
@json_option
@pass_context
def content_priority(context: Context, document_id: str, priority: float, as_json: bool) -> None:
    """Set a document's priority (0-100)."""
    value = int(priority) if priority.is_integer() else priority
    data = context.api().call(DOCUMENT_PRIORITY, id=document_id, body={"priority": value})
    context.out.record(data, DOCUMENT_FIELDS, as_json)


# PUT /api/v1/content/{id}: the contract's text fields, each an option of its own.
TEXT_FIELDS = (
    "filePath",
    "title",
    "sourceUrl",
    "cssSelector",
    "cssExcludeSelector",
    "redirectToUrl",
    "description",
    "descriptionForAgent",
    "metaTitle",
    "metaDescription",
    "canonicalUrl",
    "ogTitle",
    "ogDescription",
    "ogImage",
    "twitterTitle",
    "twitterDescription",
    "twitterImage",
)


def kebab(name: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in name)


@content.command("update")
@click.argument("document_id")
@click.option("--content", "text", help="Markdown, or @file.")
@click.option("--tiptap-json", help="The editor document as JSON, or @file.")
@click.option("--no-index/--index", "no_index", default=None)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable); replaces the tags.")
@click.option("--priority", type=click.FloatRange(0, 100))
@json_option
@pass_context
def content_update(
    context: Context,
    /,
    document_id: str,
    text: str | None,
    tiptap_json: str | None,
    no_index: bool | None,
    tags: tuple[str, ...],
    priority: float | None,
    as_json: bool,
    **texts: str | None,
) -> None:
    """Change the given fields of a content document."""
    body = compact(content=text_or_file(text), noIndex=no_index, tags=list(tags) or None, priority=priority)
    if tiptap_json is not None:
        body["tiptapJson"] = json_value(tiptap_json, "--tiptap-json")
    body.update(compact(**{name: texts[kebab(name).replace("-", "_")] for name in TEXT_FIELDS}))
    if not body:
        raise click.UsageError("give at least one field to change")
    context.out.record(context.api().call(DOCUMENT_UPDATE, id=document_id, body=body), DOCUMENT_FIELDS, as_json)


for _name in TEXT_FIELDS:
    content_update.params.insert(-1, click.Option([f"--{kebab(_name)}"], help=f"The document's `{_name}`."))


@content.command("domains")
@click.argument("document_id")
@click.option("--attach", multiple=True, help="A domain id to attach (repeatable).")
@click.option("--detach", multiple=True, help="A domain id to detach (repeatable).")
@click.option("--canonical", "canonical_domain_id", help="The domain id to make canonical.")
@json_option
@pass_context
def content_domains(
    context: Context,
    document_id: str,
    attach: tuple[str, ...],
    detach: tuple[str, ...],
    canonical_domain_id: str | None,
    as_json: bool,
) -> None:
    """Attach, detach or choose the canonical domain of a document."""
    body = compact(attach=list(attach) or None, detach=list(detach) or None, canonicalDomainId=canonical_domain_id)
    data = context.api().call(DOCUMENT_DOMAINS, id=document_id, body=body)
    if as_json:
        print_json(data)
    else:
        context.out.table(data["domains"], ("id", "domain", "isCanonical"))


def register(root: click.Group) -> None:
    root.add_command(pages)
    root.add_command(content)
