"""Catalog governance in the services: audited edits (old -> new), who may change which price
book, part usage by revisions, delete refused for used parts, and archiving that keeps old
revisions working (read, export, price, validate) while new designs are refused."""

from __future__ import annotations

import pytest

from inventory.models import Manufacturer, Price, PriceBook, ServerModel, SwitchModel
from inventory.permissions import (
    price_books_for,
    user_can_edit_catalog,
    user_can_edit_price_book,
    user_can_read_price_book,
)
from inventory.services import (
    SEED_PRICE_BOOK,
    CatalogConflict,
    manufacturer_delete,
    part_archive,
    part_delete,
    part_save,
    price_book_save,
    price_save,
)
from planner.analyses.reports import fabric_validate
from planner.audit.log import audit_events_for, part_history_for
from planner.audit.models import AuditEvent
from planner.designs.adapters import catalog_facts
from planner.designs.bom import revision_bom
from planner.designs.selectors import (
    part_usage,
    revision_fabric,
    revision_part_names,
    revision_topology,
)
from planner.designs.services import DesignError, design_create, design_edit_topology, design_revise
from planner.outputs.services import revision_export
from planner.quotes.services import quote_create, quote_price
from planner.teams.models import Team, TeamMembership
from tests.conftest import grant_catalog_editor
from tests.factories import TINY_SPEC, part


@pytest.fixture
def editor(django_user_model):
    return grant_catalog_editor(
        django_user_model.objects.create_user(username="ed", password="pw-ed-123!")
    )


@pytest.fixture
def teams(django_user_model):
    """Team alpha (owner Olga with the price right, editor Eve with it, viewer Vic without)
    and team beta (owner Bea with the price right)."""
    users = {
        name: django_user_model.objects.create_user(username=name, password=f"pw-{name}-123!")
        for name in ("olga", "eve", "vic", "bea")
    }
    alpha = Team.objects.create(name="Alpha", slug="alpha")
    beta = Team.objects.create(name="Beta", slug="beta")
    TeamMembership.objects.create(
        team=alpha, user=users["olga"], role="owner", can_view_prices=True
    )
    TeamMembership.objects.create(
        team=alpha, user=users["eve"], role="editor", can_view_prices=True
    )
    TeamMembership.objects.create(team=alpha, user=users["vic"], role="viewer")
    TeamMembership.objects.create(team=beta, user=users["bea"], role="owner", can_view_prices=True)
    return {"alpha": alpha, "beta": beta, **users}


# --- permissions ---------------------------------------------------------------------------------


def test_catalog_editor_is_a_permission_staff_have_it(user, editor, django_user_model):
    staff = django_user_model.objects.create_user(username="st", password="x", is_staff=True)
    assert user_can_edit_catalog(editor) and user_can_edit_catalog(staff)
    assert not user_can_edit_catalog(user)


def test_team_books_are_changed_by_owners_with_the_price_right(seed_catalog, teams, editor):
    public = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    alpha_book = PriceBook.objects.create(slug="alpha-deal", name="Alpha deal", team=teams["alpha"])
    assert public.team is None  # the seed book stays public
    # change
    assert user_can_edit_price_book(teams["olga"], alpha_book)
    assert not user_can_edit_price_book(teams["eve"], alpha_book)  # an editor, not the owner
    assert not user_can_edit_price_book(teams["vic"], alpha_book)
    assert not user_can_edit_price_book(teams["bea"], alpha_book)  # another team's owner
    assert not user_can_edit_price_book(teams["olga"], public)  # public: catalog editors only
    assert user_can_edit_price_book(editor, public)
    # a team's book is confidential: a catalog editor outside the team neither reads nor
    # changes it; staff do both
    assert not user_can_edit_price_book(editor, alpha_book)
    staff = type(editor).objects.create_user(username="stu", password="pw-stu-123!", is_staff=True)
    assert user_can_edit_price_book(staff, alpha_book) and user_can_read_price_book(
        staff, alpha_book
    )
    # read
    assert user_can_read_price_book(teams["eve"], alpha_book)
    assert not user_can_read_price_book(teams["vic"], alpha_book)  # no price right
    assert not user_can_read_price_book(teams["bea"], alpha_book)
    assert set(price_books_for(teams["bea"])) == {public}
    assert set(price_books_for(editor)) == {public}
    assert set(price_books_for(staff)) == {public, alpha_book}


