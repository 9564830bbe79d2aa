"""A database made before the designs, the audit log, quotes and as-built imports moved to apps
of their own migrates in place, losing nothing.

The database is built with the migrations as they were (``tests/data/before_apps``: Design,
DesignRevision, AuditEvent, Quote, QuoteNumberSequence and FieldImport under the planner app,
the event's design a foreign key), filled through that state's models (teams, a team's price
book, designs with revisions, a job, quotes with a sent version and its re-priced draft,
cabling and counter imports, audit events of a design kept, of one deleted, of the catalog,
the content types, permissions and an admin log entry the old ``migrate`` and admin made),
then migrated forward with today's migrations. Every row and relation is still there, read
through today's models.

It runs on a SQLite database of its own, in memory (a second connection), not the test database.
"""

from __future__ import annotations

import datetime
import zlib
from decimal import Decimal

from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import override_settings

from planner.asbuilt.models import FieldImport
from planner.audit.log import audit_events_for
from planner.audit.models import AuditEvent
from planner.designs.models import Design, DesignRevision
from planner.quotes.models import Quote, QuoteNumberSequence
from simulation.models import Job
from tests.models.old_state import ALIAS

OLD = "tests.data.before_apps.{}.migrations"
OLD_MODULES = {
    "designs": None,  # no such apps before the move
    "audit": None,
    "quotes": None,
    "asbuilt": None,
    "teams": OLD.format("teams"),
    "planner": OLD.format("planner"),
    "inventory": OLD.format("inventory"),
    "simulation": OLD.format("simulation"),
}
#: What the moved models were, under the planner app, and what they are now.
MOVED = {
    "auditevent": "audit",
    "quote": "quotes",
    "quotenumbersequence": "quotes",
    "fieldimport": "asbuilt",
    "design": "designs",
    "designrevision": "designs",
}
SNAPSHOT = {"lines": [{"part": "QM9700", "quantity": 4, "unit_price": "31000.00"}], "total": "1"}


def _model(apps, label):
    return apps.get_model(label).objects.using(ALIAS)


def _designs(apps, users: dict, blue) -> dict:
    """Two designs with revisions, a third deleted after an event named it."""
    designs = {
        "shared": _model(apps, "planner.Design").create(
            name="Shared", owner=users["ann"], team=blue, sharing="team-edit"
        ),
        "private": _model(apps, "planner.Design").create(name="Private", owner=users["cat"]),
        "gone": _model(apps, "planner.Design").create(name="Gone", owner=users["ann"]),
    }
    revisions = {}
    for key, design in designs.items():
        revisions[key] = _model(apps, "planner.DesignRevision").create(
            design=design,
            number=1,
            spec={"name": design.name},
            topology=zlib.compress(b"{}"),
            summary={"gpus": 8},
            created_by=design.owner,
        )
    return {"designs": designs, "revisions": revisions}


def _quotes(apps, users: dict, design, revision, book) -> dict:
    """Quote Q-2026-0001 sent (v1) and re-priced into a draft (v2); Q-2026-0002, a draft."""
    quote = _model(apps, "planner.Quote")
    _model(apps, "planner.QuoteNumberSequence").create(year=2026, last=2)
    common = {
        "design": design,
        "revision": revision,
        "price_book": book,
        "currency": "USD",
        "created_by": users["ann"],
        "valid_until": datetime.date(2026, 12, 31),
    }
    sent = quote.create(
        **common,
        year=2026,
        sequence=1,
        number="Q-2026-0001",
        customer="ACME Labs",
        customer_address="1 Main Street\nSpringfield",
        terms="Net 30",
        discounts_pct={"switch": "12.50"},
        margin_pct=Decimal("8.00"),
        status="sent",
        snapshot=SNAPSHOT,
        sent_by=users["ann"],
        sent_at=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC),
        approved_by=users["ann"],
        approved_margin_pct=Decimal("8.00"),
    )
    draft = quote.create(
        **common,
        year=2026,
        sequence=1,
        number="Q-2026-0001",
        version=2,
        previous=sent,
        customer="ACME Labs",
        margin_pct=Decimal("10.00"),
    )
    other = quote.create(**common, year=2026, sequence=2, number="Q-2026-0002", customer="Other")
    return {"sent": sent.pk, "draft": draft.pk, "other": other.pk}


