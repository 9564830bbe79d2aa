"""Catalog pages through the test client: list, detail, edit forms, CSV transfer, price books.

Every part is built here, through ``services.part_save``, in an empty catalog (the
``empty_catalog`` fixture: the session's seed catalog is deleted inside each test's transaction).
"""

import csv
import io
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from inventory.forms import part_form_class
from inventory.models import (
    Manufacturer,
    NICModel,
    Price,
    PriceBook,
    RackType,
    SwitchModel,
    Transceiver,
)
from inventory.services import part_save

#: These pages are used by a catalog editor (non-editors: tests/api/test_catalog_governance.py).
pytestmark = pytest.mark.usefixtures("empty_catalog", "catalog_editor")

DATASHEET = "https://example.com/acme-datasheet.pdf"
SOURCES = {
    "ds": {"url": DATASHEET, "grade": "datasheet", "title": "ACME optics datasheet"},
    "shop": {"url": None, "grade": "secondary", "title": "Reseller listing"},
}


def vendor():
    return Manufacturer.objects.get_or_create(slug="acme", defaults={"name": "ACME Networks"})[0]


def build(model, slug, provenance=None, **spec):
    part = model(
        slug=slug,
        name=spec.pop("name", f"ACME {slug}"),
        manufacturer=vendor(),
        sources=SOURCES,
        provenance=provenance
        if provenance is not None
        else {key: {"source": "ds", "grade": "datasheet"} for key in spec},
        **spec,
    )
    return part_save(part=part)


def module(slug, form_factor="OSFP", speed=800, **extra):
    twin = speed == 800
    spec = {
        "form_factor": form_factor,
        "top": "ihs" if form_factor == "OSFP" else "",
        "ports_per_module": 2 if twin else 1,
        "speed_gbps": speed,
        "port_speed_gbps": speed // 2 if twin else speed,
        "lanes": 8 if twin else 4,
        "lane_rate_gbps": 100,
        "media": "mmf",
        "pmd": "2xSR4" if twin else "SR4",
        "connector": "mpo12-apc",
        "reach_m": 50,
        "power_max_w": 15,
        "protocols": ["infiniband"],
        "side": "switch",
    }
    spec.update(extra)
    return build(Transceiver, slug, **spec)


def switch(slug="ACME-SW64"):
    return build(
        SwitchModel,
        slug,
        protocols=["infiniband"],
        power_typical_w=700,
        power_max_w=1700,
        rack_units=1,
        cage_groups=[
            {
                "role": "data",
                "count": 32,
                "form_factor": "OSFP",
                "top": "ihs",
                "ports_per_cage": 2,
                "port_speed_gbps": 400,
                "lanes_per_port": 4,
                "lane_rate_gbps": 100,
                "max_module_power_w": 17,
            }
        ],
    )


def listed_slugs(html: str) -> list[str]:
    """Slugs of the rows of the parts table, in order."""
    return re.findall(r'<td class="slug"><a href="[^"]+">([^<]+)</a>', html)


def spec_row(html: str, field: str) -> str:
    """The HTML of one spec row of a detail page."""
    start = html.index(f'<tr id="spec-{field}">')
    end = html.find('<tr id="spec-', start + 1)
    return html[start : end if end != -1 else html.index("</section>", start)]


def field_block(html: str, field: str) -> str:
    """The HTML of one field of a form (label, widget, help and errors)."""
    start = html.index(f'data-field="{field}"')
    end = html.find('data-field="', start + 1)
    return html[start : end if end != -1 else len(html)]


def form_data(part) -> dict:
    """What the edit form of ``part`` posts when nothing is changed."""
    form = part_form_class(part.CATEGORY)(instance=part)
    data = {}
    for bound in form:
        if bound.field.disabled:
            continue
        value = bound.value()
        data[bound.name] = "" if value is None else value
    return data


def upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


# --- Lists ------------------------------------------------------------------------------------


