"""Design services: build, create, revise, restore, conflicts, immutability, size cap, lookups;
the catalog adapters they rely on; and every worked example."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.http import Http404

from inventory.models import Price, PriceBook, SwitchModel
from inventory.services import SEED_PRICE_BOOK
from planner.designs import selectors
from planner.designs.adapters import (
    catalog_facts,
    fabric_pack,
    fabric_unpack,
    price_of_factory,
    read_catalog_facts,
)
from planner.designs.models import Design, DesignRevision, RevisionImmutableError
from planner.designs.services import (
    DesignError,
    RevisionConflict,
    design_build,
    design_create,
    design_delete,
    design_restore,
    design_revise,
    design_update,
)
from planner.domain.presets import load_presets
from planner.teams.models import Team, TeamMembership

SPEC = {
    "name": "4 SU",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 127,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
}


def _with(**changes) -> dict:
    return {**SPEC, **changes}


def _problems(exc_info) -> dict[str, str]:
    return {p["field"]: p["message"] for p in exc_info.value.problems}


# --- adapters ----------------------------------------------------------------------------------


def test_catalog_facts_has_devices_parts_and_aliases(seed_catalog, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        facts = read_catalog_facts()
    assert facts.devices["QM9700"].radix_at(400) == 64
    assert facts.devices["DGX-H100"].gpus == 8
    assert facts.devices["DGX-H100"].category == "server"
    # Every part of every category, with its manufacturer and spec values.
    assert facts.parts["MMA4Z00-NS"]["category"] == "transceiver"
    assert facts.parts["MMA4Z00-NS"]["manufacturer"] == "nvidia"
    assert facts.parts["Q3400-RA"]["cage_groups"][0]["count"] == 72
    # Aliases (here an OPN) lead to the same part and device.
    assert facts.parts["920-9B36F-00RX-8S0"]["slug"] == "Q3400-RA"
    assert facts.devices["920-9B36F-00RX-8S0"].slug == "Q3400-RA"


def test_catalog_facts_are_read_once_per_catalog_state(seed_catalog, django_assert_num_queries):
    first = catalog_facts()
    with django_assert_num_queries(1):  # the fingerprint only
        assert catalog_facts() is first
    assert catalog_facts(for_new=True) is not first
    switch = SwitchModel.objects.get(slug="QM9700")
    switch.name = "Quantum-2 renamed"
    switch.save()
    changed = catalog_facts()
    assert changed is not first
    assert changed.parts["QM9700"]["name"] == "Quantum-2 renamed"
    assert first.parts["QM9700"]["name"] != "Quantum-2 renamed"


def test_price_of_takes_the_lowest_new_price_in_the_book_currency(seed_catalog):
    book = PriceBook.objects.create(slug="test-book", name="Test", currency="EUR")
    for price, currency, condition in (
        (100, "EUR", "new"),
        (80, "EUR", "new"),
        (10, "EUR", "used"),
        (5, "USD", "new"),
    ):
        Price.objects.create(
            book=book,
            part_category="switch",
            part_slug="QM9700",
            price=price,
            currency=currency,
            condition=condition,
        )
    price_of = price_of_factory("test-book")
    assert price_of("QM9700") == 80.0
    assert price_of("SN5600") is None
    assert price_of_factory()("QM9700") == 32870.0  # the seed book (USD)
    assert SEED_PRICE_BOOK == "reseller-list-2026"


def test_price_book_named_in_a_spec_must_exist(seed_catalog):
    with pytest.raises(DesignError) as exc:
        design_build(spec_document=_with(price_book="no-such-book"))
    assert "price_book" in _problems(exc)


def test_fabric_pack_round_trips(seed_catalog):
    _, fabric, _ = design_build(spec_document=SPEC)
    data = fabric_pack(fabric)
    assert isinstance(data, bytes)
    again = fabric_unpack(memoryview(data))
    assert again.node_name == fabric.node_name
    assert (again.link_b == fabric.link_b).all()
    assert again.info["gpus"] == 1016


# --- build -------------------------------------------------------------------------------------


def test_build_matches_the_superpod_4su_table(seed_catalog):
    spec, fabric, summary = design_build(spec_document=SPEC)
    assert spec.name == "4 SU"
    assert summary["gpus"] == 1016
    assert summary["switches"] == {"leaf": 32, "spine": 16, "core": 0}
    assert summary["links"]["server-leaf"] == 1020
    assert summary["links"]["leaf-spine"] == 1024


def test_build_accepts_yaml_text(seed_catalog):
    text = "name: t\ntopology: clos\nserver: DGX-H100\nservers: 4\nswitches: {leaf: QM9700}\n"
    _, _, summary = design_build(spec_document=text)
    assert summary["servers"] == 4


@pytest.mark.parametrize(
    ("document", "field", "words"),
    [
        ("name: [unclosed", "", "malformed"),
        ({"name": "x", "topology": "ring", "server": "DGX-H100"}, "topology", "ring"),
        (_with(servers=511, tiers=2), "tiers", "need 3 tiers"),
        (_with(server="NO-SUCH-SERVER"), "server", "NO-SUCH-SERVER"),
        (_with(switches={"leaf": "QM9700", "spine": "NOPE"}), "switches.spine", "NOPE"),
        (_with(switches={"leaf": "DGX-B300"}), "switches.leaf", "no switch"),
        (_with(reserved_leaf_ports=20), "reserved_leaf_ports", "free"),
    ],
    ids=[
        "malformed",
        "schema",
        "infeasible",
        "unknown-server",
        "unknown-spine",
        "wrong-category",
        "reserved",
    ],
)
def test_build_problems_name_the_field(seed_catalog, document, field, words):
    with pytest.raises(DesignError) as exc:
        design_build(spec_document=document)
    problems = _problems(exc)
    assert field in problems, problems
    assert words in problems[field]


def test_size_cap_names_servers(seed_catalog, settings):
    settings.DESIGN_MAX_GPUS = 1000
    with pytest.raises(DesignError) as exc:
        design_build(spec_document=SPEC)
    message = _problems(exc)["servers"]
    assert "1,016 GPUs" in message and "1,000" in message
    del settings.DESIGN_MAX_GPUS  # the default: 2,000,000 GPUs (a 1,048,576-GPU design fits)
    with pytest.raises(DesignError) as exc:
        design_build(spec_document=_with(servers=250_001))
    message = _problems(exc)["servers"]
    assert "2,000,008 GPUs" in message and "2,000,000 GPUs (DESIGN_MAX_GPUS)" in message


def test_size_cap_applies_to_racks_gpus_and_growth(seed_catalog, settings):
    """The cap holds however the size is given: racks of a rack-scale system, GPUs, or the
    final build of grow_to (which would otherwise list growth steps without end)."""
    settings.DESIGN_MAX_GPUS = 1000
    nvl72 = {
        "name": "gb300",
        "topology": "rail-optimized",
        "server": "GB300-NVL72",
        "switches": {"leaf": "Q3400-RA"},
    }
    with pytest.raises(DesignError) as exc:
        design_build(spec_document={**nvl72, "racks": 14})
    assert "14 racks" in _problems(exc)["racks"] and "1,008 GPUs" in _problems(exc)["racks"]
    with pytest.raises(DesignError) as exc:
        design_build(spec_document={**nvl72, "gpus": 10**12})
    assert "1,000,000,000,000 GPUs" in _problems(exc)["gpus"]
    with pytest.raises(DesignError) as exc:
        design_build(spec_document={**nvl72, "racks": 8, "grow_to": {"gpus": 10**9}})
    assert "1,000 GPUs (DESIGN_MAX_GPUS)" in _problems(exc)["grow_to.gpus"]


def test_size_cap_applies_to_a_full_fat_tree(seed_catalog, settings):
    settings.DESIGN_MAX_GPUS = 10_000
    spec = {
        "name": "ft",
        "topology": "fat-tree",
        "server": "DGX-H100",
        "k": 48,
        "switches": {"leaf": "QM9700"},
    }
    with pytest.raises(DesignError) as exc:
        design_build(spec_document=spec)
    assert "k = 48" in _problems(exc)["servers"]


@pytest.mark.parametrize("preset", load_presets(), ids=lambda p: p.slug)
def test_every_example_parses_and_builds(seed_catalog, preset):
    spec, fabric, summary = design_build(spec_document=preset.spec)
    assert summary["gpus"] > 0
    assert summary["switches_total"] > 0
    assert fabric.link_count == sum(summary["links"].values())


EXPECTED = {
    # slug: (servers, gpus, leaf, spine, core, server-leaf, leaf-spine, spine-core)
    "h100-superpod-1su": (31, 248, 8, 4, 0, 252, 256, 0),
    "h100-superpod-2su": (63, 504, 16, 8, 0, 508, 512, 0),
    "h100-superpod-4su": (127, 1016, 32, 16, 0, 1020, 1024, 0),
    "h100-superpod-16su": (512, 4096, 128, 128, 64, 4096, 4096, 4096),
    "fat-tree-k48": (3456, 27648, 1152, 1152, 576, 27648, 27648, 27648),
}


@pytest.mark.parametrize("slug", sorted(EXPECTED))
def test_examples_reproduce_published_counts(seed_catalog, slug):
    preset = next(p for p in load_presets() if p.slug == slug)
    _, _, summary = design_build(spec_document=preset.spec)
    servers, gpus, leaf, spine, core, sl, ls, sc = EXPECTED[slug]
    assert (summary["servers"], summary["gpus"]) == (servers, gpus)
    assert summary["switches"] == {"leaf": leaf, "spine": spine, "core": core}
    assert summary["links"] == {"server-leaf": sl, "leaf-spine": ls, "spine-core": sc}


# --- create, revise, restore ---------------------------------------------------------------------


def test_create_stores_revision_one(seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    assert design.name == "4 SU"
    revision = design.revisions.get()
    assert (revision.number, revision.kind, revision.created_by) == (1, "generated", user)
    assert revision.summary["gpus"] == 1016
    assert revision.spec["servers"] == 127
    assert fabric_unpack(revision.topology).info["servers"] == 127


def test_create_refuses_a_bad_spec_and_stores_nothing(seed_catalog, user):
    with pytest.raises(DesignError):
        design_create(owner=user, spec_document=_with(servers=0))
    assert not Design.objects.exists()


def test_revise_adds_the_next_revision(seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    revision = design_revise(
        design=design, user=user, spec_document=_with(servers=63), base_revision=1, message="2 SU"
    )
    assert (revision.number, revision.kind, revision.parent) == (2, "edited", 1)
    assert revision.summary["gpus"] == 504
    assert revision.message == "2 SU"
    assert list(design.revisions.values_list("number", flat=True).order_by("number")) == [1, 2]


def test_revise_on_a_stale_base_is_a_conflict_with_the_changes(seed_catalog, user, other_user):
    design = design_create(owner=user, spec_document=SPEC)
    design_revise(design=design, user=user, spec_document=_with(servers=63), base_revision=1)
    with pytest.raises(RevisionConflict) as exc:
        design_revise(
            design=design, user=other_user, spec_document=_with(servers=31), base_revision=1
        )
    assert exc.value.latest == 2
    changes = exc.value.changes
    assert changes["summary"]["gpus"] == {
        "old": 1016,
        "new": 504,
        "delta": -512,
        "text": "GPUs: 1,016 → 504 (-512)",  # issue 33 item 7: every change in words
    }
    assert changes["spec"]["servers"]["new"] == 63
    assert design.revisions.count() == 2
    # Saving on top of the latest works.
    again = design_revise(
        design=design, user=other_user, spec_document=_with(servers=31), base_revision=2
    )
    assert again.number == 3


def test_revise_rejects_an_unknown_base(seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    with pytest.raises(DesignError) as exc:
        design_revise(design=design, user=user, spec_document=SPEC, base_revision=7)
    assert "base_revision" in _problems(exc)


def test_restore_copies_spec_and_topology_into_a_new_revision(seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    design_revise(design=design, user=user, spec_document=_with(servers=63), base_revision=1)
    restored = design_restore(design=design, user=user, number=1)
    first = design.revisions.get(number=1)
    assert (restored.number, restored.kind, restored.parent) == (3, "restored", 1)
    assert restored.spec == first.spec
    assert bytes(restored.topology) == bytes(first.topology)
    assert restored.summary["gpus"] == 1016
    with pytest.raises(DesignError):
        design_restore(design=design, user=user, number=9)


def test_revisions_are_immutable(seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    revision = design.revisions.get()
    revision.message = "rewrite history"
    with pytest.raises(RevisionImmutableError):
        revision.save()
    assert DesignRevision.objects.get(pk=revision.pk).message == ""


def test_revision_numbers_are_unique_per_design(seed_catalog, user):
    design = design_create(owner=user, spec_document=SPEC)
    first = design.revisions.get()
    duplicate = DesignRevision(
        design=design, number=1, spec=first.spec, topology=b"x", summary={}, kind="edited"
    )
    with pytest.raises(ValidationError) as exc:
        duplicate.full_clean()
    assert "already exists" in str(exc.value)


def test_revision_clean_is_field_keyed():
    revision = DesignRevision(number=2, spec=[], topology=b"", kind="restored", parent=None)
    with pytest.raises(ValidationError) as exc:
        revision.clean()
    assert set(exc.value.message_dict) == {"spec", "topology", "parent"}


def test_sharing_needs_a_team_the_owner_belongs_to(seed_catalog, user, other_user):
    team = Team.objects.create(name="Fabric", slug="fabric")
    with pytest.raises(ValidationError) as exc:
        design_create(owner=user, spec_document=SPEC, sharing="team-read")
    assert "team" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        design_create(owner=user, spec_document=SPEC, team=team, sharing="team-read")
    assert "member" in exc.value.message_dict["team"][0]
    TeamMembership.objects.create(team=team, user=user, role="editor")
    design = design_create(owner=user, spec_document=SPEC, team=team, sharing="team-read")
    design = design_update(design=design, name="Renamed", sharing="private")
    assert Design.objects.get(pk=design.pk).name == "Renamed"
    design_delete(design=design)
    assert not DesignRevision.objects.exists()


# --- selectors ----------------------------------------------------------------------------------


def test_sharing_rules(seed_catalog, user, other_user, django_user_model):
    from django.core.exceptions import PermissionDenied

    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    viewer = other_user
    TeamMembership.objects.create(team=team, user=viewer, role="viewer")
    editor = django_user_model.objects.create_user(username="erin", password="pw-erin-123!")
    TeamMembership.objects.create(team=team, user=editor, role="editor")
    stranger = django_user_model.objects.create_user(username="sam", password="pw-sam-123!")
    private = design_create(owner=user, spec_document=SPEC)
    readable = design_create(owner=user, spec_document=SPEC, team=team, sharing="team-read")
    editable = design_create(owner=user, spec_document=SPEC, team=team, sharing="team-edit")

    def visible(who):
        return set(selectors.design_list_for(who).values_list("pk", flat=True))

    assert visible(user) == {private.pk, readable.pk, editable.pk}
    assert visible(viewer) == visible(editor) == {readable.pk, editable.pk}
    assert visible(stranger) == set()
    with pytest.raises(Http404):
        selectors.design_get_for(stranger, editable.pk)
    with pytest.raises(Http404):
        selectors.design_get_for(viewer, private.pk, write=True)
    with pytest.raises(PermissionDenied):
        selectors.design_get_for(viewer, editable.pk, write=True)
    with pytest.raises(PermissionDenied):
        selectors.design_get_for(editor, readable.pk, write=True)
    assert selectors.design_get_for(editor, editable.pk, write=True) == editable
    with pytest.raises(PermissionDenied):
        selectors.design_get_for(editor, editable.pk, manage=True)
    listed = selectors.design_list_for(user).get(pk=private.pk)
    assert listed.latest_number == 1
    assert listed.latest_summary["gpus"] == 1016


def test_a_campus_design_is_built_and_stored_with_its_campus_tier(seed_catalog, user):
    """A spec with a campus block goes through the service like any other: its revision's
    summary counts the links between buildings as their own tier and keeps the block."""
    spec = {
        "name": "two halls",
        "topology": "rail-optimized",
        "server": "DGX-B300",
        "servers": 128,
        "planes": 2,
        "uplink_speed_gbps": 400,
        "switches": {"leaf": "SN5600"},
        "campus": {"buildings": 2, "distance_m": 1200},
    }
    design = design_create(owner=user, spec_document=spec)
    revision = design.revisions.get()
    assert revision.spec["campus"] == {"buildings": 2, "distance_m": 1200}
    assert revision.summary["links"]["campus"] == 1024
    assert revision.summary["campus"]["transceivers"] == {"MMS4X50-NM": 1024}
    assert fabric_unpack(revision.topology).link_campus().sum() == 1024
