"""Query parameters are checked, never silently ignored: paging and filters name the
parameter at fault in a 400."""

import pytest

DESIGNS = "/api/planner/designs/"


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"page_size": "Rw"}, "page_size"),
        ({"page_size": "0"}, "page_size"),
        ({"page_size": "-3"}, "page_size"),
        ({"page": "abc"}, "page"),
        ({"page": "0"}, "page"),
        ({"sharing": ""}, "sharing"),
    ],
)
def test_a_bad_or_empty_list_parameter_is_a_400_naming_it(api_client, params, name):
    response = api_client.get(DESIGNS, params)
    assert response.status_code == 400, response.content
    assert name in response.json()


def test_good_list_parameters_still_work(api_client):
    assert api_client.get(DESIGNS, {"page_size": "5000", "page": "1"}).status_code == 200
    assert api_client.get(DESIGNS, {"page": "last"}).status_code == 200
    assert api_client.get(DESIGNS, {"sharing": "private"}).status_code == 200


def test_an_empty_catalog_filter_is_a_400(api_client):
    response = api_client.get("/api/inventory/fibers/", {"reach_min_m": ""})
    assert response.status_code == 400
    assert "reach_min_m" in response.json()


@pytest.mark.parametrize(
    ("url", "params", "name"),
    [
        ("/api/planner/audit/", {"design": "1.0"}, "design"),  # an id is a whole number
        ("/api/planner/audit/", {"design": "1."}, "design"),
        (
            "/api/planner/link-options/",
            {"a": "DGX-H100", "b": "QM9700", "length_m": ""},
            "length_m",
        ),
        (
            "/api/planner/link-options/",
            {"a": "DGX-H100", "b": "QM9700", "speed_gbps": ""},
            "speed_gbps",
        ),
    ],
)
def test_a_number_parameter_not_as_documented_is_a_400_naming_it(
    api_client, seed_catalog, url, params, name
):
    response = api_client.get(url, params)
    assert response.status_code == 400, response.content
    assert name in response.json()


def test_whole_number_and_given_numbers_still_work(api_client, seed_catalog):
    assert api_client.get("/api/planner/audit/", {"design": "12"}).status_code == 200
    link = {"a": "DGX-H100", "b": "QM9700", "length_m": "3.5", "speed_gbps": "400"}
    assert api_client.get("/api/planner/link-options/", link).status_code == 200


def test_an_unknown_parameter_is_a_400_naming_it_not_every_row(api_client, user, seed_catalog):
    """The issue's case: ``book`` is not a filter of prices (``book__slug`` is)."""
    from tests.conftest import grant_catalog_editor

    user.is_staff = True  # staff read every price book
    user.save()
    grant_catalog_editor(user)
    response = api_client.get("/api/inventory/prices/", {"book": "team-a-book"})
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"book"}
    assert "book__slug" in response.json()["book"][0]  # says what it does accept
    known = api_client.get("/api/inventory/prices/", {"book__slug": "no-such-book"})
    assert known.status_code == 200 and known.json()["count"] == 0


def test_every_api_operation_refuses_an_unknown_parameter(api_client, user, seed_catalog):
    """One mechanism for every operation the schema lists, whatever the view's kind: the
    request is refused before the view looks up its object or reads its body."""
    import re

    from tests.conftest import grant_catalog_editor

    grant_catalog_editor(user)
    schema = api_client.get("/api/schema/?format=json").json()
    operations = 0
    for path, methods in schema["paths"].items():
        url = re.sub(r"\{[^}]+\}", "1", path)
        for method in methods:
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            response = getattr(api_client, method)(f"{url}?no_such_parameter=1")
            assert response.status_code == 400, (method, path, response.status_code)
            assert set(response.data) == {"no_such_parameter"}, (method, path)
            operations += 1
    assert operations > 40


def test_the_jobs_design_filter_is_documented_and_checked(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    listed = schema["paths"]["/api/simulation/jobs/"]["get"]["parameters"]
    assert "design" in {parameter["name"] for parameter in listed}
    assert api_client.get("/api/simulation/jobs/", {"design": "12"}).status_code == 200
    response = api_client.get("/api/simulation/jobs/", {"design": "twelve"})
    assert response.status_code == 400 and "design" in response.json()
