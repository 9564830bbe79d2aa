"""Catalog REST API: filters, pagination, CRUD through the model rules, works-with."""

import pytest

from inventory.models import SwitchModel, Transceiver


@pytest.fixture
def seeded(seed_catalog):
    return seed_catalog


def _slugs(response):
    assert response.status_code == 200, response.content
    return {row["slug"] for row in response.json()["results"]}


def test_filters_by_form_factor_speed_media_reach_protocol_vendor(api_client, seeded):
    base = "/api/inventory/transceivers/?page_size=500"
    osfp = _slugs(api_client.get(f"{base}&form_factor=OSFP"))
    assert osfp == set(
        Transceiver.objects.filter(form_factor__startswith="OSFP").values_list("slug", flat=True)
    )
    assert "MMA4Z00-NS" in osfp and "MMA1Z00-NS400" not in osfp
    fast = _slugs(api_client.get(f"{base}&speed_gbps=1600"))
    assert fast and all(Transceiver.objects.get(slug=s).speed_gbps == 1600 for s in fast)
    smf = _slugs(api_client.get(f"{base}&media=smf&reach_min_m=500"))
    assert smf and all(
        t.media == "smf" and t.reach_m >= 500 for t in Transceiver.objects.filter(slug__in=smf)
    )
    assert "MMS4X00-NS" not in smf  # 100 m
    ib_only_eth = _slugs(api_client.get(f"{base}&protocol=infiniband"))
    assert "MMA4Z00-NS" in ib_only_eth and "MMA4Z00-NS-T" not in ib_only_eth
    arista = _slugs(api_client.get("/api/inventory/switches/?manufacturer=arista&page_size=500"))
    assert arista and all(
        SwitchModel.objects.get(slug=s).manufacturer.slug == "arista" for s in arista
    )
    osfp_switches = _slugs(
        api_client.get("/api/inventory/switches/?form_factor=OSFP&page_size=500")
    )
    assert "QM9700" in osfp_switches and "Q3400-RA" in osfp_switches  # OSFP224: OSFP family


def test_search_matches_slug_name_part_number_and_alias(api_client, seeded):
    """``?q=`` finds a part by any of the names it is known by, case-insensitively."""
    part = SwitchModel.objects.get(slug="QM9700")
    for typed in ("qm9700", part.name.upper(), part.part_number.lower()):
        found = _slugs(api_client.get("/api/inventory/switches/", {"q": typed, "page_size": 500}))
        assert "QM9700" in found, typed
    nothing = _slugs(api_client.get("/api/inventory/switches/", {"q": "no-such-part-zz"}))
    assert nothing == set()


@pytest.mark.parametrize("typed", ["1600", "1.6T", "1.6 Tb/s", "1600G", "1600 Gb/s", "1600Gbps"])
def test_speed_filters_accept_units(api_client, seeded, typed):
    found = api_client.get("/api/inventory/transceivers/", {"page_size": 500, "speed_gbps": typed})
    expected = set(Transceiver.objects.filter(speed_gbps=1600).values_list("slug", flat=True))
    assert expected and _slugs(found) == expected
    at_least = api_client.get("/api/inventory/switches/", {"speed_min_gbps": typed})
    fast = SwitchModel.objects.filter(port_speed_gbps__gte=1600).values_list("slug", flat=True)
    assert fast and _slugs(at_least) == set(fast)


@pytest.mark.parametrize("typed", ["fast", "800 furlongs", "1.5G", "-400"])
def test_a_speed_that_is_not_one_is_400_naming_the_field(api_client, seeded, typed):
    response = api_client.get("/api/inventory/transceivers/", {"speed_gbps": typed})
    assert response.status_code == 400
    assert "speed_gbps" in response.json() and "Traceback" not in response.content.decode()


def test_form_factor_matches_the_family(api_client, seeded):
    switches = "/api/inventory/switches/?page_size=500&form_factor="
    assert {"QM9700", "Q3400-RA"} <= _slugs(api_client.get(switches + "osfp"))
    assert "QM9700" not in _slugs(api_client.get(switches + "OSFP224"))
    modules = "/api/inventory/transceivers/?page_size=500&form_factor="
    qsfp = set(
        Transceiver.objects.filter(form_factor__startswith="QSFP").values_list("slug", flat=True)
    )
    assert {"QSFP112", "QSFP-DD"} <= set(
        Transceiver.objects.filter(slug__in=qsfp).values_list("form_factor", flat=True)
    )
    assert _slugs(api_client.get(modules + "QSFP")) == qsfp


def test_search_ordering_and_pagination(api_client, seeded):
    found = _slugs(api_client.get("/api/inventory/switches/?search=Quantum"))
    assert {"QM9700", "QM9790"} <= found
    page = api_client.get("/api/inventory/transceivers/?page_size=5&ordering=-speed_gbps").json()
    assert len(page["results"]) == 5 and page["next"]
    speeds = [row["speed_gbps"] for row in page["results"]]
    assert None not in speeds and speeds == sorted(speeds, reverse=True)  # unknown speeds last
    rising = api_client.get("/api/inventory/transceivers/?page_size=5&ordering=speed_gbps").json()
    speeds = [row["speed_gbps"] for row in rising["results"]]
    assert None not in speeds and speeds == sorted(speeds)
    capped = api_client.get("/api/inventory/transceivers/?page_size=100000").json()
    assert len(capped["results"]) == min(1000, capped["count"])


