"""The MkDocs site: it builds with --strict (any warning fails: a broken link, an anchor that
is not there, a page left out of the nav), and the app serves the built site at /docs/ to
signed-in users, under the app's Content-Security-Policy."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The bench modules ``make bench`` runs (tests/unit/test_docs.py checks the docs page lists them).
BENCH_FILES = re.findall(
    r"-m (tests\.bench\w*)", (ROOT / "Makefile").read_text().split("\nbench:")[1].split("\n\n")[0]
)


def _text(response) -> str:
    return response.content.decode()


def build_site(site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` into ``site`` (about 1 s), without bench results."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            "docs/mkdocs.yml",
            "--site-dir",
            str(site),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "FABRIC_BENCH_DIR": str(site.parent / "no-bench")},
        timeout=120,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The site built into a folder of its own, and how the build went."""
    site = tmp_path_factory.mktemp("docs-site")
    return site, build_site(site)


@pytest.fixture
def site(built, settings):
    settings.DOCS_SITE_DIR = built[0]
    return built[0]


def test_the_site_builds_strict_and_clean(built):
    site, result = built
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    for page in (
        "index.html",
        "walkthrough/index.html",
        "glossary/index.html",
        "guide/architect-validate/index.html",
        "guide/sales/index.html",
        "guide/installer/index.html",
        "reference/spec/index.html",
        "reference/api-operations/index.html",
        "architecture/index.html",
        "benchmarks/index.html",
        "changelog/index.html",
    ):
        assert (site / page).is_file(), page
    spec = (site / "reference/spec/index.html").read_text()
    assert "networks.storage.leaf" in spec  # generated from the JSON Schema
    # The theme's script stops at an id that starts with a digit (an invalid CSS selector),
    # which breaks search and the keyboard shortcuts on that page: headings must not.
    digit_ids = [
        str(page.relative_to(site))
        for page in site.rglob("*.html")
        if page.name != "404.html" and re.search(r'id="[0-9]', page.read_text())
    ]
    assert not digit_ids, digit_ids
    bench = (site / "benchmarks/index.html").read_text()
    # no bench results in this build
    assert f"Missing here ({len(BENCH_FILES)} of {len(BENCH_FILES)})" in bench


def test_docs_answers_the_site_to_a_signed_in_user(client, user, site):
    client.force_login(user)
    home = client.get("/docs/")
    assert home.status_code == 200
    text = _text(home)
    assert "<title>Fabric Planner</title>" in text and "10-minute walkthrough" in text
    # No inline script: every <script> has a src (the app's CSP allows scripts from itself).
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text)
    assert "script-src 'self'" in home["Content-Security-Policy"]

    glossary = client.get("/docs/glossary/")
    assert glossary.status_code == 200 and "Scalable unit" in _text(glossary)
    assert client.get("/docs/glossary").headers["Location"] == "/docs/glossary/"
    script = client.get("/docs/js/site-config.js")
    assert script.status_code == 200 and "javascript" in script["Content-Type"]
    assert "base_url" in _text(script)
    image = client.get("/docs/img/01-wizard.png")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"


def test_docs_pages_that_do_not_exist_are_404_with_a_way_back(client, user, site):
    client.force_login(user)
    assert client.get("/docs/no-such-page/").status_code == 404
    for url in ("/docs/../../manage.py", "/docs/%2e%2e/%2e%2e/manage.py"):
        response = client.get(url)  # outside the site: refused (Django's 400) or not found
        assert response.status_code in (400, 404), url
        assert "DJANGO_SETTINGS_MODULE" not in _text(response)
    page = client.get("/docs/no-such-page/").content.decode()
    assert "has no page" in page and 'href="/docs/"' in page


def test_docs_need_login_and_only_read(client, user, site):
    response = client.get("/docs/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    client.force_login(user)
    assert client.post("/docs/").status_code == 405


def test_docs_before_the_first_build_say_how_to_build(client, user, settings, tmp_path):
    settings.DOCS_SITE_DIR = tmp_path / "never-built"
    client.force_login(user)
    response = client.get("/docs/")
    assert response.status_code == 404
    assert "make docs" in response.content.decode()


def test_the_header_links_to_the_docs(client, user):
    client.force_login(user)
    assert 'href="/docs/">Docs</a>' in client.get("/help/").content.decode()
