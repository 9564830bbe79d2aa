"""Shared fixtures: users, API clients, a real Celery worker and a real Chromium.

Outside CI, a celery or browser test whose service is missing is skipped with the reason;
with ``CI=true`` it fails instead, so CI never passes by skipping.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
#: Debian's ``chromium-headless-shell``: Chromium's headless shell (its "old" headless mode),
#: built from Debian's ``chromium`` source at the same version, and the build Playwright itself
#: runs for headless tests. Same Blink and V8 as ``/usr/bin/chromium``, without the full
#: browser's user interface layers: the browser tests took 261.6 s of CPU (2 min 28 s) on the
#: full browser and 145.7 s (1 min 29 s) on the shell, three pytest workers on two cores.
#: ``CHROMIUM_PATH`` picks another build (``/usr/bin/chromium`` to look at a page in the full
#: browser).
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
]

_MARK_BY_FOLDER = {
    "unit": "unit",
    "api": "api",
    "integration": "celery",
    "browser": "browser",
    "models": "db",
    "services": "db",
}


#: Folders whose tests run with the coverage tracer paused (pytest-cov's ``no_cover``, for the
#: test's call; its fixtures stay traced): the browser tests, the real Celery workers, the real
#: tools and the migrations from old schemas. They prove the product end to end with real
#: processes; the lines they run are the views', services' and migrations' that the unit,
#: service and API tests run too. In a run recorded with a coverage context per test
#: (``--cov-context=test``, 2026-12-07), 46 of the 71,765 branches the suite runs were run by
#: these folders' tests alone (in 11 modules: whatever they reach only through a browser or a
#: worker shows as missed, never as covered), and the tracer doubled their own CPU time.
UNTRACED_FOLDERS = frozenset({"browser", "integration", "interop", "models"})


def pytest_collection_modifyitems(config, items):
    """Mark tests by folder, give every database-marked folder database access, and pause the
    coverage tracer in the :data:`UNTRACED_FOLDERS`."""
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT).parts
        if parts[0] != "tests":
            item.add_marker("unit")  # doctests of the pure packages
            continue
        marker = _MARK_BY_FOLDER.get(parts[1]) if len(parts) > 2 else None
        if marker:
            item.add_marker(marker)
        if marker in {"api", "db"}:
            item.add_marker(pytest.mark.django_db)
        if len(parts) > 2 and parts[1] in UNTRACED_FOLDERS:
            item.add_marker(pytest.mark.no_cover)


#: Tests that start, kill and restart real Celery workers (the ``celery`` mark, by folder).
CELERY_FOLDER = "tests/integration/"


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` (``make test``), with the Celery tests as one unit: all on one
    pytest-xdist worker, one after the other, while the other worker runs the rest."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class CeleryTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return CELERY_FOLDER if path.startswith(CELERY_FOLDER) else path

    return CeleryTogether(config, log)


class _CeleryFirst:
    """On a pytest-xdist worker, the Celery tests first: with ``--no-loadscope-reorder`` the
    files go out in collection order, so one worker starts on them at once (a minute, mostly
    waiting on worker processes) while the other takes the rest."""

    @pytest.hookimpl(trylast=True)  # after pytest-django's reordering
    def pytest_collection_modifyitems(self, config, items):
        if hasattr(config, "workerinput"):
            items.sort(key=lambda item: item.get_closest_marker("celery") is None)


def pytest_configure(config):
    config.pluginmanager.register(_CeleryFirst(), "fabric-celery-first")


#: The garbage collector's thresholds in tests (Python's default: 700, 10, 10).
GC_THRESHOLD = (10_000, 20, 20)


def pytest_collection_finish(session):
    """Django, the product, the libraries and every test module are loaded now and stay for
    the whole session: frozen out of the garbage collector's sweeps, which otherwise walk
    them again at every full collection; young objects are collected less often too. The
    service tests took 76.2 s of CPU before, 71.8 s after (with coverage, one process)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


