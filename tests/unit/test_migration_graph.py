"""Migrations depend one way, down the ladder of apps: teams, inventory, planner, simulation.

A migration of an app may depend on migrations of its own app, of apps below it, and of
Django's and third-party apps (auth, contenttypes, ...); never on an app above it. So the
catalog migrates without the designs, and teams without either.
"""

from __future__ import annotations

from django.db.migrations.graph import MigrationGraph
from django.db.migrations.loader import MigrationLoader

#: Our apps by label, bottom up.
LADDER = ["teams", "inventory", "planner", "simulation"]
RUNG = {label: rung for rung, label in enumerate(LADDER)}


def upward_dependencies(graph: MigrationGraph) -> list[str]:
    """Each dependency of a migration of ours on a migration of one of our apps above it."""
    found = []
    for key in sorted(graph.nodes):
        app = key[0]
        if app not in RUNG:
            continue
        for parent in sorted(p.key for p in graph.node_map[key].parents):
            if parent[0] in RUNG and RUNG[parent[0]] > RUNG[app]:
                found.append(f"{app}.{key[1]} depends on {parent[0]}.{parent[1]}")
    return found


def test_every_app_of_ours_is_on_the_ladder():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    ours = {app for app, _ in loader.disk_migrations if app in RUNG}
    assert ours == set(LADDER)
    assert {app for app, _ in loader.disk_migrations} - set(LADDER) <= {
        "admin",
        "auth",
        "authtoken",
        "axes",
        "contenttypes",
        "sessions",
    }


def test_no_migration_depends_on_an_app_above_it():
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    assert upward_dependencies(graph) == []


def test_teams_and_inventory_migrate_without_the_designs():
    """The plan to the catalog's last migration holds no planner or simulation migration."""
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    for app in ("teams", "inventory"):
        (leaf,) = (key for key in graph.leaf_nodes() if key[0] == app)
        apps_needed = {key[0] for key in graph.forwards_plan(leaf)}
        assert not apps_needed & {"planner", "simulation"}, (app, apps_needed)


def test_the_graph_check_can_fail():
    """The catalog depending on a design migration, as it did before teams moved, is caught."""
    graph = MigrationGraph()
    for key in [("teams", "0001"), ("inventory", "0001"), ("planner", "0005")]:
        graph.add_node(key, None)
    graph.add_dependency(None, ("inventory", "0001"), ("teams", "0001"))
    graph.add_dependency(None, ("inventory", "0001"), ("planner", "0005"))
    assert upward_dependencies(graph) == ["inventory.0001 depends on planner.0005"]