def test_index_shows_switches_and_tabs_with_counts(logged_in_client, prices_visible):
    switch()
    module("OSFP-A")
    html = logged_in_client.get(reverse("inventory:index")).content.decode()
    assert listed_slugs(html) == ["ACME-SW64"]
    assert re.search(r'aria-current="page">Switches <span class="badge">1</span>', html)
    assert re.search(r'Transceivers <span class="badge">1</span>', html)
    assert reverse("inventory:price-book-list") in html
    assert reverse("inventory:transfer") in html


def test_list_filters_by_form_factor_and_speed(logged_in_client):
    module("OSFP-800")
    module("OSFP-400", speed=400)
    module("QSFP-400", form_factor="QSFP112", speed=400)
    url = reverse("inventory:part-list", args=["transceiver"])
    html = logged_in_client.get(url, {"form_factor": "OSFP"}).content.decode()
    assert listed_slugs(html) == ["OSFP-400", "OSFP-800"]
    assert 'name="form_factor"' in html and 'value="OSFP"' in html  # the filter bar keeps it
    html = logged_in_client.get(url, {"form_factor": "OSFP", "speed_gbps": 800}).content.decode()
    assert listed_slugs(html) == ["OSFP-800"]
    html = logged_in_client.get(url, {"speed_gbps": 400}).content.decode()
    assert listed_slugs(html) == ["OSFP-400", "QSFP-400"]
    html = logged_in_client.get(url, {"form_factor": "QSFP-DD"}).content.decode()
    assert listed_slugs(html) == [] and "No transceivers match these filters" in html


def test_list_speed_takes_units_and_form_factor_takes_families(logged_in_client):
    module("OSFP-800")
    module("OSFP224-1600", form_factor="OSFP224", speed=1600, lanes=8, lane_rate_gbps=200)
    module("QSFP-400", form_factor="QSFP112", speed=400)
    url = reverse("inventory:part-list", args=["transceiver"])
    for typed in ("800G", "800 Gb/s", "0.8T", "800"):
        html = logged_in_client.get(url, {"speed_gbps": typed}).content.decode()
        assert listed_slugs(html) == ["OSFP-800"], typed
    html = logged_in_client.get(url, {"speed_gbps": "1.6T"}).content.decode()
    assert listed_slugs(html) == ["OSFP224-1600"] and 'value="1.6T"' in html
    html = logged_in_client.get(url, {"speed_gbps": "fast"}).content.decode()
    assert "is not a speed; type one like 800G, 800 Gb/s, 1.6T or 400." in html
    html = logged_in_client.get(url, {"form_factor": "OSFP"}).content.decode()
    assert listed_slugs(html) == ["OSFP-800", "OSFP224-1600"]
    html = logged_in_client.get(url, {"form_factor": "qsfp"}).content.decode()
    assert listed_slugs(html) == ["QSFP-400"]
    assert 'value="QSFP">QSFP family: QSFP112, QSFP-DD, QSFP-DD800, QSFP56, QSFP28' in html


def test_list_sorts_by_whitelisted_columns_only(logged_in_client):
    module("A-15W", power_max_w=15)
    module("B-9W", speed=400, power_max_w=9)
    module("C-NONE", power_max_w=None)
    url = reverse("inventory:part-list", args=["transceiver"])
    html = logged_in_client.get(url, {"sort": "power_max_w"}).content.decode()
    assert listed_slugs(html) == ["B-9W", "A-15W", "C-NONE"]  # unknown last
    assert 'aria-sort="ascending"' in html
    html = logged_in_client.get(url, {"sort": "-power_max_w"}).content.decode()
    assert listed_slugs(html) == ["A-15W", "B-9W", "C-NONE"]
    assert 'aria-sort="descending"' in html
    html = logged_in_client.get(url, {"sort": "-notes"}).content.decode()  # not a column
    assert listed_slugs(html) == ["A-15W", "B-9W", "C-NONE"]
    assert "aria-sort" not in html


def test_list_shows_unknown_never_zero(logged_in_client):
    module("NO-POWER", power_max_w=None, reach_m=None)
    html = logged_in_client.get(reverse("inventory:part-list", args=["transceiver"])).content
    row = html.decode().split("NO-POWER</a>", 1)[1].split("</tr>", 1)[0]
    assert row.count('<span class="unknown">unknown</span>') >= 2
    assert ">0<" not in row


