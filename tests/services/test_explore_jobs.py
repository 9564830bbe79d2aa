"""The ``explore`` job (issue 39): requirements checked naming the field, the budget's price
book read only by those who may see its prices, every candidate claimed once on the job row,
the front on the job page, a candidate opened as a design, the API and the command line."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from inventory.models import PriceBook
from planner.audit.models import AuditActionChoices, AuditEvent
from planner.designs.models import Design
from planner.teams.models import Team
from simulation.jobs import explore
from simulation.jobs.fanout import parts_state
from simulation.jobs.lifecycle import claim
from simulation.models import Job
from simulation.services import job_enqueue, job_execute

#: Two candidates (rail-optimized and Clos, one switch, 1:1): a few seconds to evaluate.
SMALL = {
    "name": "256 H100 test",
    "gpus": 256,
    "servers": ["DGX-H100"],
    "switches": ["QM9700"],
    "tiers": [2],
    "oversubscription": {"min": 1, "max": 1},
}


@pytest.fixture
def sent(monkeypatch):
    """Job tasks and candidate subtasks are recorded instead of sent."""
    from simulation.tasks import run_job

    calls = {"jobs": [], "parts": []}
    monkeypatch.setattr(run_job, "apply_async", lambda *a, **k: calls["jobs"].append((a, k)))
    monkeypatch.setattr(explore, "send_parts", lambda *args: calls["parts"].append(args))
    return calls


def _enqueue(user, document):
    return job_enqueue(owner=user, kind="explore", parameters=document)


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"servers": ["DGX-H100"]}, "gpus"),
        ({**SMALL, "colour": "red"}, "colour"),
        ({**SMALL, "servers": ["NO-SUCH-SERVER"]}, "servers[0]"),
        ({**SMALL, "limits": {"power_kw": -5}}, "limits.power_kw"),
        # nothing survives the enumeration's pruning: refused before the job, not on a worker
        ({"gpus": 1_048_576, "servers": ["DGX-H100"], "tiers": [3]}, "oversubscription"),
        ({**SMALL, "switches": ["SN5600"], "transports": ["infiniband"]}, "transports"),
    ],
)
def test_requirements_are_refused_naming_the_field(user, sent, document, field):
    with pytest.raises(ValidationError) as caught:
        _enqueue(user, document)
    problems = caught.value.message_dict["parameters"]
    assert any(p.startswith(f"{field}: ") for p in problems), problems
    assert not Job.objects.exists()


def test_a_budget_reads_only_a_price_book_whose_prices_the_owner_may_see(
    user, other_user, sent, seed_catalog
):
    budget = {"amount": 1e8, "currency": "USD", "price_book": "reseller-list-2026"}
    document = {**SMALL, "limits": {"budget": budget}}
    with pytest.raises(ValidationError) as caught:  # no price right
        _enqueue(user, document)
    text = caught.value.message_dict["parameters"][0]
    assert text.startswith("limits.budget.price_book: you may not see the prices of")
    team = Team.objects.create(name="Other", slug="other")
    PriceBook.objects.create(slug="their-deal", name="Their deal", team=team)
    secret = {**budget, "price_book": "their-deal"}
    with pytest.raises(ValidationError) as caught:  # another team's book: as if none
        _enqueue(user, {**SMALL, "limits": {"budget": secret}})
    assert caught.value.message_dict["parameters"] == [
        "limits.budget.price_book: no price book “their-deal” in the catalog"
    ]
    assert not Job.objects.exists()


def test_an_exploration_evaluates_every_candidate_once_and_gives_the_front(prices_visible, sent):
    user = prices_visible
    job = _enqueue(user, SMALL)
    assert job.design_revision is None and job.parameters["gpus"] == 256
    assert job.parameters["tiers"] == [2]  # the canonical document: defaults written out
    # a subtask before the job runs does nothing; once claimed, each candidate runs once
    assert not explore.explore_candidate_run(job_id=job.pk, attempt=1, index=0, worker="w2")
    claim(job.pk, "w1")
    assert explore.explore_candidate_run(job_id=job.pk, attempt=1, index=0, worker="w2")
    assert not explore.explore_candidate_run(job_id=job.pk, attempt=1, index=0, worker="w3")
    first = parts_state(job.pk, "explore")["done"]["0"]
    Job.objects.filter(pk=job.pk).update(status="queued")  # the worker was lost: queued again
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert sent["parts"][-1][0] == explore.EXPLORE_CANDIDATE
    assert sent["parts"][-1][3] == [1]  # candidate 0 was done by the first attempt
    result = job.result
    assert "explore" not in result  # the claims are gone
    assert result["counts"]["enumerated"] == 2 == len(result["candidates"])
    assert [c["index"] for c in result["candidates"]] == [0, 1]
    assert {c["axes"]["topology"] for c in result["candidates"]} == {"rail-optimized", "clos"}
    assert result["candidates"][0]["metrics"] == first["metrics"]
    assert result["front"] and all(c["why"] for c in result["candidates"])
    cost = result["candidates"][0]["metrics"]["cost"]
    assert cost > 0 and result["candidates"][0]["metrics"]["currency"] == "USD"  # seed book
    assert job.outcome.startswith("2 candidates: ")
    assert "front of" in job.outcome and "USD" in job.outcome


@pytest.fixture
def explored(prices_visible, sent):
    job = _enqueue(prices_visible, SMALL)
    job_execute(job_id=job.pk, worker="w1")
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def test_the_job_page_draws_the_front_and_lists_every_candidate(client, explored):
    client.force_login(explored.owner)
    url = reverse("simulation:job-detail", args=[explored.pk])
    html = client.get(url).content.decode()
    assert 'data-testid="explore-chart"' in html and "Cost (million USD)" in html
    assert "Collective time (ms)" in html
    assert html.count('data-testid="explore-point"') == 2
    assert html.count('data-status="front"') >= 2  # a point and a row at least
    assert 'data-testid="explore-candidates"' in html and "Open as design" in html
    assert "on the front: no feasible candidate" in html
    # other axes, picked by the user; an unknown one falls back to the default
    power = client.get(url, {"x": "power_w", "y": "bisection_gbps"}).content.decode()
    assert "Power (kW)" in power and "Bisection bandwidth (Tb/s)" in power
    odd = client.get(url, {"x": "<script>", "y": "cost"}).content.decode()
    assert "<script>" not in odd.split('data-testid="explore-result"')[1]
    assert "Cost (million USD)" in odd
    candidate = client.get(reverse("explore:candidate", args=[explored.pk, 1]))
    assert candidate.status_code == 200
    page = candidate.content.decode()
    assert 'data-testid="candidate-spec"' in page and "DGX-H100" in page
    missing = client.get(reverse("explore:candidate", args=[explored.pk, 7]), follow=True)
    assert "No candidate 7: the exploration has 2 (0 to 1)." in missing.content.decode()


def test_open_as_design_creates_the_owners_design_audited(client, explored, other_user):
    client.force_login(explored.owner)
    response = client.post(reverse("explore:candidate-open", args=[explored.pk, 1]))
    design = Design.objects.get()
    assert response.status_code == 302 and response["Location"] == design.get_absolute_url()
    assert design.owner == explored.owner and design.sharing == "private"
    revision = design.revisions.get()
    candidate = explored.result["candidates"][1]
    assert revision.summary["gpus"] == 256
    assert candidate["key"] in revision.message
    assert (
        AuditEvent.objects.filter(
            design_ref=design.pk, action=AuditActionChoices.DESIGN_CREATED
        ).count()
        == 1
    )
    # another user sees no such job, and opens nothing
    client.force_login(other_user)
    assert client.post(reverse("explore:candidate-open", args=[explored.pk, 1])).status_code == 404
    assert Design.objects.count() == 1


def test_the_api_starts_reads_and_opens_explorations(api_client, user, explored, sent):
    api_client.force_authenticate(explored.owner)
    base = "/api/simulation/explorations/"
    text = "gpus: 256\nservers: [DGX-H100]\nswitches: [QM9700]\ntiers: [2]\n"
    started = api_client.post(base, text, content_type="application/yaml")
    assert started.status_code == 201, started.content
    assert started.json()["kind"] == "explore" and started.json()["parameters"]["gpus"] == 256
    bad = api_client.post(base, {"requirements": {"gpus": 256, "tiers": [7]}}, format="json")
    assert bad.status_code == 400 and bad.json()["requirements"][0].startswith("tiers")
    broken = api_client.post(base, "gpus: [1, 2\n", content_type="application/yaml")
    assert broken.status_code == 400 and "line" in json.dumps(broken.json())
    front = api_client.get(f"{base}{explored.pk}/front/")
    assert front.status_code == 200
    rows = front.json()["rows"]
    assert rows and all(row["front"] for row in rows) and rows[0]["currency"] == "USD"
    as_csv = api_client.get(f"{base}{explored.pk}/front/", {"as": "csv", "all": "1"})
    assert as_csv["Content-Type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(as_csv.content.decode())))
    assert [row["index"] for row in table] == ["0", "1"]
    assert api_client.get(f"{base}{started.json()['id']}/front/").status_code == 409
    assert api_client.get(f"{base}{explored.pk}/front/", {"as": "xls"}).json()["as"]
    opened = api_client.post(f"{base}{explored.pk}/candidates/0/design/")
    assert opened.status_code == 201, opened.content
    assert Design.objects.get(pk=opened.json()["design"]).owner == explored.owner
    assert api_client.post(f"{base}{explored.pk}/candidates/9/design/").status_code == 400
    assert "gpus" in api_client.get(f"{base}requirements-schema/").json()["properties"]
    api_client.force_authenticate(user)  # alice, not the owner... unless she is
    if user != explored.owner:
        assert api_client.get(f"{base}{explored.pk}/").status_code == 404


def test_the_wizard_starts_an_exploration_or_says_what_to_fix(logged_in_client, user, sent):
    url = reverse("explore:wizard")
    page = logged_in_client.get(url).content.decode()
    assert 'data-testid="explore-wizard"' in page and "DGX-H100" in page
    assert 'href="/explore/"' in page  # the navigation's entry
    refused = logged_in_client.post(
        url, {"source": "form", "gpus": "256", "servers": ["DGX-H100"], "power_kw": "-3"}
    )
    assert refused.status_code == 400
    assert not Job.objects.exists()
    fields = {"source": "form", "gpus": "256", "servers": ["DGX-H100"], "switches": ["QM9700"]}
    fields |= {"tiers": ["2"], "message_bytes": "268435456, 1e9", "routing": "ecmp"}
    started = logged_in_client.post(url, fields)
    job = Job.objects.get()
    assert started.status_code == 302 and str(job.pk) in started["Location"]
    assert job.parameters["workload"]["message_bytes"] == [268435456, 1000000000]
    assert job.parameters["workload"]["routing"] == "ecmp"
    text = logged_in_client.post(url, {"source": "text", "requirements_text": "gpus: 0\n"})
    assert text.status_code == 400 and "gpus: " in text.content.decode()


def test_the_command_line_prints_the_front(tmp_path, seed_catalog):
    path = tmp_path / "needs.yaml"
    path.write_text(json.dumps(SMALL))
    out = io.StringIO()
    call_command("fabric", "explore", str(path), stdout=out)
    body = json.loads(out.getvalue())
    assert body["counts"]["enumerated"] == 2 and body["front"]
    assert all(row["front"] and row["cost"] > 0 for row in body["front"])
    target = tmp_path / "front.csv"
    call_command("fabric", "explore", str(path), "--format", "csv", "--out", str(target))
    rows = list(csv.DictReader(target.open()))
    assert len(rows) == len(body["front"]) and rows[0]["key"] == body["front"][0]["key"]