def _events(apps, users: dict, blue, made: dict) -> dict:
    """A design's events (one with the key alone, as no service wrote it), a deleted design's,
    one of the private design by someone else than its owner, and a catalog one."""
    event = _model(apps, "planner.AuditEvent")
    shared, private, gone = (made["designs"][key] for key in ("shared", "private", "gone"))
    ids = {
        "created": event.create(
            actor=users["ann"],
            action="design.created",
            team=blue,
            design=shared,
            design_ref=shared.pk,
            design_name="Shared",
            summary="Created Shared",
        ).pk,
        "key_alone": event.create(
            actor=users["ann"],
            action="quote.changed",
            team=blue,
            design=shared,
            design_name="Shared",
            summary="Changed quote",
            details={"fields": {"margin_pct": {"old": "8", "new": "10"}}},
        ).pk,
        "gone": event.create(
            actor=users["ann"],
            action="design.created",
            design=gone,
            design_ref=gone.pk,
            design_name="Gone",
            summary="Created Gone",
        ).pk,
        "private": event.create(
            actor=users["bob"],
            action="export.downloaded",
            design=private,
            design_ref=private.pk,
            design_name="Private",
            summary="Downloaded",
        ).pk,
        "catalog": event.create(
            actor=users["cat"],
            action="catalog.changed",
            object_type="switch",
            object_ref="qm9700",
            summary="Changed QM9700",
        ).pk,
    }
    gone_pk = gone.pk
    gone.delete()  # the event's key is set to null; design_ref keeps the id
    return {**ids, "gone_design": gone_pk}


def _content_types(apps, users: dict, quote_pk: int) -> None:
    """What the old ``migrate`` and admin made: the content types, permissions of each moved
    model, and an admin log entry about a quote."""
    types = _model(apps, "contenttypes.ContentType")
    for model in MOVED:
        content_type = types.create(app_label="planner", model=model)
        _model(apps, "auth.Permission").create(
            content_type=content_type, codename=f"change_{model}", name=f"Can change {model}"
        )
    _model(apps, "admin.LogEntry").create(
        user=users["ann"],
        content_type=types.get(app_label="planner", model="quote"),
        object_id=str(quote_pk),
        object_repr="Q-2026-0001",
        action_flag=2,
        action_time=datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC),
    )


def _populate_old(apps) -> dict:
    """Rows at the old state, through that state's models; their ids for the checks."""
    users = {
        name: _model(apps, "auth.User").create(username=name) for name in ("ann", "bob", "cat")
    }
    blue = _model(apps, "teams.Team").create(name="Blue", slug="blue")
    _model(apps, "teams.TeamMembership").create(team=blue, user=users["ann"], role="owner")
    book = _model(apps, "inventory.PriceBook").create(slug="blue-deal", name="Blue deal", team=blue)
    made = _designs(apps, users, blue)
    shared_revision = made["revisions"]["shared"]
    job = _model(apps, "simulation.Job").create(
        kind="validate", owner=users["ann"], design_revision=shared_revision, input_hash="h"
    )
    quotes = _quotes(apps, users, made["designs"]["shared"], shared_revision, book)
    field_import = _model(apps, "planner.FieldImport")
    cabling = field_import.create(
        kind="cabling",
        source_format="lldp-json",
        file_name="lldp.json",
        revision=shared_revision,
        created_by=users["bob"],
        summary={"matched": 3, "missing": 1},
        report={"findings": [{"kind": "missing", "port": "leaf1:1"}]},
    )
    field_import.create(kind="counters", source_format="counters-csv", revision=shared_revision)
    events = _events(apps, users, blue, made)
    _content_types(apps, users, quotes["sent"])
    return {
        "blue": blue.pk,
        "book": book.pk,
        "shared": made["designs"]["shared"].pk,
        "private": made["designs"]["private"].pk,
        "revision": shared_revision.pk,
        "job": job.pk,
        "cabling": cabling.pk,
        **{f"quote_{key}": pk for key, pk in quotes.items()},
        **{f"event_{key}": pk for key, pk in events.items()},
    }