def test_list_paginates_by_50(logged_in_client):
    for index in range(51):
        module(f"M-{index:02d}")
    url = reverse("inventory:part-list", args=["transceiver"])
    first = logged_in_client.get(url, {"sort": "-slug"}).content.decode()
    assert len(listed_slugs(first)) == 50 and "Page 1 of 2" in first
    assert "?sort=-slug&amp;page=2" in first  # the sort survives paging
    second = logged_in_client.get(url, {"sort": "-slug", "page": 2}).content.decode()
    assert listed_slugs(second) == ["M-00"]


def test_unknown_category_is_404(logged_in_client):
    assert logged_in_client.get("/catalog/gpu/").status_code == 404
    assert logged_in_client.get("/catalog/gpu/X/").status_code == 404


# --- Detail -----------------------------------------------------------------------------------


def test_detail_shows_values_provenance_and_unknowns(logged_in_client):
    part = module(
        "OSFP-2SR4",
        power_max_w=15,
        partners=["OSFP-PEER", "NOT-IN-CATALOG"],
        provenance={
            "form_factor": {"source": "ds", "grade": "datasheet"},
            "power_max_w": {
                "source": "shop",
                "grade": "secondary",
                "note": "as listed by the shop",
                "alternatives": [{"value": 16.5, "source": "ds", "grade": "datasheet"}],
            },
        },
    )
    module("OSFP-PEER")
    response = logged_in_client.get(part.get_absolute_url())
    assert response.status_code == 200
    html = response.content.decode()
    form_factor = spec_row(html, "form_factor")
    assert 'class="badge grade-datasheet"' in form_factor
    assert f'href="{DATASHEET}"' in form_factor
    power = spec_row(html, "power_max_w")
    assert "<td>15</td>" in power
    assert "grade-secondary" in power and "Reseller listing" in power  # no URL: the title
    assert "as listed by the shop" in power and "16.5" in power
    for empty in ("power_typical_w", "dsp", "wavelength_nm", "fiber_grades"):
        assert '<span class="unknown">unknown</span>' in spec_row(html, empty), empty
    partners = spec_row(html, "partners")
    assert reverse("inventory:part-detail", args=["transceiver", "OSFP-PEER"]) in partners
    assert "NOT-IN-CATALOG" in partners and "not in catalog" in partners
    assert "ACME optics datasheet" in html.split('id="sources-heading"', 1)[1]
    assert reverse("inventory:part-edit", args=["transceiver", "OSFP-2SR4"]) in html
    assert reverse("inventory:part-delete", args=["transceiver", "OSFP-2SR4"]) in html


def test_detail_renders_nested_groups_and_their_own_provenance(logged_in_client):
    part = switch()
    part.provenance["cage_groups.0.top"] = {"grade": "inferred", "note": "finned like the rest"}
    part_save(part=part)
    html = logged_in_client.get(part.get_absolute_url()).content.decode()
    groups = spec_row(html, "cage_groups")
    assert 'class="table nested"' in groups
    for label in ("Form factor", "Ports per cage", "Max module power (W)"):
        assert label in groups
    assert "grade-inferred" in groups and "finned like the rest" in groups


def test_detail_prices_and_unpriced(logged_in_client, prices_visible):
    part = module("PRICED")
    web = PriceBook.objects.create(slug="web", name="Web shops", currency="USD")
    PriceBook.objects.create(slug="negotiated", name="Negotiated 2026", kind="negotiated")
    Price.objects.create(
        book=web,
        part_category="transceiver",
        part_slug="PRICED",
        price=Decimal("879.00"),
        currency="USD",
        seller="fs.com US",
        as_of="2026-02",
        source_url="https://shop.example.com/priced",
    )
    html = logged_in_client.get(part.get_absolute_url()).content.decode()
    prices = html.split('id="prices-heading"', 1)[1].split("</section>", 1)[0]
    assert "879.00 USD" in prices and "fs.com US" in prices and "2026-02" in prices
    assert "https://shop.example.com/priced" in prices
    negotiated = prices.split("Negotiated 2026", 1)[1].split("</tr>", 1)[0]
    assert "unpriced" in negotiated and "0.00" not in negotiated


