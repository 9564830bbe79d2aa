# Fabric Planner: `make run` to use it, `make test` to prove it, `make check` while you work.
# `make help` lists the targets.
SHELL := /bin/bash
PYTHON_BIN ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The flow simulation's compiled kernels (numba, cache=True) live in numba's cache next to their
# sources; the stamp sits there too, so deleting the cache compiles them again.
FLOW := planner/analyses/flow
FLOW_KERNELS := $(FLOW)/__pycache__/.kernels-warm
# Python may keep compiled bytecode (__pycache__, ignored by git) even where the shell says not to:
# without it every pytest worker re-parses and rewrites the asserts of all 400 test files (11 s of
# CPU each) and every Celery worker or manage.py process the tests start compiles the product again.
unexport PYTHONDONTWRITEBYTECODE
# Line and branch coverage of the product packages ([tool.coverage] in pyproject.toml), printed at
# the end of `make test` by coverage itself: pytest-cov's own report analyses every file twice.
# COVERAGE= runs the tests without it.
COVERAGE ?= --cov --cov-report=
COVERAGE_REPORT = $(if $(strip $(COVERAGE)),; status=$$?; $(VENV)/bin/coverage report --skip-covered; $(PY) -m tests.cpu_time --summary; exit $$status)
# Three pytest workers (pytest-xdist) on the two cores, each with its own test database and
# Redis databases: the tests that kill and restart real Celery workers spend most of their
# time waiting, and go all to one worker, first, one after the other (tests/conftest.py), while
# the two others keep both cores busy (measured from a fresh clone: 5 min 17 s with three
# workers, 5 min 39 s with two, 6 min 13 s with four). Tests go to a worker by file, in
# collection order (heavy API walks early). PARALLEL= runs everything in one process.
PARALLEL ?= -n 3 --dist loadfile --no-loadscope-reorder
# The built documentation site and what it is built from (the `docs` target below).
DOCS_SITE := .var/docs-site/index.html
DOCS_SOURCES := docs/mkdocs.yml docs/CHANGELOG.md planner/domain/design-spec.schema.json \
	$(shell find docs -type f -not -path '*/__pycache__/*' 2>/dev/null)

# pytest runs under tests/cpu_time.py, which prints at the end the CPU time (user + sys) of
# pytest, its workers and every process they start (browsers, servers, Celery workers), with
# the wall time and the load averages, and writes them to .var/test-times.json.
CPU_TIME = $(PY) -m tests.cpu_time --

# `make check`, the inner loop: lint, then the unit and service tests (and the pure packages'
# doctests) on SQLite, without browsers, Celery workers, Redis or coverage, on two pytest
# workers. DATABASE_URL, REDIS_URL and CI are ignored, so a test that needs a service skips.
CHECK_PATHS = tests/unit tests/services planner/domain inventory/library planner/analyses
CHECK_PARALLEL ?= -n 2 --dist load

.PHONY: help run test check interop setup fonts venv frontend db docs lint format spec-schema bench lock clean

help:
	@echo "make run      set up, migrate, load the catalog, serve http://127.0.0.1:8000 with a worker"
	@echo "make check    the inner loop: lint, unit and service tests on SQLite (no browser,"
	@echo "              no Celery worker, no coverage), about a minute on two cores"
	@echo "make test     everything CI runs: lint, front-end tests, migrations check, the whole"
	@echo "              suite with coverage; prints its CPU time (.var/test-times.json)"
	@echo "make interop  the exports through the real tools: NetBox imports the NetBox bundle,"
	@echo "              its cable export goes back through the as-built check (after make test)"
	@echo "make lint     ruff, import contracts, eslint and tsc;  make format  fixes what it can"
	@echo "make docs     build the documentation site strictly (.var/docs-site, served at /docs/)"
	@echo "make bench    the benchmarks (.var/bench/)"
	@echo "make spec-schema, make lock, make clean"

run: setup db $(DOCS_SITE)
	@$(PY) manage.py ensure_admin
	@$(PY) manage.py serve

setup: fonts $(STAMP) $(FLOW_KERNELS) frontend/dist/.built

$(VENV)/bin/python:
	$(PYTHON_BIN) -m venv $(VENV)

# The development set: requirements-dev.lock is requirements.lock (what the Docker image
# installs) plus the tests', benchmarks' and linters' tools, at the same versions.
$(STAMP): $(VENV)/bin/python requirements.lock requirements-dev.lock
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.lock
	@touch $@

# The quote PDF's fonts are the operating system's packages (planner/quotes/fonts.py, which
# needs only the standard library): without them, say which to install first, before any
# download, rather than fail inside a PDF later. Checked on every run (0.1 s).
fonts:
	@$(firstword $(wildcard $(PY)) $(PYTHON_BIN)) -m planner.quotes.fonts > /dev/null

# Compiled once here (5-6 s of CPU), not in every test, web or worker process; again when the
# kernels' sources or the installed packages change.
$(FLOW_KERNELS): $(STAMP) $(FLOW)/filling.py $(FLOW)/solver.py $(FLOW)/alphabeta.py $(FLOW)/warm.py
	$(PY) -m planner.analyses.flow.warm
	@touch $@

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error

frontend/dist/.built: frontend/node_modules/.package-lock.json $(shell find frontend/src frontend/build.mjs -type f 2>/dev/null)
	cd frontend && npm run --silent build
	@touch $@

db: setup
	@$(PY) manage.py migrate --noinput -v 0
	@$(PY) manage.py load_catalog