def _build_old(connection, targets=None):
    """Migrate ``connection`` to the old state (its leaves, or ``targets``); its models."""
    with override_settings(MIGRATION_MODULES=OLD_MODULES):
        old = MigrationExecutor(connection)
        targets = targets or old.loader.graph.leaf_nodes()
        assert not any(app in MOVED.values() for app, _ in targets)
        old.migrate(targets)
        return old.loader.project_state(targets).apps


def _check_quotes(ids: dict) -> None:
    quotes = Quote.objects.using(ALIAS)
    sent = quotes.get(pk=ids["quote_sent"])
    assert (sent.number, sent.version, sent.status, sent.snapshot) == (
        "Q-2026-0001",
        1,
        "sent",
        SNAPSHOT,
    )
    assert (sent.customer, sent.customer_address, sent.terms) == (
        "ACME Labs",
        "1 Main Street\nSpringfield",
        "Net 30",
    )
    assert (sent.discounts_pct, sent.margin_pct, sent.approved_margin_pct) == (
        {"switch": "12.50"},
        Decimal("8.00"),
        Decimal("8.00"),
    )
    assert (sent.sent_by.username, sent.approved_by.username) == ("ann", "ann")
    assert (sent.design_id, sent.revision_id, sent.price_book_id) == (
        ids["shared"],
        ids["revision"],
        ids["book"],
    )
    draft = quotes.get(pk=ids["quote_draft"])
    assert (draft.previous_id, draft.version, draft.status) == (ids["quote_sent"], 2, "draft")
    assert list(sent.next_versions.using(ALIAS).values_list("pk", flat=True)) == [draft.pk]
    assert sorted(quotes.values_list("number", "version")) == [
        ("Q-2026-0001", 1),
        ("Q-2026-0001", 2),
        ("Q-2026-0002", 1),
    ]
    assert Design.objects.using(ALIAS).get(pk=ids["shared"]).quotes.using(ALIAS).count() == 3
    sequence = QuoteNumberSequence.objects.using(ALIAS).get()
    assert (sequence.year, sequence.last) == (2026, 2)


def _check_imports_and_jobs(ids: dict) -> None:
    imports = FieldImport.objects.using(ALIAS)
    cabling = imports.get(pk=ids["cabling"])
    assert (cabling.kind, cabling.source_format, cabling.file_name) == (
        "cabling",
        "lldp-json",
        "lldp.json",
    )
    assert cabling.summary == {"matched": 3, "missing": 1}
    assert cabling.report == {"findings": [{"kind": "missing", "port": "leaf1:1"}]}
    assert (cabling.revision_id, cabling.created_by.username) == (ids["revision"], "bob")
    revision = DesignRevision.objects.using(ALIAS).get(pk=ids["revision"])
    assert sorted(revision.field_imports.using(ALIAS).values_list("kind", flat=True)) == [
        "cabling",
        "counters",
    ]
    assert Job.objects.using(ALIAS).get(pk=ids["job"]).design_revision_id == ids["revision"]