def test_detail_works_with(logged_in_client):
    sw = switch()
    part = module("TWIN-SR")
    html = logged_in_client.get(part.get_absolute_url()).content.decode()
    works = html.split('id="works-heading"', 1)[1]
    assert "<h3>Cages" in works
    assert f'href="{sw.get_absolute_url()}"' in works
    html = logged_in_client.get(sw.get_absolute_url()).content.decode()
    assert f'href="{part.get_absolute_url()}"' in html.split('id="works-heading"', 1)[1]


def test_slug_with_dots_resolves(logged_in_client):
    part = module("OSFP-2FR4-1.6T", speed=800)
    assert logged_in_client.get(part.get_absolute_url()).status_code == 200
    assert part.get_absolute_url() == "/catalog/transceiver/OSFP-2FR4-1.6T/"


# --- Create, edit, delete ---------------------------------------------------------------------


def test_create_part(logged_in_client):
    url = reverse("inventory:part-create", args=["transceiver"])
    assert logged_in_client.get(url).status_code == 200
    data = {
        "slug": "NEW-400",
        "name": "ACME 400G SR4",
        "manufacturer": vendor().pk,
        "lifecycle": "shipping",
        "ports_per_module": "1",
        "form_factor": "QSFP112",
        "speed_gbps": "400",
        "power_typical_w": "8",
        "power_max_w": "9",
        "protocols": '["ethernet"]',
        "sources": '{"ds": {"url": "https://example.com/ds", "grade": "datasheet"}}',
        "provenance": '{"speed_gbps": {"source": "ds", "grade": "datasheet"}}',
    }
    response = logged_in_client.post(url, data)
    part = Transceiver.objects.get(slug="NEW-400")
    assert response.status_code == 302 and response["Location"] == part.get_absolute_url()
    assert (part.speed_gbps, part.power_max_w, part.protocols) == (400, 9, ["ethernet"])
    assert part.aliases == [] and part.breakouts == [] and part.reach_by_grade == {}


def test_create_with_typical_above_max_power_shows_error_and_writes_nothing(logged_in_client):
    url = reverse("inventory:part-create", args=["transceiver"])
    data = {
        "slug": "BAD-POWER",
        "name": "Bad power",
        "manufacturer": vendor().pk,
        "lifecycle": "shipping",
        "ports_per_module": "1",
        "power_typical_w": "20",
        "power_max_w": "15",
    }
    response = logged_in_client.post(url, data)
    assert response.status_code == 200
    html = response.content.decode()
    block = field_block(html, "power_typical_w")
    assert 'class="errorlist' in block and "above maximum power" in block
    assert 'aria-invalid="true"' in block
    assert 'value="20"' in block  # what was typed stays in the form
    assert not Transceiver.objects.filter(slug="BAD-POWER").exists()


def test_nested_error_is_shown_on_its_top_level_field(logged_in_client):
    url = reverse("inventory:part-create", args=["switch"])
    groups = (
        '[{"role": "data", "count": 32, "form_factor": "OSFP", "port_speed_gbps": 400,'
        ' "breakouts": ["4x200G"]}]'
    )
    data = {
        "slug": "BAD-SW",
        "name": "Bad switch",
        "manufacturer": vendor().pk,
        "lifecycle": "shipping",
        "cage_groups": groups,
    }
    html = logged_in_client.post(url, data).content.decode()
    block = field_block(html, "cage_groups")
    assert "cage_groups.0.breakouts" in block and "4x200G" in block
    assert not SwitchModel.objects.filter(slug="BAD-SW").exists()


def test_invalid_json_is_a_field_error(logged_in_client):
    url = reverse("inventory:part-create", args=["switch"])
    data = {
        "slug": "JSON-SW",
        "name": "x",
        "manufacturer": vendor().pk,
        "lifecycle": "shipping",
        "cage_groups": "[{oops",
    }
    html = logged_in_client.post(url, data).content.decode()
    assert "Enter a valid JSON" in field_block(html, "cage_groups")
    assert "[{oops" in field_block(html, "cage_groups")
    assert not SwitchModel.objects.filter(slug="JSON-SW").exists()