# --- audit ---------------------------------------------------------------------------------------


def test_part_edits_are_audited_old_to_new_in_the_same_transaction(seed_catalog, editor, user):
    switch = SwitchModel.objects.get(slug="QM9700")
    switch.power_typical_w = 700
    switch.description = "edited"
    part_save(part=switch, actor=editor)
    # (the seed load's import wrote the part's creation: its events are the system's)
    edits = AuditEvent.objects.filter(action="catalog.changed", object_ref="QM9700", actor=editor)
    event = edits.get()
    assert event.actor == editor and event.object_type == "switch"
    assert event.details["fields"]["power_typical_w"] == {"old": 747, "new": 700}
    assert event.details["fields"]["description"]["new"] == "edited"
    assert set(event.details["fields"]) == {"power_typical_w", "description"}
    # a refused change writes neither the part nor an event
    switch.power_typical_w = 5000
    with pytest.raises(Exception):  # noqa: B017, PT011 - ValidationError from clean()
        part_save(part=switch, actor=editor)
    assert SwitchModel.objects.get(slug="QM9700").power_typical_w == 700
    assert edits.count() == 1
    # saving without a change records nothing
    part_save(part=SwitchModel.objects.get(slug="QM9700"), actor=editor)
    assert edits.count() == 1
    # the part's history is read by everyone signed in, newest first
    assert list(part_history_for(user, switch))[0] == event


def test_create_delete_and_manufacturers_are_audited(db, editor):
    cable = part("cable", "TEST-DAC", cable_type="dac", speed_gbps=400)
    part_delete(part=cable, actor=editor)
    deleted = AuditEvent.objects.get(action="catalog.deleted", object_ref="TEST-DAC")
    assert deleted.details["fields"]["speed_gbps"] == {"old": 400, "new": None}
    manufacturer_delete(manufacturer=Manufacturer.objects.get(slug="acme"), actor=editor)
    gone = AuditEvent.objects.get(action="catalog.deleted", object_type="manufacturer")
    assert gone.object_ref == "acme" and gone.details["fields"]["name"]["old"] == "ACME Networks"


def test_manufacturer_with_parts_is_not_deleted(seed_catalog, editor):
    nvidia = Manufacturer.objects.get(slug="nvidia")
    with pytest.raises(CatalogConflict) as refused:
        manufacturer_delete(manufacturer=nvidia, actor=editor)
    assert refused.value.count > 0 and Manufacturer.objects.filter(slug="nvidia").exists()


def test_price_events_are_read_only_by_readers_of_the_book(seed_catalog, teams, editor, user):
    alpha_book = price_book_save(
        book=PriceBook(slug="alpha-deal", name="Alpha deal", team=teams["alpha"]),
        actor=teams["olga"],
    )
    offer = price_save(
        price=Price(
            book=alpha_book, part_category="switch", part_slug="QM9700", price=30000, currency="USD"
        ),
        actor=teams["olga"],
    )
    offer.price = 1
    price_save(price=offer, actor=teams["olga"])
    changed = AuditEvent.objects.filter(action="price.changed", object_type="price").first()
    assert changed.details["fields"]["price"] == {"old": "30000.00", "new": "1.00"}
    assert changed.team == teams["alpha"]

    def sees(who):
        return audit_events_for(who).filter(pk=changed.pk).exists()

    assert sees(teams["olga"]) and sees(teams["eve"])
    assert not sees(editor)  # a catalog editor outside the team: the book is confidential
    assert not sees(teams["vic"])  # the team's viewer without the price right
    assert not sees(teams["bea"])  # another team's owner with the price right
    assert not sees(user)


# --- usage, delete and archive -------------------------------------------------------------------


@pytest.fixture
def old_design(seed_catalog, user):
    return design_create(owner=user, spec_document=TINY_SPEC)


