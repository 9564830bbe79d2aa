"""The Celery worker these tests share: started for this package and stopped after its last
test, so that the tests that run after it in the same process (``make test`` runs this
package on one pytest-xdist worker while the other runs the rest) send their tasks to the
broker they would without it, where no worker takes them."""

from __future__ import annotations

import pytest

from tests.conftest import broker_db_url, reset_broker_connections, start_worker, stop_worker


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


@pytest.fixture
def isolated_broker(redis_url):
    """A Redis database of its own (not the shared worker's), emptied, used by this process:
    for tests that start and kill workers of their own."""
    import redis

    from planner.project.celery import app

    url = broker_db_url(redis_url, isolated=True)
    redis.Redis.from_url(url).flushdb()
    previous = app.conf.broker_url
    app.conf.broker_url = url
    reset_broker_connections(app)
    yield url
    app.conf.broker_url = previous
    reset_broker_connections(app)
    redis.Redis.from_url(url).flushdb()