def test_slug_taken_in_another_category_is_refused(logged_in_client):
    switch("SHARED")
    data = {
        "slug": "SHARED",
        "name": "x",
        "manufacturer": vendor().pk,
        "lifecycle": "shipping",
        "ports_per_module": "1",
    }
    html = logged_in_client.post(
        reverse("inventory:part-create", args=["transceiver"]), data
    ).content.decode()
    assert "already a switch slug" in field_block(html, "slug")
    assert not Transceiver.objects.filter(slug="SHARED").exists()


def test_edit_part(logged_in_client):
    part = module("EDIT-ME")
    url = reverse("inventory:part-edit", args=["transceiver", "EDIT-ME"])
    html = logged_in_client.get(url).content.decode()
    assert 'value="EDIT-ME"' in html and "disabled" in field_block(html, "slug")
    data = form_data(part)
    data.update(reach_m="70", notes="Checked against rev B.")
    response = logged_in_client.post(url, data)
    assert response.status_code == 302
    part.refresh_from_db()
    assert (part.reach_m, part.notes, part.slug) == (70, "Checked against rev B.", "EDIT-ME")
    assert part.provenance["form_factor"] == {"source": "ds", "grade": "datasheet"}
    data.update(power_typical_w="99")  # above max: refused, nothing written
    html = logged_in_client.post(url, data).content.decode()
    assert "above maximum power" in field_block(html, "power_typical_w")
    part.refresh_from_db()
    assert part.power_typical_w is None


def test_delete_asks_then_deletes(logged_in_client):
    part = module("DELETE-ME")
    book = PriceBook.objects.create(slug="b", name="B")
    Price.objects.create(
        book=book, part_category="transceiver", part_slug="DELETE-ME", price=1, currency="USD"
    )
    url = reverse("inventory:part-delete", args=["transceiver", "DELETE-ME"])
    html = logged_in_client.get(url).content.decode()
    assert "Delete DELETE-ME?" in html and "1 price" in html
    assert Transceiver.objects.filter(pk=part.pk).exists()
    response = logged_in_client.post(url)
    assert response["Location"] == reverse("inventory:part-list", args=["transceiver"])
    assert not Transceiver.objects.filter(slug="DELETE-ME").exists()
    assert not Price.objects.filter(part_slug="DELETE-ME").exists()


# --- CSV transfer -----------------------------------------------------------------------------