def test_part_usage_finds_spec_fabric_and_nic_references(old_design):
    revision = old_design.latest_revision
    names = revision_part_names(revision)
    fabric = revision_fabric(revision)
    assert {"DGX-H100", "QM9700"} <= names and set(fabric.parts) <= names
    for slug in ("DGX-H100", "QM9700", fabric.parts[0]):
        usage = part_usage(_part(slug))
        assert usage.revisions == [(old_design.pk, old_design.name, 1)]
        assert usage.design_count == 1
    assert not part_usage(SwitchModel.objects.exclude(slug="QM9700").first())
    nic = ServerModel.objects.get(slug="DGX-H100").compute_nic
    if nic:
        assert part_usage(_part(nic)).revision_count == 1  # counted in the BOM through the server


def _part(slug):
    from inventory.services import part_get

    return part_get(slug)


def test_a_used_part_is_not_deleted(old_design, editor):
    server = ServerModel.objects.get(slug="DGX-H100")
    prices = Price.objects.filter(part_slug="DGX-H100").count()
    with pytest.raises(CatalogConflict) as refused:
        part_delete(part=server, actor=editor)
    assert "1 revision of 1 design" in refused.value.message and "archive" in refused.value.message
    assert ServerModel.objects.filter(slug="DGX-H100").exists()
    assert Price.objects.filter(part_slug="DGX-H100").count() == prices
    assert not AuditEvent.objects.filter(action="catalog.deleted").exists()


def test_archive_keeps_old_revisions_working_and_refuses_new_designs(old_design, editor, user):
    revision = old_design.latest_revision
    lines_before = [(line.part, line.quantity) for line in revision_bom(revision).lines]
    server = ServerModel.objects.get(slug="DGX-H100")
    media = revision_fabric(revision).parts[0]
    for slug in ("DGX-H100", media):
        part_archive(part=_part(slug), actor=editor)
    assert ServerModel.objects.get(slug="DGX-H100").archived
    assert AuditEvent.objects.filter(action="catalog.archived", object_ref="DGX-H100").exists()
    # nothing was deleted
    assert ServerModel.objects.filter(pk=server.pk).exists()

    # the old revision still reads, exports, prices and validates
    bom = revision_bom(revision)
    assert [(line.part, line.quantity) for line in bom.lines] == lines_before
    assert "DGX-H100" in {line.part for line in bom.lines}
    for fmt in ("cabling-csv", "bom-csv"):
        export = revision_export(user=user, design=old_design, revision=revision, fmt=fmt)
        text = "".join(export.chunks)
        assert "DGX-H100" in text or media in text, fmt
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    quote = quote_create(design=old_design, actor=user, customer="Acme", price_book=book)
    priced = quote_price(quote).priced
    assert "DGX-H100" in {p.line.part for p in priced.lines}
    leaf_line = next(p for p in priced.lines if p.line.part == "QM9700")
    assert leaf_line.unit_book is not None
    problems = fabric_validate(fabric=revision_fabric(revision), facts=catalog_facts())
    assert problems is not None

    # a new design naming it is refused, naming the field
    with pytest.raises(DesignError) as refused:
        design_create(owner=user, spec_document={**TINY_SPEC, "name": "New"})
    [problem] = refused.value.problems
    assert problem["field"] == "server" and "archived" in problem["message"]
    # a revision of the old design may keep what it already uses (spec and canvas edits)
    kept = design_revise(
        design=old_design, user=user, spec_document={**TINY_SPEC, "servers": 6}, base_revision=1
    )
    assert "DGX-H100" in revision_part_names(kept)
    document = revision_topology(kept)
    edited = design_edit_topology(
        design=old_design, user=user, document=document, base_revision=kept.number
    )
    assert edited.number == 3
    # unarchived, they are available again
    for slug in ("DGX-H100", media):
        part_archive(part=_part(slug), actor=editor, archived=False)
    design_create(owner=user, spec_document={**TINY_SPEC, "name": "Newer"})


def test_media_auto_skips_archived_parts_for_new_designs(old_design, editor, user):
    used = set(revision_fabric(old_design.latest_revision).parts)
    for slug in used:
        part_archive(part=_part(slug), actor=editor)
    try:
        fresh = design_create(owner=user, spec_document={**TINY_SPEC, "name": "Fresh"})
    except DesignError as exc:  # no other media fits: refused, naming a field
        assert all(p["field"] for p in exc.problems)
        return
    assert not used & set(revision_fabric(fresh.latest_revision).parts)
