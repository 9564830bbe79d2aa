"""Schemathesis against our own OpenAPI schema, in process, on the WSGI app.

Every operation of ``/api/schema/`` is called with generated requests (valid and invalid, a
bounded number per operation, derandomized so that a run is repeatable) by a user with an API
token who owns a design; two requests in three name objects that exist in their path, so that
detail, edit and delete operations reach their serializers and services too.

Checks: all that Schemathesis registers (``--checks all``): no 5xx, documented status codes,
content types and headers, bodies matching the documented schema, schema-violating requests
rejected, schema-valid requests accepted, authentication not ignored, unsupported methods
refused, and the rest. The one deliberate exception (a schema-valid request refused for a
domain rule, with a 400 naming the field) is explained in ``tests/api/fuzz_policy.py``. The
user is a catalog editor with the price right, and owns a design, a job and a quote, so that
design-scoped, quote and catalog-write operations are exercised too.

Job submission: these requests run inside the test's transaction, so the job's task (sent on
commit) is never sent and fuzzing needs no broker and cannot hang; the submission path up to
the broker (parameters, permissions, the per-user cap) is fuzzed like any other operation.
tests/services/test_jobs.py and tests/integration cover the broker itself.

Coverage: the walk runs with the coverage tracer paused (``no_cover``). It proves a property of
every operation (no 5xx, answers as documented), not that lines run: each view, serializer
and service it calls has its own tests, which the coverage figure counts, and the tracer made
the walk two to three times slower (88 s of the suite's time on two cores).
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path

import pytest
import schemathesis
import yaml
from django.core.handlers.wsgi import WSGIHandler
from django.db import transaction
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import ignored_auth

from planner.domain.presets import EXAMPLES_DIR
from planner.domain.spec import load_spec_text
from tests.api.fuzz_policy import CHECKS

EXAMPLES_PER_OPERATION = int(os.environ.get("FUZZ_EXAMPLES_PER_OPERATION", "10"))
#: Where ``make bench`` (tests/bench_security.py) asks for the run's counts, if anywhere.
STATS_FILE = os.environ.get("BENCH_STATS_FILE", "")
SMALL_SPEC = {
    **load_spec_text((EXAMPLES_DIR / "h100-superpod-4su.yaml").read_text()),
    "servers": 8,
}


@pytest.fixture
def fuzz_world(seed_catalog, user):
    """A user with an API token, a design of theirs, a job, and real ids per path parameter."""
    from rest_framework.authtoken.models import Token

    from inventory.api.urls import ROUTES
    from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook
    from planner.designs.services import design_create
    from planner.quotes.services import quote_create
    from planner.teams.models import Team, TeamMembership
    from simulation.models import Job
    from tests.conftest import grant_catalog_editor

    user = grant_catalog_editor(user)  # a catalog editor, so that fuzzing reaches the writes
    token = Token.objects.create(user=user)
    team = Team.objects.create(name="Fuzz sales", slug="fuzz-sales")
    TeamMembership.objects.create(team=team, user=user, can_view_prices=True)
    design = design_create(owner=user, spec_document=SMALL_SPEC)
    job = Job.objects.create(owner=user, kind="diagnostics", parameters={"echo": "fuzz"})
    quote = quote_create(
        design=design, actor=user, customer="Fuzz Corp", price_book=PriceBook.objects.first()
    )
    known = {
        "design_pk": design.pk,
        "number": design.latest_revision.number,
        "id": design.pk,
        "/api/simulation/jobs/{id}": str(job.pk),
        "/api/planner/designs/{design_pk}/quotes/{pk}": quote.pk,
        "/api/inventory/prices/{id}": Price.objects.values_list("pk", flat=True).first(),
        "/api/inventory/manufacturers/{slug}": Manufacturer.objects.first().slug,
        "/api/inventory/price-books/{slug}": PriceBook.objects.first().slug,
    }
    for category, route in ROUTES.items():
        known[f"/api/inventory/{route}/{{slug}}"] = CATEGORY_MODELS[category].objects.first().slug
    return {"headers": {"Authorization": f"Token {token.key}"}, "known": known}


@pytest.fixture
def repeatable_generation(monkeypatch):
    """Hypothesis draws some strings and numbers from the literals of every local module the
    process has imported (its "local constants"), so the requests generated depended on which
    tests had run before in the same pytest worker. The walk draws from Hypothesis's own
    constants only: with ``derandomize`` the same requests on every machine and in any order."""
    from hypothesis.internal.conjecture import providers

    empty = providers.Constants(
        integers=providers.SortedSet(),
        floats=providers.SortedSet(key=providers.float_to_int),
        bytes=providers.SortedSet(),
        strings=providers.SortedSet(),
    )
    monkeypatch.setattr(providers, "_get_local_constants", lambda: empty)


@pytest.fixture
def wsgi_app():
    """The project's WSGI app, kept on the test's database connection (as Django's test client
    does: a request would otherwise close the connection that holds the test's transaction)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield WSGIHandler()  # what get_wsgi_application() returns, without setting Django up again
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


class _CountingApp:
    """A WSGI app that counts the requests it answers (to see whether a check sent probes)."""

    def __init__(self, app):
        self.app, self.requests = app, 0

    def __call__(self, environ, start_response):
        self.requests += 1
        return self.app(environ, start_response)


@pytest.fixture
def counting_app(wsgi_app):
    return _CountingApp(wsgi_app)


@pytest.fixture
def api_schema(fuzz_world, counting_app):
    return schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", counting_app, headers=fuzz_world["headers"]
    )


