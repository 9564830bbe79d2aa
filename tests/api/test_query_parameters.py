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
