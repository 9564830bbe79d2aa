"""Design pages through the test client: list, wizard, detail, edit with conflict, restore,
diff, download, delete, and who sees what."""

from __future__ import annotations

import yaml

from planner.designs.models import Design
from planner.designs.services import design_create, design_revise
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

WIZARD = {
    "name": "Wizard pod",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": "63",
    "planes": "1",
    "tiers": "auto",
    "servers_per_su": "32",
    "oversubscription": "1",
    "leaf": "QM9700",
    "reserved_leaf_ports": "4",
    "media_server_leaf": "auto",
    "media_leaf_spine": "MMF",
    "media_spine_core": "auto",
    "source": "form",
    "sharing": "private",
}


def test_list_shows_only_visible_designs(logged_in_client, seed_catalog, user, other_user):
    mine = design_create(owner=user, spec_document=SPEC)
    design_create(owner=other_user, spec_document={**SPEC, "name": "Bob's"})
    page = logged_in_client.get("/designs/").content.decode()
    assert mine.name in page and "Bob&#x27;s" not in page and "Bob's" not in page
    assert "1,016" in page  # GPUs
    assert ">48<" in page  # switches


def test_wizard_saves_from_the_fields(logged_in_client, seed_catalog, user):
    page = logged_in_client.get("/designs/new/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="design-presets"' in html and "data-wizard" in html
    assert 'value="DGX-H100"' in html and 'value="QM9700"' in html
    response = logged_in_client.post("/designs/new/", WIZARD)
    assert response.status_code == 302
    design = Design.objects.get()
    assert response["Location"] == f"/designs/{design.pk}/"
    revision = design.revisions.get()
    assert revision.spec["servers"] == 63
    assert revision.spec["media"]["leaf-spine"] == "MMF"
    assert revision.summary["gpus"] == 504
    assert design.owner == user


def test_wizard_shows_problems_next_to_their_fields(logged_in_client, seed_catalog):
    response = logged_in_client.post(
        "/designs/new/", {**WIZARD, "servers": "511", "reserved_leaf_ports": "0", "tiers": "2"}
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert "need 3 tiers" in form.errors["tiers"][0]
    assert not Design.objects.exists()


def test_wizard_saves_from_text(logged_in_client, seed_catalog):
    data = {**WIZARD, "source": "text", "spec_text": yaml.safe_dump({**SPEC, "name": "Text"})}
    response = logged_in_client.post("/designs/new/", data)
    assert response.status_code == 302
    assert Design.objects.get().name == "Text"
    bad = logged_in_client.post(
        "/designs/new/", {**data, "spec_text": "name: x\ntopology: ring\nserver: DGX-H100\n"}
    )
    assert "topology: " in bad.context["form"].errors["spec_text"][0]


def test_wizard_preset_prefills(logged_in_client, seed_catalog):
    form = logged_in_client.get("/designs/new/?preset=h100-superpod-4su").context["form"]
    assert form.initial["servers"] == 127
    assert form.initial["media_leaf_spine"] == "MMF"


def test_detail_edit_conflict_restore_diff_download_delete(
    logged_in_client, seed_catalog, user, other_user
):
    design = design_create(owner=user, spec_document=SPEC)
    page = logged_in_client.get(f"/designs/{design.pk}/").content.decode()
    for text in ("Switches per tier and model", "QM9700", "1,020", "Transceivers per part"):
        assert text in page
    assert "Edit spec" in page

    edit = logged_in_client.get(f"/designs/{design.pk}/edit/")
    assert edit.context["form"].initial["base_revision"] == 1
    text = edit.context["form"].initial["spec_text"]
    assert yaml.safe_load(text)["servers"] == 127

    # Someone else saves revision 2 meanwhile.
    design_revise(design=design, user=user, spec_document={**SPEC, "servers": 63}, base_revision=1)
    mine = text.replace("servers: 127", "servers: 31")
    response = logged_in_client.post(
        f"/designs/{design.pk}/edit/", {"spec_text": mine, "base_revision": 1, "message": "m"}
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "Keep mine" in html and "Reload" in html
    assert response.context["form"]["base_revision"].value() == "2"
    # Keep mine: the same text on top of revision 2.
    response = logged_in_client.post(
        f"/designs/{design.pk}/edit/", {"spec_text": mine, "base_revision": 2, "message": "m"}
    )
    assert response.status_code == 302
    assert design.revisions.get(number=3).summary["servers"] == 31

    response = logged_in_client.post(f"/designs/{design.pk}/revisions/1/restore/")
    assert response.status_code == 302
    assert design.revisions.get(number=4).kind == "restored"

    diff = logged_in_client.get(f"/designs/{design.pk}/diff/?from=1&to=2").content.decode()
    assert "servers" in diff and "-512" in diff

    download = logged_in_client.get(f"/designs/{design.pk}/revisions/1/spec.yaml")
    assert yaml.safe_load(download.content)["servers"] == 127
    download = logged_in_client.get(f"/designs/{design.pk}/revisions/1/spec.json")
    assert download["Content-Type"].startswith("application/json")
    assert logged_in_client.get(f"/designs/{design.pk}/revisions/1/spec.txt").status_code == 404

    assert logged_in_client.get(f"/designs/{design.pk}/?revision=2").status_code == 200
    assert logged_in_client.get(f"/designs/{design.pk}/delete/").status_code == 200
    assert logged_in_client.post(f"/designs/{design.pk}/delete/").status_code == 302
    assert not Design.objects.exists()


def test_pages_of_others_are_404_and_readers_cannot_write(client, seed_catalog, user, other_user):
    team = Team.objects.create(name="Fabric", slug="fabric")
    TeamMembership.objects.create(team=team, user=user, role="owner")
    private = design_create(owner=user, spec_document=SPEC)
    shared = design_create(owner=user, spec_document=SPEC, team=team, sharing="team-read")
    client.force_login(other_user)
    assert client.get(f"/designs/{shared.pk}/").status_code == 404
    TeamMembership.objects.create(team=team, user=other_user, role="viewer")
    for url in (f"/designs/{private.pk}/", f"/designs/{private.pk}/edit/"):
        assert client.get(url).status_code == 404
    page = client.get(f"/designs/{shared.pk}/")
    assert page.status_code == 200
    assert "Edit spec" not in page.content.decode()
    assert client.get(f"/designs/{shared.pk}/edit/").status_code == 403
    assert client.post(f"/designs/{shared.pk}/revisions/1/restore/").status_code == 403
    assert client.post(f"/designs/{shared.pk}/delete/").status_code == 403


def test_every_preset_fits_the_wizard_fields(seed_catalog, user):
    """A preset put into the fields (its ``fields``, the one spec -> fields mapping) comes
    back as the same spec, through the form's save and the live summary's mapping alike:
    nothing silently dropped. Every preset fits the fields now, the 4 SU cluster's networks
    block included (its ``networks.compute: {}`` says nothing and is not kept), and the
    Arista preset's transport block (the transport step: RoCE on Arista's profile, the
    B3140H NICs marking DSCP 24); and the fields round-trip: fields -> spec -> fields are the
    same fields."""
    from planner.designs.forms import (
        DesignWizardForm,
        fields_from_spec,
        without_empty_compute,
        wizard_presets,
    )
    from planner.designs.wizard import spec_from_fields
    from planner.domain.spec import parse_spec

    with_networks = []
    presets = wizard_presets()
    for preset in presets:
        fields = preset["fields"]
        expected = without_empty_compute(preset["spec"])
        assert all(isinstance(value, str) for value in fields.values()), preset["slug"]
        assert fields["source"] == "form", preset["slug"]  # none is opened as its text
        # the summary API's mapping, of the fields as the browser sends them
        assert parse_spec(spec_from_fields(fields)) == parse_spec(expected), preset["slug"]
        form = DesignWizardForm({**fields, "sharing": "private"}, user=user)
        assert form.is_valid(), (preset["slug"], form.errors)
        assert form.spec_document() == expected, preset["slug"]
        assert fields_from_spec(spec_from_fields(fields)) == fields, preset["slug"]
        assert fields_from_spec(form.spec_document()) == fields, preset["slug"]
        if "networks" in preset["spec"]:
            with_networks.append(preset["slug"])
    assert "h100-superpod-4su-cluster" in with_networks
    cluster = {p["slug"]: p["fields"] for p in presets}["h100-superpod-4su-cluster"]
    ticked = [
        name for name in ("storage", "inband", "oob", "converged") if cluster[f"network_{name}"]
    ]
    assert ticked == ["storage", "inband", "oob"]
    arista = {p["slug"]: p["fields"] for p in presets}["arista-7060x6-rail"]
    transport = {name: value for name, value in arista.items() if name.startswith("transport_")}
    assert {name: value for name, value in transport.items() if value} == {
        "transport_type": "roce",
        "transport_profile": "arista",
        "transport_nic_data_dscp": "24",
    }


def test_a_spec_the_network_fields_cannot_show_opens_as_text(seed_catalog, user):
    """A networks key the wizard has no field for (storage spines) keeps the text: the
    preset's fields say "build from the text", and that text is the whole spec."""
    from planner.designs.forms import DesignWizardForm, fields_from_spec
    from planner.domain.presets import preset_get
    from planner.domain.spec import parse_spec

    spec = {**preset_get("h100-superpod-4su").spec, "networks": {"storage": {"spines": 6}}}
    fields = fields_from_spec(spec)
    assert fields["source"] == "text" and "spines: 6" in fields["spec_text"]
    form = DesignWizardForm({**fields, "sharing": "private"}, user=user)
    assert form.is_valid(), form.errors
    assert parse_spec(form.spec_document()) == parse_spec(spec)


def test_preset_fields_show_the_new_keys():
    from planner.designs.forms import wizard_presets

    fields = {preset["slug"]: preset["fields"] for preset in wizard_presets()}
    assert fields["gb300-nvl72-xdr"]["servers"] == "8"  # racks, in the servers field
    grow = fields["h100-superpod-grow-to-16su"]
    assert grow["grow_to_gpus"] == "4096" and grow["min_spines"] == "2" and grow["spines"] == ""
    assert fields["h100-superpod-4su"]["media_spine_core"] == "auto"
