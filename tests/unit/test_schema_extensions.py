"""drf-spectacular's extensions are resolved once, under a lock, before a process's first schema
work: resolved lazily by the library, two threads of the live server resolving ``dj_rest_auth``'s
extension at once raced and gave a 500 (the first API requests of a fresh browser test)."""

import pytest
from drf_spectacular.plumbing import OpenApiGeneratorExtension

from planner.project.api import parameters

UNLOADED = {
    "RestAuthLoginView": "dj_rest_auth.views.LoginView",  # not installed here
    "TokenScheme": "rest_framework.authentication.TokenAuthentication",
}


def _extensions():
    pending, found = [OpenApiGeneratorExtension], {}
    while pending:
        extension = pending.pop()
        pending.extend(extension.__subclasses__())
        found[extension.__name__] = extension
    return found


@pytest.fixture
def unloaded(monkeypatch):
    """Two extensions as a fresh process has them (their targets still names), and the
    process's one-time load not yet done."""
    import drf_spectacular.openapi  # noqa: F401  (registers the contrib extensions)

    extensions = _extensions()
    for name, target in UNLOADED.items():
        monkeypatch.setattr(extensions[name], "target_class", target)
    monkeypatch.setattr(parameters, "_extensions_loaded", False)
    return extensions


def test_loading_resolves_an_absent_package_to_none_and_a_present_one_to_its_class(unloaded):
    parameters.load_schema_extensions()
    assert unloaded["RestAuthLoginView"].target_class is None
    assert unloaded["TokenScheme"].target_class.__name__ == "TokenAuthentication"


@pytest.mark.django_db
def test_the_first_api_request_with_a_query_resolves_them_before_any_schema_work(
    unloaded, api_client
):
    response = api_client.get("/api/inventory/switches/", {"search": "SN5600"})
    assert response.status_code == 200
    assert parameters._extensions_loaded  # once, under the lock, not lazily by the library
    assert not any(isinstance(e.__dict__.get("target_class"), str) for e in _extensions().values())