def _check_events(ids: dict) -> None:
    events = AuditEvent.objects.using(ALIAS)
    assert events.count() == 5
    created = events.get(pk=ids["event_created"])
    assert (created.action, created.team_id, created.design_ref, created.design_name) == (
        "design.created",
        ids["blue"],
        ids["shared"],
        "Shared",
    )
    # The design's id, from the key where the event had no design_ref.
    key_alone = events.get(pk=ids["event_key_alone"])
    assert key_alone.design_ref == ids["shared"]
    assert key_alone.details == {"fields": {"margin_pct": {"old": "8", "new": "10"}}}
    assert events.get(pk=ids["event_gone"]).design_ref == ids["event_gone_design"]
    catalog = events.get(pk=ids["event_catalog"])
    assert (catalog.design_ref, catalog.object_ref, catalog.actor.username) == (
        None,
        "qm9700",
        "cat",
    )
    # Who reads what, after the move: cat owns the private design, bob changed it.
    users = {user.username: user for user in User.objects.using(ALIAS)}
    assert set(audit_events_for(users["cat"]).using(ALIAS).values_list("pk", flat=True)) == {
        ids["event_private"],
        ids["event_catalog"],
    }
    ann_reads = set(audit_events_for(users["ann"]).using(ALIAS).values_list("pk", flat=True))
    assert ann_reads == {ids[f"event_{key}"] for key in ("created", "key_alone", "gone", "catalog")}


def _check_content_types() -> None:
    types = ContentType.objects.using(ALIAS)
    for model, app in MOVED.items():
        assert not types.filter(app_label="planner", model=model).exists()
        permission = Permission.objects.using(ALIAS).get(codename=f"change_{model}")
        assert permission.content_type.app_label == app
    entry = LogEntry.objects.using(ALIAS).get()
    assert (entry.content_type.app_label, entry.content_type.model) == ("quotes", "quote")


def test_a_populated_database_migrates_in_place(old_connection):
    ids = _populate_old(_build_old(old_connection))

    new = MigrationExecutor(old_connection)
    new.loader.check_consistent_history(old_connection)
    planned = {(m.app_label, m.name) for m, _ in new.migration_plan(new.loader.graph.leaf_nodes())}
    # The tables exist: the migrations replacing the planner app's count as applied.
    assert planned == {
        ("audit", "0004_design_by_id"),
        ("audit", "0005_content_types"),
        ("quotes", "0005_content_types"),
        ("asbuilt", "0002_content_types"),
        ("designs", "0003_content_types"),
    }
    new.migrate(new.loader.graph.leaf_nodes())

    _check_quotes(ids)
    _check_imports_and_jobs(ids)
    _check_events(ids)
    _check_content_types()
    # And the state is today's: nothing left to migrate.
    after = MigrationExecutor(old_connection)
    assert after.migration_plan(after.loader.graph.leaf_nodes()) == []


def test_a_database_from_before_the_field_imports_gains_them(old_connection):
    """A database last migrated before field imports and the team action existed (planner
    0008): the asbuilt and audit apps run those migrations, and the rows stay."""
    old_targets = [
        ("planner", "0008_quote_customer_address_terms"),
        ("teams", "0003_content_types"),
        ("inventory", "0012_price_archived"),
        ("simulation", "0006_job_kind_explore"),
    ]
    apps = _build_old(old_connection, old_targets)
    user = _model(apps, "auth.User").create(username="ann")
    design = _model(apps, "planner.Design").create(name="D", owner=user)
    _model(apps, "planner.AuditEvent").create(
        actor=user, action="design.created", design=design, summary="Created D"
    )

    new = MigrationExecutor(old_connection)
    planned = {(m.app_label, m.name) for m, _ in new.migration_plan(new.loader.graph.leaf_nodes())}
    assert {("asbuilt", "0001_initial"), ("audit", "0003_team_changed")} <= planned
    assert ("quotes", "0004_customer_address_terms") not in planned
    new.migrate(new.loader.graph.leaf_nodes())

    event = AuditEvent.objects.using(ALIAS).get()
    assert (event.actor.username, event.design_ref, event.summary) == (
        "ann",
        design.pk,
        "Created D",
    )
    revision = DesignRevision.objects.using(ALIAS).create(
        design_id=design.pk, number=1, spec={}, topology=zlib.compress(b"{}")
    )
    FieldImport.objects.using(ALIAS).create(
        kind="cabling", source_format="lldp-csv", revision=revision
    )
    assert FieldImport.objects.using(ALIAS).get().revision.design_id == design.pk
