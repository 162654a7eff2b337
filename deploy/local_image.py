"""The platform's image built on this machine, with no registry: `python -m deploy.local_image`.

A cluster builds `deploy/Dockerfile` from `python:3.11-slim`. Where no registry answers, the
same base is made from Debian's packages: `debootstrap` writes a minimal bookworm with Python
into a directory and podman imports it as BASE_IMAGE (about two minutes, once: it is kept in
podman's storage between runs). The platform's image is then built FROM it
(`--build-arg BASE=…`), as PLATFORM_IMAGE, and Debian's PgBouncer from deploy/pgbouncer.Dockerfile
as PGBOUNCER_IMAGE. podman runs with deploy/containers.conf; an unchanged layer is not built again.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from libs.contract.parts import ROOT

BASE_IMAGE = "localhost/aivis-base:bookworm"
PLATFORM_IMAGE = "localhost/aivis-platform:local"
# Debian's PgBouncer on the same base, standing for the image deploy/images.json names.
PGBOUNCER_IMAGE = "localhost/aivis-pgbouncer:local"
CONTAINERS_CONF = ROOT / "deploy" / "containers.conf"
SUITE = "bookworm"
PACKAGES = ("python3", "python3-pip", "python-is-python3", "ca-certificates")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# Certificates this machine trusts beyond Debian's: pip inside the build needs them as well.
LOCAL_CERTIFICATES = Path("/usr/local/share/ca-certificates")
# What the python image sets, so the Dockerfile's `pip install` works the same on both bases.
BASE_ENV = ("PIP_BREAK_SYSTEM_PACKAGES=1", "LANG=C.UTF-8")
# The build's own processes need more open files than podman's default grants here.
BUILD_LIMITS = ("--ulimit", "nofile=20000:20000", "--ulimit", "nproc=1024:1024")


def podman_env() -> dict[str, str]:
    return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF)}


def podman(*args: str, check: bool = True, capture: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["podman", *args], env=podman_env(), check=check, text=True, capture_output=capture, timeout=1800
    )


def image_exists(reference: str) -> bool:
    return podman("image", "exists", reference, check=False).returncode == 0


def debian_mirror(sources: Path = Path("/etc/apt")) -> str:
    """The Debian mirror this machine's apt uses (deb822 `URIs:` or a one-line `deb` entry)."""
    files = sorted(sources.glob("sources.list.d/*.sources")) + sorted(sources.glob("sources.list*"))
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text()
        uris = re.findall(r"^URIs:\s*(\S+)", text, re.M) + re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", text, re.M)
        for uri in uris:
            if "security" not in uri:
                return str(uri)
    return DEFAULT_MIRROR


def make_base(reference: str = BASE_IMAGE) -> None:
    """debootstrap a minimal Debian with Python and import it into podman as `reference`."""
    with tempfile.TemporaryDirectory(prefix="aivis-base-") as scratch:
        rootfs = Path(scratch) / "rootfs"
        subprocess.run(
            [
                "debootstrap",
                "--variant=minbase",
                f"--include={','.join(PACKAGES)}",
                SUITE,
                str(rootfs),
                debian_mirror(),
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        extra = sorted(LOCAL_CERTIFICATES.glob("*.crt")) if LOCAL_CERTIFICATES.is_dir() else []
        if extra:
            target = rootfs / LOCAL_CERTIFICATES.relative_to("/")
            target.mkdir(parents=True, exist_ok=True)
            for certificate in extra:
                shutil.copy(certificate, target / certificate.name)
            subprocess.run(["chroot", str(rootfs), "update-ca-certificates"], check=True, capture_output=True)
        shutil.rmtree(rootfs / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        changes = [arg for env in BASE_ENV for arg in ("--change", f"ENV {env}")]
        with subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE) as tar:
            subprocess.run(
                ["podman", "import", *changes, "-", reference],
                stdin=tar.stdout,
                env=podman_env(),
                check=True,
                capture_output=True,
                timeout=600,
            )
        if tar.returncode != 0:
            raise RuntimeError("tar of the base's root filesystem failed")


@dataclass(frozen=True)
class Built:
    base_seconds: float | None  # None: the base was already there
    image_seconds: float


def image_id(reference: str) -> str | None:
    found = podman("image", "inspect", "--format", "{{.Id}}", reference, check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def build_image(dockerfile: Path, reference: str, base: str = BASE_IMAGE) -> None:
    """Build `reference`; the image it named before is removed, so builds do not pile up."""
    before = image_id(reference)
    podman(
        "build",
        "--network",
        "host",
        *BUILD_LIMITS,
        "--build-arg",
        f"BASE={base}",
        "-f",
        str(dockerfile),
        "-t",
        reference,
        str(ROOT),
    )
    if before and before != image_id(reference):
        podman("image", "rm", before, check=False)


def build(base: str = BASE_IMAGE) -> Built:
    """The base (only when podman does not hold it yet), then the platform's and PgBouncer's images."""
    started = time.monotonic()
    base_seconds = None
    if not image_exists(base):
        make_base(base)
        base_seconds = time.monotonic() - started
    started = time.monotonic()
    build_image(ROOT / "deploy" / "Dockerfile", PLATFORM_IMAGE, base)
    build_image(ROOT / "deploy" / "pgbouncer.Dockerfile", PGBOUNCER_IMAGE, base)
    return Built(base_seconds, time.monotonic() - started)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.local_image", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-only", action="store_true", help="make the base image only (if missing)")
    args = parser.parse_args(argv)
    if args.base_only:
        if image_exists(BASE_IMAGE):
            print(f"{BASE_IMAGE}: already made")
        else:
            started = time.monotonic()
            make_base()
            print(f"{BASE_IMAGE}: made in {time.monotonic() - started:.0f}s")
        return 0
    built = build()
    if built.base_seconds is not None:
        print(f"{BASE_IMAGE}: made in {built.base_seconds:.0f}s (once: kept between runs)")
    print(f"{PLATFORM_IMAGE}, {PGBOUNCER_IMAGE}: built in {built.image_seconds:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
