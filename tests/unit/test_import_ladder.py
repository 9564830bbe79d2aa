"""Imports run one way, down a ladder of rooms, and no import closes a circle.

Every product module (``inventory``, ``planner``, ``simulation``; migrations aside) is read with
``ast``, so an import inside a function counts as much as one at the top. Each module belongs
to the room of its longest matching prefix in :data:`LADDER`; a module may import rooms on its
own rung and below, never a room above; and the modules' import graph has no circle.

The ladder, bottom up (README, "Where things live"):

0. ``inventory.library``: pure catalog facts, link rules, file parsing.
1. ``planner.teams`` (the ``teams`` app: Team, memberships, roles and the price right): the
   bottom Django app, as NetBox's ``tenancy``. It imports nothing of ``inventory`` or the rest
   of ``planner``.
2. ``inventory``: the catalog app. It may import ``planner.teams`` (price books belong to a
   team), nothing else of ``planner``; what it needs from designs and the audit log comes
   through :mod:`inventory.hooks`, installed by the ``planner`` app at start-up.
3. ``planner.domain``: the pure design domain (spec, columnar fabric, generators, layout,
   media, canvas, outputs, pricing).
4. ``planner.analyses``: pure analyses of a fabric (validation, power, flow simulation).
5. ``planner.presentation`` (numbers with units for pages).
6. ``planner.audit`` (the log and its event) and the template tags.
7. ``planner.teams.services`` and ``.forms``: the writes of teams (members, roles, the price
   right), audited in the same transaction, so above the audit log.
8. ``planner.designs``: designs and revisions (models, services, selectors, adapters, forms).
9. ``planner.outputs``: bill of materials, cabling plan and exports of a revision.
10. ``planner.quotes``: priced quotes (read designs and outputs).
11. ``simulation``: jobs, which run the analyses on designs, their pages and API.
12. ``planner.asbuilt``: what the built fabric reports (cabling, counters) checked against a
    revision and its jobs' results.
13. Pages and API views of teams, designs, outputs, quotes, as-built imports and the audit log,
    the navigation (home, search) and the catalog hooks' answers. (The designs' API
    serializers stay with designs: the jobs' API reuses their problem shape.)
14. The project: settings, URLs, Celery app, middleware; the CLI; the admin; the app configs
    and the model index Django loads.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("inventory", "planner", "simulation")

LADDER: list[tuple[str, ...]] = [
    ("inventory.library",),
    ("planner.teams",),
    ("inventory",),
    ("planner.domain",),
    ("planner.analyses",),
    ("planner.presentation",),
    ("planner.audit", "planner.templatetags"),
    ("planner.teams.services", "planner.teams.forms"),
    ("planner.designs",),
    ("planner.outputs",),
    ("planner.quotes",),
    ("simulation",),
    ("planner.asbuilt",),
    (
        "planner.teams.views",
        "planner.teams.api",
        "planner.designs.views",
        "planner.designs.api.views",
        "planner.designs.api.canvas",
        "planner.designs.api.wizard",
        "planner.outputs.views",
        "planner.outputs.api",
        "planner.quotes.views",
        "planner.quotes.api",
        "planner.audit.views",
        "planner.audit.api",
        "planner.asbuilt.views",
        "planner.asbuilt.api",
        "planner.navigation",
        "planner.catalog_hooks",
    ),
    (
        "planner.project",
        "planner.teams.urls",
        "planner.teams.admin",
        "planner.teams.apps",
        "planner.management",
        "planner.admin",
        "planner.apps",
        "planner.models",
    ),
]
ROOMS = {room: rung for rung, rooms in enumerate(LADDER) for room in rooms}


def room_of(module: str) -> str | None:
    """The longest room prefix of ``module`` (None for the bare ``planner`` package)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in ROOMS:
            return prefix
    return None


def product_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    return modules


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from ... import`` names, at any depth of the file."""
    return set(_imported_in(path.read_text()))


@functools.cache  # by source text: the ladder and the circle tests parse each file once
def _imported_in(source: str) -> frozenset[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(name for name in names if name.split(".")[0] in PACKAGES)


def climbs() -> list[str]:
    """Each import that reaches a higher rung."""
    found = []
    for module, path in sorted(product_modules().items()):
        source = room_of(module)
        if source is None:
            continue
        for name in sorted(imported_modules(path)):
            target = room_of(name)
            if target is None or target == source:
                continue
            if ROOMS[target] > ROOMS[source]:
                found.append(
                    f"{module} ({source}, rung {ROOMS[source]}) imports {name} "
                    f"({target}, rung {ROOMS[target]})"
                )
    return found


def test_every_product_module_has_a_room():
    homeless = [m for m in product_modules() if room_of(m) is None and m != "planner"]
    assert not homeless, homeless


def test_no_import_climbs_the_ladder():
    found = climbs()
    assert not found, "\n".join(found)


def import_graph(modules: dict[str, Path]):
    """Module -> module edges (a name imported from a module counts as that module)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        for name in imported_modules(path):
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                target = ".".join(parts[:end])
                if target in modules:
                    if target != module:
                        graph.add_edge(module, target)
                    break
    return graph


def circles(modules: dict[str, Path]) -> list[list[str]]:
    import networkx as nx

    return [
        sorted(group)
        for group in nx.strongly_connected_components(import_graph(modules))
        if len(group) > 1
    ]


def test_no_import_closes_a_circle():
    found = circles(product_modules())
    assert not found, found


def test_a_circle_is_caught(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from planner.b import x\n")
    b.write_text("def f():\n    from planner.a import y\n")
    assert circles({"planner.a": a, "planner.b": b}) == [["planner.a", "planner.b"]]


def test_the_ladder_test_can_fail(monkeypatch, tmp_path):
    """A module of the catalog importing designs is caught (the check is not vacuous)."""
    fake = tmp_path / "inventory" / "sneaky.py"
    fake.parent.mkdir()
    fake.write_text("def f():\n    from planner.designs import services\n")
    monkeypatch.setattr(
        __import__(__name__, fromlist=["product_modules"]),
        "product_modules",
        lambda: {"inventory.sneaky": fake},
    )
    assert climbs() == [
        "inventory.sneaky (inventory, rung 2) imports planner.designs (planner.designs, rung 8)",
        "inventory.sneaky (inventory, rung 2) imports planner.designs.services "
        "(planner.designs, rung 8)",
    ]


def test_teams_import_nothing_above_them(monkeypatch, tmp_path):
    """Teams are below the catalog: a team module reading a price book is caught."""
    fake = tmp_path / "teams_sneaky.py"
    fake.write_text("from inventory.models import PriceBook\n")
    monkeypatch.setattr(
        __import__(__name__, fromlist=["product_modules"]),
        "product_modules",
        lambda: {"planner.teams.sneaky": fake},
    )
    assert climbs() == [
        "planner.teams.sneaky (planner.teams, rung 1) imports inventory.models (inventory, rung 2)",
        "planner.teams.sneaky (planner.teams, rung 1) imports inventory.models.PriceBook "
        "(inventory, rung 2)",
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_packages_exist(package):
    assert (ROOT / package / "__init__.py").exists()