def _known_path_parameters(operation, known: dict) -> dict:
    """Real ids for an operation's path parameters (by path prefix, else by name)."""
    path, real = operation.path, {}
    for name in re.findall(r"\{(\w+)\}", path):
        prefix = path[: path.index(f"{{{name}}}") + len(name) + 2]
        for key in (prefix, name):
            if key in known:
                real[name] = known[key]
                break
    return real


def _strategy(operation, known: dict):
    """Valid requests on any path, valid and invalid requests on objects that exist."""
    real = _known_path_parameters(operation, known)
    return st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.POSITIVE, path_parameters=real or None),
        operation.as_strategy(GenerationMode.NEGATIVE, path_parameters=real or None),
    )


def _write_stats(*, operations: int, statuses: dict, failures: dict) -> None:
    if not STATS_FILE:
        return
    stats = {
        "operations": operations,
        "examples_per_operation": EXAMPLES_PER_OPERATION,
        "checks": [check.__name__ for check in CHECKS],
        "requests": sum(statuses.values()),
        "statuses": {str(code): count for code, count in sorted(statuses.items())},
        "server_errors": sum(count for code, count in statuses.items() if code >= 500),
        "failing_operations": sorted(failures),
    }
    Path(STATS_FILE).write_text(json.dumps(stats, indent=2))


@pytest.mark.no_cover  # a walk over every operation: see the module's note on coverage
def test_api_operations_answer_as_documented(
    api_schema, fuzz_world, counting_app, repeatable_generation
):
    """Every operation, a bounded number of generated requests each; all failures reported.

    Authentication is confirmed once per operation, as Schemathesis's own runner does
    ("enforcement is a property of the operation"): ``ignored_auth`` re-sends an accepted
    request without and with invalid credentials until it has done so once for the operation
    and both were refused; later examples skip only those probes.
    """
    failures, operations, statuses = {}, 0, {}
    auth_confirmed: set[str] = set()  # operations whose probes were sent and refused

    @functools.wraps(ignored_auth)
    def ignored_auth_once(ctx, response, case):
        sent = counting_app.requests
        outcome = ignored_auth(ctx, response, case)  # raises if a probe was accepted
        if counting_app.requests > sent:
            auth_confirmed.add(case.operation.label)
        return outcome

    assert ignored_auth in CHECKS
    checks = [ignored_auth_once if check is ignored_auth else check for check in CHECKS]
    for result in api_schema.get_all_operations():
        operation = result.ok()  # a schema that schemathesis cannot read fails here
        operations += 1

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],  # no shrinking: the first failure is shown
        )
        @given(case=_strategy(operation, fuzz_world["known"]))
        def call(case):
            # Each request in a savepoint rolled back afterwards: every example starts from the
            # same world (a DELETE does not starve the examples after it).
            with transaction.atomic():
                response = case.call(headers=fuzz_world["headers"])
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                confirmed = case.operation.label in auth_confirmed
                case.validate_response(
                    response,
                    checks=checks,
                    excluded_checks=[ignored_auth_once] if confirmed else [],
                    headers=fuzz_world["headers"],
                    transport_kwargs={"headers": dict(fuzz_world["headers"])},
                )
                transaction.set_rollback(True)

        try:
            call()
        except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - reported together below
            failures[operation.label] = str(exc)[:3000]
    _write_stats(operations=operations, statuses=statuses, failures=failures)
    assert operations >= 40, operations
    assert not failures, "\n\n".join(f"{label}:\n{text}" for label, text in failures.items())


def test_the_schema_generates_without_warnings_and_validates(tmp_path):
    """drf-spectacular's own checks: no warning or error while generating, and the result is a
    valid OpenAPI document (what the fuzzing above reads)."""
    from django.core.management import call_command

    path = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path))
    schema = yaml.safe_load(path.read_text())
    detail = schema["paths"]["/api/planner/designs/{id}/"]["get"]["responses"]
    assert {"200", "401", "403", "404"} <= set(detail)  # the error answers are documented