def test_csv_export_then_import_round_trip(logged_in_client):
    module("RT-1")
    module("RT-2", speed=400)
    response = logged_in_client.get(reverse("inventory:export", args=["transceiver"]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == 'attachment; filename="catalog-transceiver.csv"'
    text = response.content.decode()
    transfer = reverse("inventory:transfer")

    unchanged = logged_in_client.post(
        transfer,
        {"form": "csv", "csv-category": "transceiver", "csv-file": upload("t.csv", text)},
        follow=True,
    )
    assert "0 created, 0 updated, 2 unchanged" in unchanged.content.decode()

    rows = list(csv.DictReader(io.StringIO(text)))
    rows[0]["reach_m"] = "70"
    rows.append({**rows[1], "slug": "RT-3", "name": "Third"})
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    changed = logged_in_client.post(
        transfer,
        {"form": "csv", "csv-category": "transceiver", "csv-file": upload("t.csv", out.getvalue())},
        follow=True,
    )
    assert "1 created, 1 updated, 1 unchanged" in changed.content.decode()
    assert Transceiver.objects.get(slug="RT-1").reach_m == 70
    assert Transceiver.objects.get(slug="RT-3").provenance == (
        Transceiver.objects.get(slug="RT-2").provenance
    )


def test_csv_upload_with_a_bad_row_shows_the_row_and_writes_nothing(logged_in_client):
    module("KEEP", reach_m=50)
    text = logged_in_client.get(reverse("inventory:export", args=["transceiver"])).content
    rows = list(csv.DictReader(io.StringIO(text.decode())))
    good = {**rows[0], "reach_m": "60"}
    bad = {**rows[0], "slug": "BROKEN", "power_typical_w": "30", "power_max_w": "15"}
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows([good, bad])
    response = logged_in_client.post(
        reverse("inventory:transfer"),
        {
            "form": "csv",
            "csv-category": "transceiver",
            "csv-file": upload("mine.csv", out.getvalue()),
        },
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "mine.csv was not imported" in html
    assert "mine.csv row 3" in html and "power_typical_w" in html
    assert "above maximum power" in html
    assert not Transceiver.objects.filter(slug="BROKEN").exists()
    assert Transceiver.objects.get(slug="KEEP").reach_m == 50  # the good row was not kept


def test_oversize_upload_is_refused(logged_in_client, settings):
    settings.CATALOG_IMPORT_MAX_BYTES = 100
    header = "slug,name,manufacturer\n"
    text = header + "".join(f"BIG-{i},Big {i},acme\n" for i in range(20))
    vendor()
    response = logged_in_client.post(
        reverse("inventory:transfer"),
        {"form": "csv", "csv-category": "rack", "csv-file": upload("big.csv", text)},
    )
    html = response.content.decode()
    assert "the limit is 100" in html and "Nothing was imported" in html
    assert 'id="id_csv-file_error"' in html
    assert not RackType.objects.exists()


def test_transfer_page_lists_downloads_and_netbox_form(logged_in_client):
    html = logged_in_client.get(reverse("inventory:transfer")).content.decode()
    for category in ("switch", "nic", "server", "transceiver", "cable", "fiber", "rack"):
        assert reverse("inventory:export", args=[category]) in html
    assert 'name="netbox-file"' in html and 'value="netbox"' in html


NETBOX = Path(__file__).resolve().parent.parent / "data" / "netbox"


def test_netbox_upload(logged_in_client):
    text = (NETBOX / "good" / "module-types" / "Nvidia" / "MCX75310AAS-NEAT.yaml").read_text()
    data = {"form": "netbox", "netbox-category": "", "netbox-file": upload("cx7.yaml", text)}
    html = logged_in_client.post(reverse("inventory:transfer"), data, follow=True)
    assert "Imported cx7.yaml: 1 created" in html.content.decode()
    assert NICModel.objects.count() == 1

    data = {"form": "netbox", "netbox-file": upload("broken.yaml", "model: [\n")}
    html = logged_in_client.post(reverse("inventory:transfer"), data).content.decode()
    assert "broken.yaml was not imported" in html and "broken.yaml line 2" in html


# --- Price books ------------------------------------------------------------------------------


@pytest.fixture
def book():
    module("PB-1")
    module("PB-2", speed=400)
    book = PriceBook.objects.create(slug="web-2026", name="Web 2026", currency="USD")
    Price.objects.create(
        book=book, part_category="transceiver", part_slug="PB-1", price=100, currency="USD"
    )
    return book


def test_price_book_list_and_detail(logged_in_client, book, prices_visible):
    html = logged_in_client.get(reverse("inventory:price-book-list")).content.decode()
    assert "Web 2026" in html and "Reseller web prices" in html
    assert re.search(r'<td class="num">1</td>', html)
    html = logged_in_client.get(reverse("inventory:price-book-detail", args=["web-2026"]))
    html = html.content.decode()
    assert reverse("inventory:part-detail", args=["transceiver", "PB-1"]) in html
    assert "100.00" in html


def test_price_book_csv_download_and_upload(logged_in_client, book, prices_visible):
    response = logged_in_client.get(reverse("inventory:price-book-export", args=["web-2026"]))
    assert response["Content-Disposition"] == 'attachment; filename="prices-web-2026.csv"'
    text = response.content.decode()
    assert "PB-1" in text
    text += "PB-2,transceiver,55.50,USD,shop,,2026,secondary,new,,\n"
    url = reverse("inventory:price-book-detail", args=["web-2026"])
    # the upload first previews (nothing written), then the previewed file is applied
    preview = logged_in_client.post(url, {"file": upload("p.csv", text)}).content.decode()
    assert "1 added" in preview and "0 removed" in preview
    assert list(book.prices.values_list("part_slug", flat=True)) == ["PB-1"]
    changed = text.replace("PB-1,transceiver,100.00,", "PB-1,transceiver,1234.50,")
    preview = logged_in_client.post(url, {"file": upload("p.csv", changed)}).content.decode()
    assert "1 changed" in preview
    assert '<td class="num">100.00</td><td class="num">1,234.50</td>' in preview
    applied = logged_in_client.post(
        url, {"step": "apply", "text": text, "name": "p.csv"}, follow=True
    ).content.decode()
    assert "Applied p.csv to Web 2026: 1 added, 0 changed, 0 removed" in applied
    assert sorted(book.prices.values_list("part_slug", "price")) == [
        ("PB-1", Decimal("100.00")),
        ("PB-2", Decimal("55.50")),
    ]


def test_price_book_upload_with_a_bad_row_changes_nothing(logged_in_client, book, prices_visible):
    text = "part,price,currency\nPB-2,10,USD\nNO-SUCH-PART,20,USD\n"
    url = reverse("inventory:price-book-detail", args=["web-2026"])
    html = logged_in_client.post(url, {"file": upload("p.csv", text)}).content.decode()
    assert "p.csv row 3" in html and "NO-SUCH-PART" in html
    # the problems stand at the top, in the upload card next to the file field
    card = html[html.index('data-testid="price-upload"') :]
    assert card.index("p.csv row 3") < card.index('name="file"') < card.index('class="scroll"')
    assert list(book.prices.values_list("part_slug", flat=True)) == ["PB-1"]


def test_price_book_header_only_upload_asks_again_before_removing_everything(
    logged_in_client, book, prices_visible
):
    url = reverse("inventory:price-book-detail", args=["web-2026"])
    header = "part,category,price,currency,seller,source_url,as_of,grade,condition,length_m,note\n"
    preview = logged_in_client.post(url, {"file": upload("empty.csv", header)}).content.decode()
    assert "1 removed" in preview and 'name="confirm_removals"' in preview
    assert book.prices.count() == 1
    refused = logged_in_client.post(
        url, {"step": "apply", "text": header, "name": "empty.csv"}
    ).content.decode()
    assert "removes 1 of the book&#x27;s 1 offer" in refused
    assert refused.index('data-field="confirm_removals"') < refused.index("removes 1 of the book")
    assert book.prices.count() == 1
    done = logged_in_client.post(
        url,
        {"step": "apply", "text": header, "name": "empty.csv", "confirm_removals": "on"},
        follow=True,
    ).content.decode()
    assert "0 added, 0 changed, 1 removed; the book now holds 0 offers" in done
    assert book.prices.count() == 0


def test_price_book_one_offer_added_changed_and_removed_in_the_page(
    logged_in_client, book, prices_visible
):
    from planner.audit.models import AuditEvent

    add = reverse("inventory:price-add", args=["web-2026"])
    bad = logged_in_client.post(add, {"part": "NO-SUCH", "price": "5", "currency": "USD"})
    assert bad.status_code == 200 and "No part with slug" in bad.content.decode()
    fields = {"grade": "secondary", "condition": "new", "seller": "Shop", "as_of": "2026-11"}
    done = logged_in_client.post(
        add, {**fields, "part": "PB-2", "price": "1234.5", "currency": "usd"}, follow=True
    )
    assert "Added the offer for PB-2: 1,234.50 USD." in done.content.decode()
    offer = book.prices.get(part_slug="PB-2")
    edit = reverse("inventory:price-edit", args=["web-2026", offer.pk])
    assert 'value="PB-2"' in logged_in_client.get(edit).content.decode()
    logged_in_client.post(edit, {**fields, "part": "PB-2", "price": "1300", "currency": "USD"})
    offer.refresh_from_db()
    assert offer.price == Decimal("1300.00")
    changed = AuditEvent.objects.filter(object_ref=str(offer.pk)).order_by("pk").last()
    assert changed.details["fields"]["price"] == {"old": "1234.50", "new": "1300.00"}
    remove = reverse("inventory:price-remove", args=["web-2026", offer.pk])
    logged_in_client.post(remove)
    assert not book.prices.filter(pk=offer.pk).exists()
    removed = AuditEvent.objects.filter(object_ref=str(offer.pk)).order_by("pk").last()
    assert removed.details["change"] == "deleted"
    assert removed.details["fields"]["price"]["old"] == "1300.00"