def test_detail_has_provenance_and_works_with(api_client, seeded):
    qm = api_client.get("/api/inventory/switches/QM9700/").json()
    assert qm["category"] == "switch" and qm["power_typical_w"] == 747
    assert qm["provenance"]["power_typical_w"]["grade"] == "secondary"
    works = api_client.get("/api/inventory/switches/QM9700/works-with/").json()
    assert "MMA4Z00-NS" in {p["slug"] for p in works["Transceivers"]}
    assert "MMA4Z00-NS-T" not in {p["slug"] for p in works["Transceivers"]}  # Ethernet-only


def _new_cable(**overrides):
    body = {
        "slug": "TEST-DAC",
        "name": "Test DAC",
        "manufacturer": "nvidia",
        "cable_type": "dac",
        "topology": "1:2",
        "legs": 2,
        "speed_gbps": 800,
        "leg_speed_gbps": 400,
        "lengths_m": [1, 2],
        "max_length_m": 2,
        "sources": {"ds": {"url": "https://example.com", "grade": "datasheet"}},
        "provenance": {"speed_gbps": {"source": "ds", "grade": "datasheet"}},
    }
    body.update(overrides)
    return body


def test_create_update_delete(api_client, seeded, catalog_editor):
    created = api_client.post("/api/inventory/cables/", _new_cable(), format="json")
    assert created.status_code == 201, created.content
    patched = api_client.patch(
        "/api/inventory/cables/TEST-DAC/", {"max_length_m": 3}, format="json"
    )
    assert patched.status_code == 200 and patched.json()["max_length_m"] == 3
    assert api_client.delete("/api/inventory/cables/TEST-DAC/").status_code == 204
    assert api_client.get("/api/inventory/cables/TEST-DAC/").status_code == 404


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"leg_speed_gbps": 200}, "leg_speed_gbps"),  # 2 x 200G != 800G
        ({"lengths_m": [1, 5]}, "lengths_m"),  # above max length
        ({"manufacturer": "nobody"}, "manufacturer"),
        ({"slug": "QM9700"}, "slug"),  # used by a switch
        ({"cable_type": "fiber"}, "cable_type"),
        ({"provenance": {"speed_gbps": {"source": "nope", "grade": "datasheet"}}}, "provenance"),
    ],
)
def test_invalid_create_is_400_keyed_by_field(api_client, seeded, catalog_editor, overrides, field):
    response = api_client.post("/api/inventory/cables/", _new_cable(**overrides), format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert api_client.get("/api/inventory/cables/TEST-DAC/").status_code == 404


def test_failed_update_keeps_stored_row(api_client, seeded, catalog_editor):
    response = api_client.patch(
        "/api/inventory/switches/QM9700/", {"power_typical_w": 5000}, format="json"
    )
    assert response.status_code == 400 and "power_typical_w" in response.json()
    assert SwitchModel.objects.get(slug="QM9700").power_typical_w == 747


def test_price_books_api(api_client, seeded, prices_visible):
    books = api_client.get("/api/inventory/price-books/").json()["results"]
    assert books[0]["price_count"] > 0
    prices = api_client.get("/api/inventory/prices/?part_slug=QM9700").json()["results"]
    assert prices[0]["price"] == "32870.00" and prices[0]["currency"] == "USD"


def test_schema_documents_catalog(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    for path in (
        "/api/inventory/switches/",
        "/api/inventory/transceivers/{slug}/works-with/",
        "/api/inventory/price-books/",
    ):
        assert path in schema["paths"]
    params = {
        p["name"] for p in schema["paths"]["/api/inventory/transceivers/"]["get"]["parameters"]
    }
    assert {
        "form_factor",
        "speed_gbps",
        "media",
        "reach_min_m",
        "protocol",
        "manufacturer",
    } <= params
    speed = next(
        p
        for p in schema["paths"]["/api/inventory/transceivers/"]["get"]["parameters"]
        if p["name"] == "speed_gbps"
    )
    assert speed["schema"]["type"] == "string" and speed["schema"]["pattern"]
    assert "1.6T" in speed["description"]
    import re

    pattern = re.compile(speed["schema"]["pattern"])
    assert all(pattern.match(t) for t in ["400", "800G", "800 Gb/s", "1.6T"])


def test_detail_resolves_part_numbers_and_aliases(api_client, seeded):
    by_opn = api_client.get("/api/inventory/transceivers/980-9I510-00NS00/")
    assert by_opn.status_code == 200 and by_opn.json()["slug"] == "MMA4Z00-NS"
    assert api_client.get("/api/inventory/cables/MCP7Y00-N002/").json()["max_length_m"] == 2
    # An alias of a part in another category is not found here.
    assert api_client.get("/api/inventory/switches/980-9I510-00NS00/").status_code == 404