@pytest.hookimpl(tryfirst=True)  # before pytest-cov starts the worker's own measurement
def pytest_sessionstart(session):
    """One coverage measurement per pytest-xdist worker, not two.

    A worker parses the same command line as the controller, so pytest-cov (7.1) starts the
    controller's measurement in it too, as soon as it loads, and then the worker's own at
    session start, stacked on it. The first one's data is never saved, but whenever the
    worker's is paused (a ``no_cover`` test) or finished, coverage resumes the first one: the
    "untraced" walks ran traced, about 1.7 times slower. It is stopped here, before the
    worker's own starts; what it measured while the conftests loaded, the controller measures
    too (it imports them the same way).

    On the controller, before it starts the workers, the bytecode they would each write
    (:func:`_bytecode_before_the_workers`)."""
    if not hasattr(session.config, "workerinput"):
        _bytecode_before_the_workers(session.config)
        return
    plugin = session.config.pluginmanager.get_plugin("_cov")
    if plugin is None:
        return
    from pytest_cov.engine import DistMaster

    if isinstance(plugin.cov_controller, DistMaster):
        plugin.cov_controller.cov.stop()


def _bytecode_before_the_workers(config) -> None:
    """Before pytest-xdist starts its workers (``-n``), the project's bytecode and the test
    modules' rewritten asserts are written once, outside the coverage tracer
    (:mod:`tests.bytecode`), instead of by each worker for itself; its CPU time is the run's
    like the rest. Nothing when there are no workers or bytecode is not written."""
    if not config.getoption("numprocesses", None) or sys.dont_write_bytecode:
        return
    subprocess.run(
        [sys.executable, "-m", "tests.bytecode", *map(str, config.args)], cwd=ROOT, check=False
    )


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings):
    """Under pytest-xdist, each worker's test database is a copy of one built per run, with
    the seed catalog in it (:mod:`tests.db_template`)."""
    from django.db import connection

    from tests import db_template

    _SEED["from_template"] = db_template.install(connection, _seed_state_built)


