"""The Celery worker these tests share: started for this package and stopped after its last
test, so that the tests that run after it in the same process (``make test`` runs this
package on one pytest-xdist worker while the other runs the rest) send their tasks to the
broker they would without it, where no worker takes them."""

from __future__ import annotations

import pytest

from tests.conftest import reset_broker_connections, start_worker, stop_worker


@pytest.fixture(scope="package")
def _package_worker(celery_broker_url, django_db_setup, django_db_blocker, tmp_path_factory):
    from planner.project.celery import app

    with django_db_blocker.unblock():
        proc = start_worker(celery_broker_url, tmp_path_factory.mktemp("worker") / "worker.log")
    previous_url = app.conf.broker_url
    app.conf.broker_url = celery_broker_url
    reset_broker_connections(app)
    yield proc
    app.conf.broker_url = previous_url
    reset_broker_connections(app)
    stop_worker(proc)


@pytest.fixture
def celery_worker_process(_package_worker, transactional_db):
    """A real worker process on Redis that sees this test's committed rows."""
    if _package_worker.poll() is not None:
        pytest.fail("the Celery worker died")
    return _package_worker
