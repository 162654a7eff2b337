"""PgBouncer's metrics sidecar when PgBouncer does not answer: the scrape still succeeds and says
so (`pgbouncer_up 0`), never a stale or missing series that would hide the outage. Against a
real PgBouncer it runs in tests/deploy/test_rollout.py."""

from __future__ import annotations

from deploy.pgbouncer_exporter import PgBouncerCollector
from libs.local.ports import free_port


def test_a_pgbouncer_that_does_not_answer_is_reported_down(tmp_path):
    password = tmp_path / "stats-password"
    password.write_text("secret\n")
    families = list(PgBouncerCollector("127.0.0.1", free_port(), "aivis_stats", password).collect())
    assert [(family.name, [sample.value for sample in family.samples]) for family in families] == [
        ("pgbouncer_up", [0])
    ]


def test_a_missing_password_file_is_reported_down_too(tmp_path):
    families = list(PgBouncerCollector("127.0.0.1", free_port(), "aivis_stats", tmp_path / "absent").collect())
    assert [family.name for family in families] == ["pgbouncer_up"]
    assert families[0].samples[0].value == 0
