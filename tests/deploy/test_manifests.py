"""The Kubernetes manifests in the repository are exactly what the parts list renders."""

from __future__ import annotations

from deploy.manifests import K8S, render
from deploy.parts import PARTS


def test_committed_manifests_match_the_parts_list():
    rendered = render()
    for name, content in rendered.items():
        assert (K8S / name).read_text() == content, f"deploy/k8s/{name} is stale: run `make manifests`"
    assert {f"{part.name}.yaml" for part in PARTS} <= set(rendered)


def test_every_part_has_probes_on_its_own_port():
    for part in PARTS:
        text = render()[f"{part.name}.yaml"]
        assert f"containerPort: {part.port}" in text
        assert "path: /readyz" in text and "path: /healthz" in text
        assert f"key: {part.name}-database-url" in text
