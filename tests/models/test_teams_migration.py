"""A database made before Team moved to its own app migrates in place, losing nothing.

The database is built with the migrations as they were (``tests/data/before_teams``: Team and
TeamMembership under the planner app, the price books' foreign key to ``planner.team``),
filled through that state's models (two teams, members with roles and the price right, a
team's price book with a price, designs shared and private with revisions, audit events, the
content types and a permission the old ``migrate`` made), then migrated forward with today's
migrations. Every row and relation is still there, read through today's models.

It runs on a SQLite database of its own, in memory (a second connection), not the test database;
migrating the whole history there takes a few seconds.
"""

from __future__ import annotations

import zlib
from decimal import Decimal

from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import override_settings

from inventory.models import Price, PriceBook
from planner.audit.models import AuditEvent
from planner.designs.models import Design, DesignRevision
from planner.teams.models import Team, TeamMembership
from tests.models.old_state import ALIAS

OLD = "tests.data.before_teams.{}.migrations"
OLD_MODULES = {
    "teams": None,  # no such app before the move
    "designs": None,
    "audit": None,
    "quotes": None,
    "asbuilt": None,
    "planner": OLD.format("planner"),
    "inventory": OLD.format("inventory"),
    "simulation": OLD.format("simulation"),
}


def _populate_old(apps) -> dict:
    """Rows at the old state, through that state's models; their ids for the checks."""

    def model(label):
        return apps.get_model(label).objects.using(ALIAS)

    users = {name: model("auth.User").create(username=name) for name in ("ann", "bob", "cat")}
    blue = model("planner.Team").create(name="Blue", slug="blue", margin_floor_pct=Decimal("12.50"))
    red = model("planner.Team").create(name="Red", slug="red")
    members = [
        (blue, users["ann"], "owner", True),
        (blue, users["bob"], "editor", False),
        (red, users["bob"], "viewer", True),
        (red, users["cat"], "owner", False),
    ]
    for team, user, role, prices in members:
        model("planner.TeamMembership").create(
            team=team, user=user, role=role, can_view_prices=prices
        )
    book = model("inventory.PriceBook").create(slug="blue-deal", name="Blue deal", team=blue)
    model("inventory.PriceBook").create(slug="public", name="Public")
    model("inventory.Price").create(
        book=book,
        part_category="switch",
        part_slug="qm9700",
        price=Decimal("31000.00"),
        currency="USD",
    )
    shared = model("planner.Design").create(
        name="Shared", owner=users["ann"], team=blue, sharing="team-edit"
    )
    private = model("planner.Design").create(name="Private", owner=users["cat"])
    for design in (shared, private):
        model("planner.DesignRevision").create(
            design=design,
            number=1,
            spec={"name": design.name},
            topology=zlib.compress(b"{}"),
            summary={"gpus": 8},
            created_by=design.owner,
        )
    model("planner.AuditEvent").create(
        actor=users["ann"],
        action="design.created",
        team=blue,
        design=shared,
        design_ref=shared.pk,
        design_name="Shared",
        summary="Created Shared",
    )
    # What the old ``migrate`` made after migrating: content types and a permission.
    team_type = model("contenttypes.ContentType").create(app_label="planner", model="team")
    model("contenttypes.ContentType").create(app_label="planner", model="teammembership")
    model("auth.Permission").create(content_type=team_type, codename="change_team", name="x")
    return {
        "blue": blue.pk,
        "red": red.pk,
        "book": book.pk,
        "shared": shared.pk,
        "private": private.pk,
        "members": len(members),
    }


def test_a_populated_database_migrates_in_place(old_connection):
    with override_settings(MIGRATION_MODULES=OLD_MODULES):
        old = MigrationExecutor(old_connection)
        targets = old.loader.graph.leaf_nodes()
        assert not any(app == "teams" for app, _ in targets)
        old.migrate(targets)
        ids = _populate_old(old.loader.project_state(targets).apps)

    new = MigrationExecutor(old_connection)
    new.loader.check_consistent_history(old_connection)
    plan = new.migration_plan(new.loader.graph.leaf_nodes())
    planned = {(m.app_label, m.name) for m, _ in plan}
    # The tables exist: the new initial migrations count as applied and do not run.
    assert ("teams", "0001_initial") not in planned
    assert ("designs", "0001_initial") not in planned
    assert ("teams", "0002_price_right_margin_floor") in planned
    new.migrate(new.loader.graph.leaf_nodes())

    db = ALIAS
    blue = Team.objects.using(db).get(pk=ids["blue"])
    assert (blue.name, blue.slug, blue.margin_floor_pct) == ("Blue", "blue", Decimal("12.50"))
    assert Team.objects.using(db).get(pk=ids["red"]).margin_floor_pct is None
    rows = sorted(
        TeamMembership.objects.using(db).values_list(
            "team__slug", "user__username", "role", "can_view_prices"
        )
    )
    assert rows == [
        ("blue", "ann", "owner", True),
        ("blue", "bob", "editor", False),
        ("red", "bob", "viewer", True),
        ("red", "cat", "owner", False),
    ]
    book = PriceBook.objects.using(db).get(pk=ids["book"])
    assert book.team_id == ids["blue"]
    assert list(blue.price_books.using(db).values_list("slug", flat=True)) == ["blue-deal"]
    assert Price.objects.using(db).get(book=book).price == Decimal("31000.00")
    assert PriceBook.objects.using(db).get(slug="public").team_id is None
    shared = Design.objects.using(db).get(pk=ids["shared"])
    assert (shared.team_id, shared.sharing, shared.owner.username) == (
        ids["blue"],
        "team-edit",
        "ann",
    )
    assert Design.objects.using(db).get(pk=ids["private"]).team_id is None
    assert DesignRevision.objects.using(db).filter(summary__gpus=8).count() == 2
    event = AuditEvent.objects.using(db).get()
    assert (event.team_id, event.design_ref) == (ids["blue"], ids["shared"])
    assert User.objects.using(db).count() == 3
    # Permissions follow the model to its new app label.
    assert ContentType.objects.using(db).filter(app_label="planner", model="team").count() == 0
    assert Permission.objects.using(db).get(codename="change_team").content_type.app_label == (
        "teams"
    )
    # And the state is today's: nothing left to migrate, no model change without a migration.
    after = MigrationExecutor(old_connection)
    assert after.migration_plan(after.loader.graph.leaf_nodes()) == []


def test_a_database_from_before_the_price_right_gains_its_columns(old_connection):
    """A database last migrated before the price right and the margin floor existed (planner
    0002): the teams app adds both columns, and the rows stay."""
    old_targets = [
        ("planner", "0002_revision_spec_blank_for_drawn"),
        ("inventory", "0001_initial"),
        ("simulation", "0001_initial"),
    ]
    with override_settings(MIGRATION_MODULES=OLD_MODULES):
        old = MigrationExecutor(old_connection)
        old.migrate(old_targets)
        apps = old.loader.project_state(old_targets).apps
        user = apps.get_model("auth.User").objects.using(ALIAS).create(username="ann")
        team = apps.get_model("planner.Team").objects.using(ALIAS).create(name="Blue", slug="b")
        apps.get_model("planner.TeamMembership").objects.using(ALIAS).create(
            team=team, user=user, role="owner"
        )
    new = MigrationExecutor(old_connection)
    new.migrate(new.loader.graph.leaf_nodes())
    membership = TeamMembership.objects.using(ALIAS).get()
    assert (membership.team.name, membership.user.username, membership.role) == (
        "Blue",
        "ann",
        "owner",
    )
    assert membership.can_view_prices is False
    assert membership.team.margin_floor_pct is None
