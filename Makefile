# Fabric Planner: `make run` to use it, `make test` to prove it.
SHELL := /bin/bash
PYTHON_BIN ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Line and branch coverage of the product packages, printed at the end of `make test`.
COVERAGE ?= --cov=planner --cov=inventory --cov=simulation --cov-branch
# Three pytest workers (pytest-xdist) on the two cores, each with its own test database and
# Redis databases: the tests that kill and restart real Celery workers spend most of their
# time waiting, and go all to one worker, first, one after the other (tests/conftest.py), while
# the two others keep both cores busy (measured from a fresh clone: 5 min 17 s with three
# workers, 5 min 39 s with two, 6 min 13 s with four). Tests go to a worker by file, in
# collection order (heavy API walks early). PARALLEL= runs everything in one process.
PARALLEL ?= -n 3 --dist loadfile --no-loadscope-reorder

.PHONY: run test setup venv frontend db lint format bench lock clean

run: setup db
	@$(PY) manage.py ensure_admin
	@$(PY) manage.py serve

setup: $(STAMP) frontend/dist/.built

$(VENV)/bin/python:
	$(PYTHON_BIN) -m venv $(VENV)

$(STAMP): $(VENV)/bin/python requirements.lock
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	@touch $@

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error

frontend/dist/.built: frontend/node_modules/.package-lock.json $(shell find frontend/src frontend/build.mjs -type f 2>/dev/null)
	cd frontend && npm run --silent build
	@touch $@

db: setup
	@$(PY) manage.py migrate --noinput -v 0
	@$(PY) manage.py load_catalog

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: setup lint
	cd frontend && npm test --silent
	$(PY) manage.py makemigrations --check --dry-run -v 0
ifeq ($(strip $(PYTEST_ARGS)),)
	$(VENV)/bin/pytest $(PARALLEL) $(COVERAGE) --cov-report=term:skip-covered
else
	$(VENV)/bin/pytest $(COVERAGE) --cov-report=term:skip-covered $(PYTEST_ARGS)
endif

bench: setup
	$(PY) -m tests.bench
	$(PY) -m tests.bench_domain
	$(PY) -m tests.bench_canvas
	$(PY) -m tests.bench_load
	$(PY) -m tests.bench_outputs
	$(PY) -m tests.bench_flow
	$(PY) -m tests.bench_sweep
	$(PY) -m tests.bench_security
	$(PY) -m tests.bench_cluster
	$(PY) -m tests.bench_optics
	$(PY) -m tests.bench_scale

# Re-pin requirements.lock from pyproject.toml's dependencies (needs network).
lock:
	rm -rf /tmp/fabric-lock && $(PYTHON_BIN) -m venv /tmp/fabric-lock
	/tmp/fabric-lock/bin/pip install --quiet ".[dev]"
	/tmp/fabric-lock/bin/pip freeze --exclude fabric-planner > requirements.lock

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist staticfiles .pytest_cache .ruff_cache
