"""`aivis webhooks listen` and `aivis webhooks trigger`, as the Stripe CLI's `listen` and `trigger`.

`listen` runs a relay on this machine and points a webhook endpoint at it: the endpoint of this
machine and profile (named by its description), created, or reused when an earlier `listen` left
it behind. The API delivers to the relay as to any endpoint, signed; the relay posts each delivery
unchanged (body and `webhook-*` headers) to `--forward-to` and gives the local answer back as its
own, so the delivery records the local application's status and is retried when it fails. One line
per event on stdout; on Ctrl-C the endpoint is deleted. `trigger TYPE` asks the API to send an
example event of TYPE (POST .../test) to that endpoint, or to the one given with --endpoint.

The relay is the standard library's threaded HTTP server: one small forwarder needs no framework.
"""

from __future__ import annotations

import json
import signal
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType
from typing import Any

import click
import httpx2 as httpx

from aivis.commands.auth import device_name
from aivis.commands.events import ENDPOINT_CREATE, ENDPOINT_DELETE, ENDPOINT_UPDATE, ROTATE, TEST, webhooks
from aivis.context import Context, pass_context
from aivis.errors import EXIT_VALIDATION, CliError
from aivis.output import json_option
from aivis.resolve import ENDPOINTS, resolver, webhook_endpoint

FORWARDED_HEADERS = ("content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature")
FORWARD_TIMEOUT_SECONDS = 10.0
# What the relay answers the API when the local URL could not be reached: the delivery is retried.
UNREACHABLE = 502
ANSWER_LIMIT_BYTES = 1024
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
NOT_LISTENING = "no `aivis webhooks listen` is running for this profile: start one, or give --endpoint"


def listener_description(profile: str) -> str:
    """The description naming the endpoint of `listen` on this machine for this profile."""
    return f"aivis webhooks listen: {device_name(profile)}"


def listener_endpoint(context: Context) -> dict[str, Any] | None:
    description = listener_description(context.profile)
    endpoints = context.api().call(ENDPOINTS)["endpoints"]
    return next((endpoint for endpoint in endpoints if endpoint["description"] == description), None)


class Relay(ThreadingHTTPServer):
    """Posts what it is sent to `forward_to`; answers with the local application's answer."""

    daemon_threads = True

    def __init__(self, host: str, port: int, forward_to: str, client: httpx.Client) -> None:
        super().__init__((host, port), RelayHandler)
        self.forward_to = forward_to
        self.client = client
        self.printing = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"

    def forward(self, headers: dict[str, str], body: bytes) -> tuple[int, bytes, str]:
        """The local answer's status and body, and how the event line shows it."""
        try:
            answer = self.client.post(self.forward_to, content=body, headers=headers)
        except httpx.HTTPError as error:
            return UNREACHABLE, str(error).encode()[:ANSWER_LIMIT_BYTES], f"[failed: {error}]"
        return answer.status_code, answer.content[:ANSWER_LIMIT_BYTES], f"[{answer.status_code}]"

    def show(self, body: bytes, outcome: str) -> None:
        try:
            event = json.loads(body)
        except ValueError:
            event = {}
        kind, event_id = (event.get("type"), event.get("id")) if isinstance(event, dict) else (None, None)
        stamp = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        with self.printing:
            click.echo(f"{stamp}  {kind or '?'}  {event_id or '?'}  {outcome} POST {self.forward_to}")


class RelayHandler(BaseHTTPRequestHandler):
    server: Relay

    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {name: value for name in FORWARDED_HEADERS if (value := self.headers.get(name)) is not None}
        status, answer, outcome = self.server.forward(headers, body)
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        self.server.show(body, outcome)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the standard library's name)
        """Quiet: each event has its own line."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@webhooks.command("listen")
@click.option(
    "--forward-to", required=True, help="The local URL each event is posted to (http://localhost:3000/hooks)."
)
@click.option("--event", "events", multiple=True, help="An event type to receive (repeat); default: every type.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address the relay listens on.")
@click.option("--port", type=int, default=0, help="The relay's port; default: any free one.")
@pass_context
def webhooks_listen(context: Context, forward_to: str, events: tuple[str, ...], host: str, port: int) -> None:
    """Forward this organization's events to a local URL until Ctrl-C.

    Points the endpoint of this machine and profile (created, or reused) at a relay on this
    machine, which the API must be able to reach, and posts each delivery, signed as sent, to
    --forward-to; the local answer is the delivery's. Prints the signing secret to verify with,
    then one line per event: time, type, event id, the local answer's status. Ctrl-C deletes the
    endpoint. `aivis webhooks trigger TYPE` sends it a test event.
    """
    client = click.get_current_context().with_resource(httpx.Client(timeout=FORWARD_TIMEOUT_SECONDS))
    relay = Relay(host, port, forward_to, client)
    thread = threading.Thread(target=relay.serve_forever, name="relay", daemon=True)
    thread.start()
    api = context.api()
    body = {"url": relay.url, "events": list(events) or ["*"], "description": listener_description(context.profile)}
    existing = listener_endpoint(context)
    if existing is None:
        endpoint = api.call(ENDPOINT_CREATE, body=body)
    else:  # left by an earlier `listen` that did not end cleanly: its secret is shown by a rotation
        api.call(ENDPOINT_UPDATE, endpointId=existing["id"], body={**body, "enabled": True})
        endpoint = api.call(ROTATE, endpointId=existing["id"])
    # Plain lines, never wrapped: a script may read the secret from them.
    click.echo(f"Ready: forwarding events to {forward_to} (endpoint {endpoint['id']}, relay {relay.url}).", err=True)
    click.echo(f"The signing secret is {endpoint['secret']}. Press Ctrl-C to stop.", err=True)
    # Ctrl-C and SIGTERM end it, whatever its parent left them as (ignored, or blocked: both are
    # inherited, and a listener that cannot be stopped leaves its endpoint behind).
    previous = {number: signal.signal(number, _interrupt) for number in STOP_SIGNALS}
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    stop = threading.Event()
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        relay.shutdown()
        relay.server_close()
        api.call(ENDPOINT_DELETE, endpointId=endpoint["id"])
        click.echo(f"Stopped; deleted the endpoint {endpoint['id']}.", err=True)


@webhooks.command("trigger")
@click.argument("event_type", metavar="TYPE")
@click.option(
    "--endpoint",
    "endpoint_id",
    callback=resolver(webhook_endpoint),
    help="The endpoint to send to (an id or its short id); default: the one `listen` runs.",
)
@json_option
@pass_context
def webhooks_trigger(context: Context, event_type: str, endpoint_id: str | None, as_json: bool) -> None:
    """Send a test event of TYPE (`ping`, or any type of the catalog, with example data).

    It goes to the endpoint `aivis webhooks listen` runs for this machine and profile, or to
    --endpoint. An unknown TYPE exits with 5 and lists the types.
    """
    if endpoint_id is None:
        listening = listener_endpoint(context)
        if listening is None:
            raise CliError(NOT_LISTENING, EXIT_VALIDATION)
        endpoint_id = str(listening["id"])
    data = context.api().call(TEST, endpointId=endpoint_id, body={"type": event_type})
    context.out.record(data["delivery"], ("id", "eventType", "status"), as_json)


def register(root: click.Group) -> None:
    """The commands join the `webhooks` group of aivis/commands/events.py."""
    webhooks.add_command(webhooks_listen)
    webhooks.add_command(webhooks_trigger)
