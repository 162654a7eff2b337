"""The connection budget at the autoscalers' maxima, computed from the rendered manifests
(deploy/capacity.py): it holds with headroom, the runbook shows it as computed, and it follows
what the manifests say."""

from __future__ import annotations

from deploy import capacity, pgbouncer
from deploy.cluster import PGBOUNCER
from deploy.manifests import render
from libs.contract.parts import PARTS


def budget_of(manifests: dict[str, str]) -> capacity.Budget:
    return capacity.compute(manifests)


def test_the_budget_holds_with_headroom_at_every_parts_maximum_at_once():
    budget = budget_of(render())
    assert budget.problems() == []
    assert [load.part for load in budget.parts] == list(PARTS)  # a new part is counted by itself
    assert all(load.max_pods > 10 for load in budget.parts)  # the rollout's surge on top of the maximum


def test_the_runbook_shows_the_table_as_computed():
    doc = capacity.DOCS.read_text()
    assert doc == capacity.with_table(doc, budget_of(render())), "docs/operations.md is stale: run `make manifests`"


def test_more_replicas_add_pgbouncer_clients_but_no_postgres_connections():
    manifests = render()
    bigger = {name: text.replace("maxReplicas: 10", "maxReplicas: 60") for name, text in manifests.items()}
    before, after = budget_of(manifests), budget_of(bigger)
    assert after.clients > 5 * before.clients
    assert after.postgres == before.postgres  # relays and pools reach PostgreSQL through PgBouncer's caps
    assert any("PgBouncer" in problem for problem in after.problems())


def test_a_pgbouncer_surge_would_count_and_break_the_budget():
    manifests = render()
    surging = dict(manifests)
    surging["pgbouncer.yaml"] = manifests["pgbouncer.yaml"].replace(
        "{maxUnavailable: 1, maxSurge: 0}", "{maxUnavailable: 0, maxSurge: 1}"
    )
    assert budget_of(surging).pgbouncer_pods == budget_of(manifests).pgbouncer_pods + 1
    assert any("PostgreSQL" in problem for problem in budget_of(surging).problems())
    assert PGBOUNCER in manifests["pgbouncer.yaml"]


def test_the_relays_session_pool_holds_every_outboxs_lock_and_forgets_a_gone_holders():
    ini = pgbouncer.render(
        {"POSTGRES_HOST": "db", **{f"{p.name.upper()}_DB_PASSWORD": "x" for p in PARTS}}, capacity.ROOT / "etc", "s"
    )["pgbouncer.ini"]
    (line,) = [line for line in ini.splitlines() if line.startswith("aivis_sessions = ")]
    assert "pool_mode=session" in line
    assert f"max_db_connections={pgbouncer.session_connections()}" in line
    assert pgbouncer.session_connections() > sum(pgbouncer.outboxes(part) for part in PARTS)
    assert "server_reset_query = DISCARD ALL" in ini  # releases a session's advisory locks
