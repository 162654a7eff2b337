"""The images a release runs, set in one place: deploy/images.json.

`platform` is this repository's image (every part, the migrate Job, PgBouncer's config step);
`pgbouncer` is PgBouncer's own, `caddy` Caddy's (TLS for the Apps' domains). Each is a full
reference, registry, tag and digest: a name without a registry resolves to a public hub on a
cluster, and a tag alone may be moved, so a manifest names the exact bytes it runs. The
platform's tag is the version and the commit (`0.1.0-1a2b3c4d5e6f`), never reused.
`python -m deploy.manifests --image REF` records a release's reference here and renders the
manifests with it (docs/operations.md, "Releasing").
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from libs.contract.parts import ROOT

IMAGES_FILE = ROOT / "deploy" / "images.json"

# registry host (a dot or a port: what tells it from a hub's user name) / path : tag @ digest
REFERENCE = re.compile(
    r"^(?P<registry>[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[0-9]+)?)/(?P<path>[a-z0-9._/-]+)"
    r":(?P<tag>[A-Za-z0-9._-]+)@sha256:[0-9a-f]{64}$"
)
RELEASE_TAG = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{7,40}$")


class ImageError(ValueError):
    """An image reference that a cluster could not pull exactly."""


def check_reference(reference: str, *, release: bool = False) -> str:
    match = REFERENCE.match(reference)
    if match is None or not ("." in match["registry"] or ":" in match["registry"]):
        raise ImageError(f"{reference!r} is not registry/name:tag@sha256:<64 hex digits>")
    if release and not RELEASE_TAG.match(match["tag"]):
        raise ImageError(f"the tag of {reference!r} must be <version>-<commit>, e.g. 0.1.0-1a2b3c4d5e6f")
    return reference


@dataclass(frozen=True)
class Images:
    platform: str
    pgbouncer: str
    caddy: str

    def checked(self) -> Images:
        check_reference(self.platform, release=True)
        check_reference(self.pgbouncer)
        check_reference(self.caddy)
        return self


def load(path: Path = IMAGES_FILE) -> Images:
    return Images(**json.loads(path.read_text())).checked()


def save(images: Images, path: Path = IMAGES_FILE) -> None:
    path.write_text(json.dumps(asdict(images.checked()), indent=2) + "\n")
