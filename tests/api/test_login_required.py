"""Every page and API endpoint requires login, except login, static files and /healthz.

The URL list is walked from the resolver, so a new view cannot slip through.
"""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

PUBLIC = {"login", "healthz"}


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


PLACEHOLDERS = {"int": "1", "uuid": "00000000-0000-4000-8000-000000000001"}


def _concrete(route: str) -> str:
    """Turn a route or regex into a URL with placeholder values for its parameters."""
    route = route.replace("^", "").replace("$", "").replace("\\Z", "")
    route = re.sub(r"\\.\(\?P<format>[^)]*\)", ".json", route)
    route = re.sub(r"\(\?P<\w+>[^)]*\)", "1", route)
    route = route.replace("<drf_format_suffix:format>", ".json")
    route = re.sub(r"<(?:(\w+):)?(\w+)>", lambda m: PLACEHOLDERS.get(m.group(1), "x"), route)
    route = route.replace("\\.", ".").replace("?", "")
    return "/" + route


ALL_URLS = sorted(
    {(_concrete(route), entry) for route, entry in _walk(get_resolver().url_patterns)},
    key=lambda item: item[0],
)


def test_walk_finds_the_apps_urls():
    urls = [url for url, _ in ALL_URLS]
    assert "/healthz" in urls
    assert any(url.startswith("/api/") for url in urls)
    assert any(url.startswith("/catalog/") for url in urls)
    assert len(urls) > 20


@pytest.mark.parametrize(("url", "entry"), ALL_URLS, ids=[url for url, _ in ALL_URLS])
def test_anonymous_request_is_refused(client, url, entry):
    view = entry.callback
    view_class = getattr(view, "cls", None) or getattr(view, "view_class", None)
    is_api = isinstance(view_class, type) and issubclass(view_class, APIView)
    if entry.name in PUBLIC:
        return
    response = client.get(url)
    if url.startswith("/admin/"):
        # The admin has its own login: anonymous users never see admin content.
        assert response.status_code in {302, 404}, url
        if response.status_code == 302:
            assert "/login/" in response["Location"]
        return
    if is_api:
        assert response.status_code in {401, 403}, (url, response.status_code)
    else:
        assert response.status_code == 302, (url, response.status_code)
        assert response["Location"].startswith("/login/"), response["Location"]


def test_public_urls_answer_anonymously(client):
    assert client.get("/login/").status_code == 200
    assert client.get("/healthz").status_code in {200, 503}
    assert client.get("/static/app/app.css").status_code == 200


def test_token_authenticates_api(client, user):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user)
    response = client.get("/api/simulation/jobs/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 200
    assert client.get("/api/simulation/jobs/", HTTP_AUTHORIZATION="Token wrong").status_code == 401


def test_anonymous_api_gets_401_with_challenge(client):
    response = client.get("/api/simulation/jobs/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
