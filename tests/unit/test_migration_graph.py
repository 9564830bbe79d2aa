"""Migrations depend one way, down the ladder of apps: teams, the audit log, the catalog, the
designs, the jobs, then quotes and as-built imports side by side. The ``planner`` app, the
project's glue, has no models and no migrations.

A migration of an app may depend on migrations of its own app, of apps on a lower rung, and of
Django's and third-party apps (auth, contenttypes, ...); never on an app above it, nor on one
beside it. So the catalog migrates without the designs, the audit log (which every app above
writes to) without anything but teams, and teams without any of them.
"""

from __future__ import annotations

from django.db.migrations.graph import MigrationGraph
from django.db.migrations.loader import MigrationLoader

#: Our apps by label, bottom up; apps on one rung stand side by side and know nothing of each
#: other.
LADDER = [
    ["teams"],
    ["audit"],
    ["inventory"],
    ["designs"],
    ["simulation"],
    ["quotes", "asbuilt"],
]
RUNG = {label: rung for rung, labels in enumerate(LADDER) for label in labels}


def upward_dependencies(graph: MigrationGraph) -> list[str]:
    """Each dependency of a migration of ours on a migration of another app of ours on its own
    rung or above it."""
    found = []
    for key in sorted(graph.nodes):
        app = key[0]
        if app not in RUNG:
            continue
        for parent in sorted(p.key for p in graph.node_map[key].parents):
            other = parent[0]
            if other in RUNG and other != app and RUNG[other] >= RUNG[app]:
                found.append(f"{app}.{key[1]} depends on {other}.{parent[1]}")
    return found


def _graph() -> MigrationGraph:
    return MigrationLoader(None, ignore_no_migrations=True).graph


def test_every_app_of_ours_is_on_the_ladder():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    ours = {app for app, _ in loader.disk_migrations if app in RUNG}
    assert ours == set(RUNG)
    assert {app for app, _ in loader.disk_migrations} - set(RUNG) <= {
        "admin",
        "auth",
        "authtoken",
        "axes",
        "contenttypes",
        "sessions",
    }


def test_no_migration_depends_on_an_app_above_or_beside_it():
    assert upward_dependencies(_graph()) == []


def test_each_app_migrates_with_the_apps_below_it_alone():
    """The plan to an app's last migration holds migrations of that app and of lower rungs
    only: the catalog migrates without the designs, the audit log with teams alone."""
    graph = _graph()
    for app, rung in RUNG.items():
        (leaf,) = (key for key in graph.leaf_nodes() if key[0] == app)
        apps_needed = {key[0] for key in graph.forwards_plan(leaf)} & set(RUNG)
        higher = {other for other in apps_needed if other != app and RUNG[other] >= rung}
        assert not higher, (app, sorted(higher))
    (audit_leaf,) = (key for key in graph.leaf_nodes() if key[0] == "audit")
    assert {key[0] for key in graph.forwards_plan(audit_leaf)} & set(RUNG) == {"teams", "audit"}


def test_the_moved_models_initial_migrations_replace_the_planner_ones():
    """Each migration the planner app had for a model that moved is replaced by exactly one
    migration of the app it moved to, so a database that applied it counts that one as
    applied (two replacing one old name would both be marked applied by the first). The one
    exception is older: ``planner.0001_initial`` made teams and designs, and both apps'
    initial migrations replace it (teams' runs first)."""
    loader = MigrationLoader(None, ignore_no_migrations=True, replace_migrations=False)
    replaced: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key, migration in loader.disk_migrations.items():
        for old in migration.replaces or ():
            replaced.setdefault(tuple(old), []).append(key)
    moved = {old: keys for old, keys in replaced.items() if old[1][:4] > "0002"}
    assert sorted(old[1] for old in moved) == [
        "0003_membership_prices_audit",
        "0004_quotes",
        "0005_catalog_audit_actions",
        "0006_quote_lifecycle_versions_snapshot",
        "0007_team_margin_floor_quote_approval",
        "0008_quote_customer_address_terms",
        "0009_field_imports",
        "0010_audit_team_changed",
    ]
    assert all(len(keys) == 1 and keys[0][0] != "planner" for keys in moved.values())
    assert replaced[("planner", "0002_revision_spec_blank_for_drawn")] == [
        ("designs", "0002_revision_spec_blank_for_drawn")
    ]
    assert not any(app == "planner" for app, _ in loader.disk_migrations)


def test_the_graph_check_can_fail():
    """The catalog depending on a design migration (as it depended on the planner app's before
    teams moved), and quotes depending on as-built imports beside them, are caught."""
    graph = MigrationGraph()
    for key in [("teams", "0001"), ("inventory", "0001"), ("designs", "0005")]:
        graph.add_node(key, None)
    for key in [("quotes", "0001"), ("asbuilt", "0001")]:
        graph.add_node(key, None)
    graph.add_dependency(None, ("inventory", "0001"), ("teams", "0001"))
    graph.add_dependency(None, ("inventory", "0001"), ("designs", "0005"))
    graph.add_dependency(None, ("quotes", "0001"), ("asbuilt", "0001"))
    assert upward_dependencies(graph) == [
        "inventory.0001 depends on designs.0005",
        "quotes.0001 depends on asbuilt.0001",
    ]