def _seed_state_built() -> dict:
    """Load the seed catalog into the database being built; what ``_SEED`` then holds."""
    report = _seed_catalog_load()
    return {"report": report, "counts": _SEED["counts"], "tables": _SEED["tables"]}


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database with the seed catalog loaded once (committed, so each
    ``db`` test's rollback keeps it; copied with the database under pytest-xdist), and stray
    connections closed before it is dropped (worker processes and the live server's threads may
    still hold one)."""
    with django_db_blocker.unblock():
        if _SEED.get("from_template"):
            from django.db import connection

            from tests import db_template

            _SEED.update(db_template.stored_seed(connection))
        else:
            _SEED["report"] = _seed_catalog_load()
    _SEED["flushes"] = _SEED["checked"] = 0  # committed: trusted until a flush
    yield
    with django_db_blocker.unblock():
        from django.db import connection

        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    """Tests hash with MD5: Django's default PBKDF2 (1,000,000 iterations) costs ~0.5 s per
    user created or logged in, minutes over the suite. Production settings are untouched."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _cache_in_the_process():
    """Django's cache is the process's own (locmem) in tests, even with ``REDIS_URL`` set
    (production keeps it in Redis): a test's ``cache.clear()`` must never flush a Redis
    database that brokers or other runs use, and each test process sees only its entries.
    The worker and server processes that tests start keep the production setting."""
    from django.test.utils import override_settings

    override = override_settings(
        CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    )
    override.enable()
    yield
    override.disable()


@pytest.fixture(autouse=True, scope="session")
def _static_files_listed_once():
    """Outside production WhiteNoise serves static files through the finders, and lists and
    stats every one of them each time a middleware chain is built: for every test client, so
    ~50 ms in each of ~1,000 tests. Tests list them once per session (per set of settings that
    shape the answers) and give each new middleware the same entries; the files do not change
    while the tests run, and what a request is answered is unchanged."""
    from django.conf import settings
    from whitenoise.middleware import WhiteNoiseMiddleware

    original = WhiteNoiseMiddleware.add_files_from_finders
    listed: dict[tuple, dict] = {}

    def add_files_from_finders(self):
        key = (
            self.static_prefix,
            self.max_age,
            self.allow_all_origins,
            self.charset,
            self.add_headers_function,
            self.index_file,
            repr(settings.STATICFILES_DIRS),
            tuple(settings.STATICFILES_FINDERS),
            tuple(settings.INSTALLED_APPS),
        )
        if key not in listed:
            before = dict(self.files)
            original(self)
            listed[key] = {u: f for u, f in self.files.items() if before.get(u) is not f}
        self.files.update(listed[key])

    WhiteNoiseMiddleware.add_files_from_finders = add_files_from_finders
    yield
    WhiteNoiseMiddleware.add_files_from_finders = original


def _forget_untraced_memos() -> None:
    """Plug-in-cage verdicts memoised while the coverage tracer was paused are forgotten: the
    tests after it then run the rule code themselves, so the coverage figure does not depend on
    which walk a worker ran first."""
    from inventory.library.compat import _plug_fits_cage_cached

    _plug_fits_cage_cached.cache_clear()


@pytest.fixture(autouse=True)
def _memo_forgotten_after_untraced_walks(request):
    """After a ``no_cover`` walk, what it memoised is forgotten (:func:`_forget_untraced_memos`)."""
    yield
    if request.node.get_closest_marker("no_cover"):
        _forget_untraced_memos()


@contextlib.contextmanager
def untraced(config):
    """Run a walk's shared setup (a module fixture that builds every case) with the coverage
    tracer paused, as pytest-cov's ``no_cover`` mark does for a test's own call.

    A walk proves a property over every case (every catalog switch and server, every preset);
    the lines it runs are covered by the focused tests of their modules (a line only a walk
    reached gets a focused test: compare the coverage data of a run with and without), and
    tracing it multiplies its CPU time by two to three. Without coverage, or once it is paused,
    this does nothing."""
    plugin = config.pluginmanager.get_plugin("_cov")
    controller = getattr(plugin, "cov_controller", None)
    if controller is None or not getattr(controller, "started", False):
        yield
        return
    controller.pause()
    try:
        yield
    finally:
        controller.resume()
        _forget_untraced_memos()


def service_missing(reason: str):
    """Skip outside CI; fail in CI."""
    if IN_CI:
        pytest.fail(f"CI=true and a required service is missing: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="alice", password="pw-alice-123!")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user(username="bob", password="pw-bob-123!")


@pytest.fixture
def prices_visible(user):
    """``user`` may see prices: a member of a team with the price right (can_view_prices)."""
    from planner.teams.models import Team, TeamMembership

    team = Team.objects.create(name="Sales", slug="sales")
    TeamMembership.objects.create(team=team, user=user, can_view_prices=True)
    return user


def grant_catalog_editor(user):
    """Give ``user`` the catalog-editor permission (``inventory.edit_catalog``), as the admin
    does; returns the user, reloaded so that the permission cache is fresh."""
    from django.contrib.auth.models import Permission

    user.user_permissions.add(
        Permission.objects.get(codename="edit_catalog", content_type__app_label="inventory")
    )
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def catalog_editor(user):
    """``user`` may change the catalog (the ``inventory.edit_catalog`` permission)."""
    return grant_catalog_editor(user)


@pytest.fixture
def api_client(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


#: The seed catalog as loaded at session start: the import report and the row counts that
#: tell whether it is still there.
_SEED: dict = {}


def _catalog_counts() -> tuple[int, int]:
    """(catalog parts, prices in the seed price book): one query, asked before every db test."""
    from django.db import connection

    from inventory.models import CATEGORY_MODELS, Price, PriceBook
    from inventory.services import SEED_PRICE_BOOK

    parts = " + ".join(
        f'(SELECT count(*) FROM "{model._meta.db_table}")' for model in CATEGORY_MODELS.values()
    )
    book = Price._meta.get_field("book").column
    prices = (
        f'SELECT count(*) FROM "{Price._meta.db_table}" JOIN "{PriceBook._meta.db_table}" b '
        f'ON "{Price._meta.db_table}"."{book}" = b."{PriceBook._meta.pk.column}" WHERE b.slug = %s'
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {parts}, ({prices})", [SEED_PRICE_BOOK])
        return tuple(cursor.fetchone())


#: Where the seed catalog's rows are copied after the session's load (PostgreSQL): a schema
#: of the test database that Django does not know, so a flush leaves it alone.
SNAPSHOT_SCHEMA = "seed_snapshot"


def _table_counts(cursor, tables) -> dict[str, int]:
    counts = {}
    for table in tables:
        cursor.execute(f'SELECT count(*) FROM "{table}"')
        counts[table] = cursor.fetchone()[0]
    return counts


def _seed_catalog_load():
    """Load the seed catalog through the import service. On PostgreSQL, also copy the rows it
    wrote aside (each table it filled from empty), so that :func:`_seed_catalog_reload` can put
    them back after a flush in milliseconds instead of importing again (seconds)."""
    from django.db import connection

    from inventory.services import catalog_load

    tables = connection.introspection.django_table_names(only_existing=True)
    with connection.cursor() as cursor:
        before = _table_counts(cursor, tables)
    report = catalog_load()
    _SEED["counts"] = _catalog_counts()
    _SEED["tables"] = []
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            after = _table_counts(cursor, tables)
            filled = sorted(t for t in tables if after[t] and not before[t])
            # Copied only if the load wrote to no table that held other rows already.
            if all(after[t] == before[t] for t in tables if before[t]):
                cursor.execute(f"DROP SCHEMA IF EXISTS {SNAPSHOT_SCHEMA} CASCADE")
                cursor.execute(f"CREATE SCHEMA {SNAPSHOT_SCHEMA}")
                for table in filled:
                    cursor.execute(
                        f'CREATE TABLE {SNAPSHOT_SCHEMA}."{table}" AS TABLE public."{table}"'
                    )
                _SEED["tables"] = filled
    return report


def _seed_catalog_reload():
    """The seed catalog back after a flush: the session's rows copied back (PostgreSQL, when
    every table they go to is empty), else loaded again through the import service."""
    from django.apps import apps
    from django.core.management.color import no_style
    from django.db import connection, transaction

    tables = _SEED.get("tables")
    if tables:
        with transaction.atomic(), connection.cursor() as cursor:
            if not any(_table_counts(cursor, tables).values()):
                for table in tables:
                    cursor.execute(
                        f'INSERT INTO public."{table}" SELECT * FROM {SNAPSHOT_SCHEMA}."{table}"'
                    )
                models = [m for m in apps.get_models() if m._meta.db_table in tables]
                for statement in connection.ops.sequence_reset_sql(no_style(), models):
                    cursor.execute(statement)
                if _catalog_counts() == _SEED["counts"]:
                    return _SEED["report"]
                transaction.set_rollback(True)
    return _seed_catalog_load()


def _flushes_the_database(item) -> bool:
    """Whether pytest-django empties the database after this test (a transactional one)."""
    marker = item.get_closest_marker("django_db")
    names = getattr(item, "fixturenames", ())
    transactional = bool(marker and marker.kwargs.get("transaction"))
    return transactional or "transactional_db" in names or "live_server" in names


def _seed_catalog_checked() -> dict:
    """The seed catalog's import report, after making sure the catalog is there.

    Only the committed catalog is trusted: it is checked outside any transaction after the
    session's load and after each flush (:func:`pytest_runtest_teardown`), and a plain test's
    rollback cannot change it, so then no query is needed. Otherwise (inside a test's or a
    module's transaction) the counts are compared and the catalog put back if a flush emptied
    it, for this transaction only."""
    from django.db import connection

    if _SEED.get("checked") == _SEED.get("flushes"):
        return _SEED["report"]
    if _catalog_counts() != _SEED.get("counts"):
        _SEED["report"] = _seed_catalog_reload()
    if not connection.in_atomic_block:
        _SEED["checked"] = _SEED.get("flushes")
    return _SEED["report"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a transactional test's flush, the seed catalog is put back at once, committed.

    Before, the next plain test put it back inside its own transaction, whose rollback took it
    away again, so every later test of the worker copied the catalog back (about 350 times a
    run)."""
    result = yield
    setup = getattr(item, "report_setup", None)
    # After the session's last test the test database is gone already (nextitem is None).
    if nextitem is None or setup is None or not setup.passed:
        return result
    if _flushes_the_database(item):
        from pytest_django.plugin import blocking_manager_key

        _SEED["flushes"] += 1
        with item.config.stash[blocking_manager_key].unblock():
            _seed_catalog_checked()
    return result


@pytest.fixture
def seed_catalog(db):
    """The seed catalog and its price book (the import report of the session's load).

    Loaded once per session by ``django_db_setup`` (~1 s on PostgreSQL, once instead of in
    ~200 tests); each ``db`` test's rollback keeps it. Transactional tests (``transactional_db``,
    ``live_server``, the Celery worker) flush the database at teardown: then it is put back at
    once, committed (:func:`pytest_runtest_teardown`, :func:`_seed_catalog_reload`).
    """
    return _seed_catalog_checked()


@pytest.fixture(autouse=True)
def _seed_catalog_for_db_tests(request):
    """Every plain ``db`` test sees the seed catalog, whatever ran before it in its process.

    A transactional test, which flushes, may have run before it in the same pytest-xdist
    worker: the catalog was put back, committed, after that test (:func:`seed_catalog` says
    when it is counted again). Tests that ask for ``empty_catalog`` or use a transactional
    database are left alone.
    """
    marker = request.node.get_closest_marker("django_db")
    names = request.fixturenames
    if marker is None or "empty_catalog" in names or _flushes_the_database(request.node):
        return
    request.getfixturevalue("seed_catalog")


@contextlib.contextmanager
def module_rows(django_db_blocker):
    """Rows a module's tests share, for a module-scoped fixture (which asks for
    ``django_db_setup`` too: the test database and its seed catalog, which a module fixture
    may be the first in the process to need): built once inside an outer
    transaction that is rolled back when the module is done. Each test's own transaction
    (pytest-django's) is a savepoint inside it, so what a test writes is still undone after it;
    the shared Python objects are the fixture's to keep unchanged. The seed catalog is put back
    first if a transactional test flushed it."""
    from django.db import transaction

    with django_db_blocker.unblock(), transaction.atomic():
        _seed_catalog_checked()
        yield
        transaction.set_rollback(True)


def clear_catalog() -> None:
    """Delete every part, manufacturer, price book and price."""
    from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook

    Price.objects.all().delete()
    PriceBook.objects.all().delete()
    for model in CATEGORY_MODELS.values():
        model.objects.all().delete()
    Manufacturer.objects.all().delete()


@pytest.fixture
def empty_catalog(db):
    """No catalog at all: every part, manufacturer, price book and price deleted inside this
    test's transaction (the rollback brings the session's seed catalog back). For tests that
    count what an import creates or create parts under seed names."""
    clear_catalog()


# --- Celery: a real worker process on Redis --------------------------------------------------


@pytest.fixture(scope="session")
def redis_url():
    url = os.environ.get("REDIS_URL", "")
    if not url:
        service_missing("REDIS_URL is not set (celery tests need Redis)")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001
        service_missing(f"Redis at {url} does not answer: {exc}")
    return url


def _database_url_for_worker() -> str:
    """The URL of the *test* database, so that a worker process sees the tests' rows."""
    from django.db import connection

    settings = connection.settings_dict
    if settings["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] or ""
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    host = settings["HOST"] or "127.0.0.1"
    port = f":{settings['PORT']}" if settings["PORT"] else ""
    return f"postgres://{user}{password}@{host}{port}/{settings['NAME']}"


def reset_broker_connections(app) -> None:
    """Drop pooled broker connections so that a changed ``broker_url`` takes effect."""
    from kombu import pools

    pools.reset()  # closes and forgets kombu's global connection and producer pools
    app._pool = None
    app.amqp._producer_pool = None


def broker_db_url(redis_url: str, *, isolated: bool = False) -> str:
    """A Redis database for this pytest process's brokers: one per pytest-xdist worker
    (gw0 -> 15, gw1 -> 14, ...) for the shared test worker, and with ``isolated`` another one
    (gw0 -> 7, gw1 -> 6, ...) for tests that start and kill workers of their own, so that no
    Celery worker ever takes another's tasks."""
    base = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = int(os.environ.get("TEST_REDIS_DB", "15")) - int(worker.removeprefix("gw") or 0)
    return f"{base}/{number - 8 if isolated else number}"


@pytest.fixture(scope="session")
def celery_broker_url(redis_url):
    """A Redis database of its own for the tests' broker, emptied at the start."""
    import redis

    url = broker_db_url(redis_url)
    redis.Redis.from_url(url).flushdb()
    return url


def _spawn_worker(
    broker_url: str, log_path: Path, concurrency: int = 1, name: str = ""
) -> subprocess.Popen:
    env = {
        **os.environ,
        "REDIS_URL": broker_url,
        "DATABASE_URL": _database_url_for_worker(),
        "DJANGO_SETTINGS_MODULE": "planner.project.settings",
        # Celery's Django fix-up runs Django's system checks at every worker start (importing
        # every URL, view and the OpenAPI tooling: 0.9 s of its 2.2 s of CPU); the tests start
        # 13 workers, and the checks have their own tests (tests/unit/test_settings.py).
        "CELERY_SKIP_CHECKS": "1",
    }
    with open(log_path, "wb") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "planner.project",
                "worker",
                "--pool",
                "prefork",
                "--concurrency",
                str(concurrency),
                "--hostname",
                f"test-{os.getpid()}{f'-{name}' if name else ''}@%h",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _wait_ready(started: list[tuple[subprocess.Popen, Path]]) -> None:
    deadline = time.monotonic() + 60
    waiting = list(started)
    while waiting and time.monotonic() < deadline:
        for proc, log_path in list(waiting):
            if proc.poll() is not None:
                for other, _ in started:
                    stop_worker(other)
                pytest.fail(f"Celery worker exited early:\n{log_path.read_text()}")
            if b"ready." in log_path.read_bytes():
                waiting.remove((proc, log_path))
        time.sleep(0.2)
    if waiting:
        for proc, _ in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
        pytest.fail(f"Celery worker did not start in 60 s:\n{waiting[0][1].read_text()}")


def start_worker(
    broker_url: str, log_path: Path, concurrency: int = 1, name: str = ""
) -> subprocess.Popen:
    """Start ``celery worker`` in its own process group, wait until it is ready. ``name`` tells
    apart the workers a test runs side by side (their host names)."""
    proc = _spawn_worker(broker_url, log_path, concurrency, name)
    _wait_ready([(proc, log_path)])
    return proc


def start_workers(broker_url: str, log_paths: list[Path]) -> list[subprocess.Popen]:
    """Start one single-process worker per log path at once (each its own name), wait until all
    are ready."""
    started = [(_spawn_worker(broker_url, path, 1, name=path.stem), path) for path in log_paths]
    _wait_ready(started)
    return [proc for proc, _ in started]


def stop_worker(proc: subprocess.Popen) -> None:
    """Stop the worker and every process of its group (pool children hold DB connections)."""
    stop_workers([proc])


def stop_workers(procs: list[subprocess.Popen]) -> None:
    """Stop workers (:func:`stop_worker`), all at once."""
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 9)
    time.sleep(0.5)  # let PostgreSQL notice the closed connections before the test DB is dropped


# --- Browser: Debian's Chromium through Playwright --------------------------------------------


@pytest.fixture(scope="session")
def chromium():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        service_missing(
            f"Chromium not found at {CHROMIUM} (apt-get install chromium-headless-shell)"
        )
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import expect, sync_playwright

    # Assertions wait for their condition up to the actions' 15 s (Playwright's default is 5 s):
    # a passing test waits no longer, and one whose page answers slowly while the other pytest
    # workers load both cores is not failed for it.
    expect.set_options(timeout=15_000)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


SCREENSHOTS = ROOT / "tests" / "browser" / "screenshots"


#: Screenshots to look at, in tests/browser/screenshots/: ``FABRIC_SCREENSHOTS=1`` keeps the ones
#: the browser tests name (the pages as a user sees them), ``FABRIC_SCREENSHOTS=all`` also every
#: test's last page. By default only a failed test's last page is taken: a full-page screenshot
#: costs Chromium up to a second, about a tenth of the browser tests' time.
SCREENSHOTS_KEPT = os.environ.get("FABRIC_SCREENSHOTS", "")
SCREENSHOT_EVERY_TEST = SCREENSHOTS_KEPT == "all"


def keep_screenshot(page, name: str, *, full_page: bool = True) -> None:
    """Save ``page`` as ``tests/browser/screenshots/NAME.png`` when screenshots are asked for
    (``FABRIC_SCREENSHOTS``)."""
    if SCREENSHOTS_KEPT:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Remember each phase's report on the item (``page`` asks whether the test failed)."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def _wait_until_the_live_server_is_quiet(timeout_s: float = 15.0) -> None:
    """Wait until no other session of this test database runs a query or holds a transaction.

    A request the closed browser left running on the live server (a save, a summary) keeps its
    locks until it ends; the transactional test's flush (TRUNCATE) that follows would deadlock
    with it ("deadlock detected", seen once in a fresh-clone run), and the next tests on that
    worker would start on a database that was not flushed. PostgreSQL only (SQLite's live
    server shares the test's connection)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.05)


@pytest.fixture
def page(chromium, request, django_db_blocker):
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    report = getattr(request.node, "report_call", None)
    try:
        if SCREENSHOT_EVERY_TEST or report is None or report.failed:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}.png"), full_page=True)
    finally:
        context.close()
        with django_db_blocker.unblock():
            _wait_until_the_live_server_is_quiet()


@pytest.fixture
def browser_login(page, live_server, django_user_model):
    """A fresh user, Carol, logged in and on the home page; returns the page.

    Her session is made on the server and its cookie given to the browser, as a login would
    leave them (tests/browser/test_shell.py logs in through the real form)."""
    from django.conf import settings
    from django.test import Client

    carol = django_user_model.objects.create_user(username="carol", password="pw-carol-123!")
    client = Client()
    client.force_login(carol)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url}]
    )
    page.goto(f"{live_server.url}/")
    return page
