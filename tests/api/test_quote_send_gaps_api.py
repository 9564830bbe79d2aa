"""Sending a quote with unpriced lines through the API and the page: a 400 naming
``confirm_unpriced`` without the confirmation; the page says how many lines are unpriced next
to the Send button, and after sending who confirmed it (issue 37, item 2)."""

from __future__ import annotations

from planner.quotes.models import Quote
from tests.api.test_quotes_api import _base, _create, setting  # noqa: F401 (fixture)


def test_api_send_without_confirmation_is_a_400_naming_the_field(setting, api_client):  # noqa: F811
    design, _ = setting
    quote = _create(api_client, design).json()
    url = f"{_base(design)}{quote['id']}/send/"
    refused = api_client.post(url, {}, format="json")
    assert refused.status_code == 400
    assert "unpriced" in refused.json()["confirm_unpriced"][0]
    assert Quote.objects.get(pk=quote["id"]).status == "draft"
    sent = api_client.post(url, {"confirm_unpriced": True}, format="json")
    assert sent.status_code == 200 and sent.json()["status"] == "sent"
    gaps = Quote.objects.get(pk=quote["id"]).snapshot["gaps"]
    assert gaps["unpriced_confirmed"] and gaps["by"] == "alice"


def test_page_says_the_gaps_next_to_send_and_who_confirmed(setting, api_client, client, user):  # noqa: F811
    design, _ = setting
    quote = Quote.objects.get(pk=_create(api_client, design).json()["id"])
    client.force_login(user)
    page = client.get(quote.get_absolute_url()).content.decode()
    form = page[page.index('data-testid="send-gaps"') : page.index('data-testid="quote-send"')]
    assert "lines unpriced (the total is partial" in form
    assert 'name="confirm_unpriced"' in form
    assert "Total of priced lines (partial)" in page
    refused = client.post(f"{quote.get_absolute_url()}send/")
    assert refused.status_code == 400 and "confirm_unpriced" in refused.content.decode()
    assert Quote.objects.get(pk=quote.pk).status == "draft"
    client.post(f"{quote.get_absolute_url()}send/", {"confirm_unpriced": "on"})
    page = client.get(quote.get_absolute_url()).content.decode()
    note = page[page.index('data-testid="quote-sent-gaps"') :]
    assert "lines unpriced (the total is partial); confirmed by alice on" in note