# The documentation site (docs/mkdocs.yml over docs/pages/): the OpenAPI schema written for its API page, then
# a strict build (a broken link or a page missing from the nav fails it) into .var/docs-site/,
# which the app serves at /docs/. `make test` always builds it; `make run` when docs/ changed.

define BUILD_DOCS
@mkdir -p .var
$(PY) manage.py spectacular --format openapi-json --file .var/openapi.json
$(PY) -m mkdocs build --strict --quiet -f docs/mkdocs.yml
endef

docs: $(STAMP)
	$(BUILD_DOCS)

$(DOCS_SITE): $(STAMP) $(DOCS_SOURCES)
	$(BUILD_DOCS)

# lint-imports checks the import contracts of pyproject.toml ([tool.importlinter]): the ladder
# of apps and the pure core that imports neither a framework nor an app.
# The front end: eslint (frontend/eslint.config.js) and tsc --checkJs over src/ (tsconfig.json).
lint: $(STAMP) frontend/node_modules/.package-lock.json
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	cd frontend && npm run --silent lint

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# planner/domain/design-spec.schema.json, written from the spec's definition (planner/domain/spec.py);
# tests/unit/test_spec_definition.py fails until it is rewritten after a change there.
spec-schema: $(STAMP)
	$(PY) -c "from planner.domain.spec import SCHEMA_PATH, schema_text; SCHEMA_PATH.write_text(schema_text())"

test: setup lint docs
	cd frontend && npm test --silent
	$(PY) manage.py makemigrations --check --dry-run -v 0
ifeq ($(strip $(PYTEST_ARGS)),)
	$(CPU_TIME) $(VENV)/bin/pytest $(PARALLEL) $(COVERAGE) $(COVERAGE_REPORT)
else
	$(CPU_TIME) $(VENV)/bin/pytest $(COVERAGE) $(PYTEST_ARGS) $(COVERAGE_REPORT)
endif

check: setup lint
	env -u DATABASE_URL -u REDIS_URL -u CI $(PY) -m tests.cpu_time --out .var/check-times.json -- \
	  $(VENV)/bin/pytest $(CHECK_PARALLEL) -q -p no:cacheprovider --durations=10 $(CHECK_PATHS)

# The exports through the real tools they name (issue 38), apart from `make test` so pytest's
# time is untouched: NetBox 4.7.3 in its own virtualenv (.var/interop/netbox-venv, Python 3.12,
# tests/interop/netbox.lock) and database (netbox_interop) imports the H100 4 SU cluster
# preset's bundle and its cable export goes back through the as-built check
# (tests/interop/netbox_run.py). Prints the step's time. With CI=true a tool that cannot be
# installed or run is a failure; elsewhere it is skipped with the reason.
interop: $(STAMP)
	@start=$$(date +%s); $(PY) tests/interop/netbox_run.py; status=$$?; \
	  echo "interop: $$(( $$(date +%s) - start )) s"; exit $$status

bench: setup
	$(PY) -m tests.bench
	$(PY) -m tests.bench_domain
	$(PY) -m tests.bench_canvas
	$(PY) -m tests.bench_load
	$(PY) -m tests.bench_outputs
	$(PY) -m tests.bench_flow
	$(PY) -m tests.bench_sweep
	$(PY) -m tests.bench_explore
	$(PY) -m tests.bench_recovery
	$(PY) -m tests.bench_security
	$(PY) -m tests.bench_cluster
	$(PY) -m tests.bench_optics
	$(PY) -m tests.bench_scale
	$(PY) -m tests.bench_matrix

# Re-pin the two locks from pyproject.toml (needs network; the repository itself is not a
# package). requirements.lock: what the web server and the Celery worker run (`dependencies`),
# the only lock the Docker image installs. requirements-dev.lock: that plus the tests',
# benchmarks' and linters' tools (the `dev` group), resolved with requirements.lock as
# constraints so every version both hold agrees (tests/unit/test_build.py checks it). The pins
# already in the locks are kept and only what they do not cover is resolved; UPGRADE=1
# re-resolves all.
LOCK_DIR ?= /tmp/fabric-lock
LOCKS := requirements.lock requirements-dev.lock
LOCK_DEPS = $(PYTHON_BIN) -c 'import sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	print(*(p["dependencies"] if sys.argv[1] == "prod" else p["optional-dependencies"]["dev"]), sep="\n")'
lock:
	rm -rf $(LOCK_DIR) && mkdir -p $(LOCK_DIR)
	$(PYTHON_BIN) -m venv $(LOCK_DIR)/prod && $(PYTHON_BIN) -m venv $(LOCK_DIR)/dev
	$(LOCK_DEPS) prod > $(LOCK_DIR)/prod.txt && $(LOCK_DEPS) dev > $(LOCK_DIR)/dev.txt
	$(LOCK_DIR)/prod/bin/pip install --quiet -r $(LOCK_DIR)/prod.txt \
	  $(if $(UPGRADE),,$(foreach f,$(wildcard $(LOCKS)),-c $(f)))
	$(LOCK_DIR)/prod/bin/pip freeze | LC_ALL=C sort -f > requirements.lock
	$(LOCK_DIR)/dev/bin/pip install --quiet -r requirements.lock -r $(LOCK_DIR)/dev.txt \
	  $(if $(UPGRADE),,$(foreach f,$(wildcard requirements-dev.lock),-c $(f)))
	$(LOCK_DIR)/dev/bin/pip freeze | LC_ALL=C sort -f > requirements-dev.lock

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist staticfiles .pytest_cache .ruff_cache
