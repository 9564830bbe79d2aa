"""The price book upload through the API and the page: dry run, the confirmation removing many
offers needs (a 400 naming ``confirm_removals``), and who may do it (issue 37, item 3)."""

from rest_framework.test import APIClient

from inventory.models import Price
from inventory.services import SEED_PRICE_BOOK, price_book_export_csv
from planner.audit.models import AuditEvent
from tests.api import test_catalog_governance as governance
from tests.api.test_catalog_governance import api, page

people = governance.people  # the fixture: plain, team and catalog-editor users

URL = f"/api/inventory/price-books/{SEED_PRICE_BOOK}/upload/"


def _offers() -> list:
    return list(Price.objects.filter(book__slug=SEED_PRICE_BOOK).values_list("pk", "price"))


def test_dry_run_says_what_a_header_only_file_removes_and_writes_nothing(people):
    client: APIClient = api(people["ed"])
    before = _offers()
    header = price_book_export_csv(Price.objects.first().book).splitlines()[0] + "\n"
    preview = client.post(URL, {"text": header, "name": "e.csv", "dry_run": True}, format="json")
    assert preview.status_code == 200
    body = preview.json()
    assert len(body["removed"]) == body["offers_before"] == len(before)
    assert body["added"] == [] and body["offers_after"] == 0 and body["removes_many"]
    refused = client.post(URL, {"text": header, "name": "e.csv"}, format="json")
    assert refused.status_code == 400
    assert "confirm_removals" in refused.json()
    assert len(refused.json()["preview"]["removed"]) == len(before)
    assert _offers() == before
    applied = client.post(
        URL, {"text": header, "name": "e.csv", "confirm_removals": True}, format="json"
    )
    assert applied.status_code == 201 and applied.json()["offers"] == 0
    assert _offers() == []
    event = AuditEvent.objects.get(object_type="price-book", actor=people["ed"])
    assert event.details["removed"] == len(before)


def test_an_unreadable_file_is_a_400_naming_the_row(people):
    client = api(people["stu"])
    bad = client.post(URL, {"text": "part,price\nNO-SUCH,1\n", "dry_run": True}, format="json")
    assert bad.status_code == 400
    assert bad.json()["text"] == ["prices.csv row 2, field part: unknown part 'NO-SUCH'"]
    missing = client.post(URL, {"dry_run": True}, format="json")
    assert missing.status_code == 400 and "text" in missing.json()


def test_only_those_who_may_change_the_book_upload(people):
    before = _offers()
    text = price_book_export_csv(Price.objects.first().book)
    for who in ("nora", "vic", "eve", "olga"):  # olga owns a team book, not the public one
        response = api(people[who]).post(URL, {"text": text, "dry_run": True}, format="json")
        assert response.status_code == 403, who
    # another team's book is invisible: 404, not 403
    alpha = "/api/inventory/price-books/alpha-deal/upload/"
    assert api(people["bea"]).post(alpha, {"text": text}, format="json").status_code == 404
    assert api(people["olga"]).post(
        alpha, {"text": "part,price\nQM9700,1\n", "dry_run": True}, format="json"
    ).json()["changed"][0]["fields"]["price"] == {"old": "1234.00", "new": "1.00"}
    assert _offers() == before


def test_the_page_refuses_offer_edits_to_those_without_the_right(people):
    offer = Price.objects.filter(book__slug=SEED_PRICE_BOOK).first()
    base = f"/catalog/price-books/{SEED_PRICE_BOOK}/offers"
    vic = page(people["vic"])  # reads the public book, may not change it
    for url in (f"{base}/new/", f"{base}/{offer.pk}/", f"{base}/{offer.pk}/remove/"):
        assert vic.post(url, {"part": "QM9700", "price": "1"}).status_code == 403, url
    assert vic.get(f"{base}/new/").status_code == 403
    book = vic.get(f"/catalog/price-books/{SEED_PRICE_BOOK}/").content.decode()
    assert "Add an offer" not in book and f"{offer.pk}/remove/" not in book
    # an offer of another book is not found through this one
    alpha_offer = Price.objects.get(book__slug="alpha-deal")
    assert page(people["ed"]).get(f"{base}/{alpha_offer.pk}/").status_code == 404
    assert Price.objects.filter(pk=offer.pk).exists()
