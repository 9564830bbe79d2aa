"""The NetBox bundle through the real NetBox, and NetBox's own cable export back through the
as-built check (``make interop``; issue 38).

1. installs NetBox (``tests/interop/netbox.lock``: NetBox 4.7.3 and its packages, pinned with
   hashes) into ``.var/interop/netbox-venv`` with Python 3.12 (``NETBOX_PYTHON``, else pyenv's
   3.12, else ``python3.12``), once per lock (a stamp holds the lock's hash);
2. writes its configuration (``.var/interop/netbox-root/conf/configuration.py``: PostgreSQL
   database ``netbox_interop``, made anew each run; Redis db 10 for tasks, 11 for caching) and
   migrates the database (once per lock: the migrated database is kept as
   ``netbox_interop_migrated``, its comment naming the lock's hash, and later runs, fresh
   clones on the machine included, start from a copy of it);
3. writes the bundle of the H100 4 SU cluster preset (its four networks at ``NETBOX_SERVERS``
   DGX, default one scalable unit: see :data:`SERVERS`) with the product's export code (the seed
   catalog read from its files, as the CLI would from the database) and imports it file by
   file through NetBox's own bulk-import pages (``netbox_driver.py``, inside NetBox);
4. checks NetBox's counts (devices, cables, interfaces) against the bundle, then feeds NetBox's
   cable list exports ("Current view" and "All data") to the as-built check, which must find
   every cable in place, and the exports after deleting three cables and crossing two, which
   must show exactly those.

Prints the time of each step. Exit status 0 when every assertion holds. Outside CI a machine
without Python 3.12 or PostgreSQL skips (exit 0, saying why); with ``CI=true`` that is a failure.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

VAR = ROOT / ".var" / "interop"
VENV = VAR / "netbox-venv"
NETBOX_ROOT = VAR / "netbox-root"
LOCK = ROOT / "tests" / "interop" / "netbox.lock"
DRIVER = ROOT / "tests" / "interop" / "netbox_driver.py"
PRESET = ROOT / "planner" / "domain" / "examples" / "h100-superpod-4su-cluster.yaml"
#: DGX servers of the preset to import: NetBox traces every cable's path as it saves it (about
#: 0.3 s a cable on two shared cores: the whole preset's 3,283 cables take 16 min), so the step
#: imports the preset's four networks at one scalable unit (31 DGX, the RA's SU) unless
#: ``NETBOX_SERVERS`` asks for more (127: the whole preset).
SERVERS = int(os.environ.get("NETBOX_SERVERS", "31"))
DATABASE = os.environ.get("NETBOX_DATABASE", "netbox_interop")
PG = {"host": "127.0.0.1", "port": "5432", "user": "postgres"}
REDIS_TASKS_DB, REDIS_CACHE_DB = 10, 11
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def log(text: str) -> None:
    print(f"[netbox-interop] {text}", flush=True)


def give_up(reason: str) -> None:
    """A missing prerequisite: a failure in CI, a skip elsewhere."""
    if CI:
        raise SystemExit(f"[netbox-interop] FAILED: {reason}")
    log(f"SKIPPED: {reason}")
    raise SystemExit(0)


def python312() -> str:
    for candidate in (
        os.environ.get("NETBOX_PYTHON", ""),
        "/root/.pyenv/versions/3.12.1/bin/python",
        shutil.which("python3.12") or "",
    ):
        if candidate and Path(candidate).exists():
            return candidate
    give_up("no Python 3.12 (set NETBOX_PYTHON)")
    return ""


def install() -> float:
    """NetBox into its virtualenv from the lock; 0 s when the stamp says it is there."""
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    stamp = VENV / ".lock-sha256"
    if stamp.exists() and stamp.read_text() == digest:
        return 0.0
    started = time.perf_counter()
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([python312(), "-m", "venv", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    # --no-compile: Python compiles what NetBox imports when it imports it, not every module
    # of every package up front (most of a warm install's time)
    locked = ["--no-deps", "--require-hashes", "--only-binary", ":all:", "--no-compile"]
    command = pip + locked + ["-r", str(LOCK)]
    subprocess.run(command, check=True)
    stamp.write_text(digest)
    return time.perf_counter() - started


def configure() -> dict:
    """NetBox's configuration file; the environment its commands run in."""
    conf = NETBOX_ROOT / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(50)
    redis = {"HOST": "127.0.0.1", "PORT": 6379, "PASSWORD": "", "SSL": False}
    (conf / "configuration.py").write_text(
        "# Written by tests/interop/netbox_run.py for the interop step.\n"
        "ALLOWED_HOSTS = ['*']\n"
        f"DATABASES = {{'default': {{'ENGINE': 'django.db.backends.postgresql', "
        f"'NAME': {DATABASE!r}, 'USER': {PG['user']!r}, 'PASSWORD': '', "
        f"'HOST': {PG['host']!r}, 'PORT': {PG['port']!r}}}}}\n"
        f"REDIS = {{'tasks': {{**{redis!r}, 'DATABASE': {REDIS_TASKS_DB}}}, "
        f"'caching': {{**{redis!r}, 'DATABASE': {REDIS_CACHE_DB}}}}}\n"
        f"SECRET_KEY = {secret!r}\n"
        f"API_TOKEN_PEPPERS = {{1: {secrets.token_urlsafe(50)!r}}}\n"
        "CENSUS_REPORTING_ENABLED = False\n"
        "RELEASE_CHECK_URL = None\n"
    )
    return {
        **os.environ,
        "NETBOX_ROOT": str(NETBOX_ROOT),
        "DJANGO_SETTINGS_MODULE": "netbox.settings",
    }


def _psql(*sql: str, check: bool = True) -> subprocess.CompletedProcess:
    base = ["psql", "-h", PG["host"], "-p", PG["port"], "-U", PG["user"], "-qtA"]
    command = base + ["-v", "ON_ERROR_STOP=1"] + [part for q in sql for part in ("-c", q)]
    return subprocess.run(command, check=check, capture_output=True, text=True)


def database(env: dict, digest: str) -> tuple[float, bool]:
    """NetBox's database made anew: a copy of the migrated template when one of this lock
    exists (``<database>_migrated``), else created and migrated, then kept as the template.
    Returns the seconds taken and whether it was migrated."""
    if not shutil.which("psql"):
        give_up("psql (PostgreSQL client) is not installed")
    ping = _psql("SELECT 1", check=False)
    if ping.returncode:
        give_up(f"PostgreSQL does not answer: {ping.stderr.strip()}")
    template = f"{DATABASE}_migrated"
    started = time.perf_counter()
    _psql(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
    # the template says which lock it was migrated for (a comment on it), so a fresh clone on
    # the same machine reuses it and a new lock migrates anew
    label = f"netbox lock sha256 {digest}"
    found = _psql(
        "SELECT shobj_description(oid, 'pg_database') FROM pg_database "
        f"WHERE datname = '{template}'"
    ).stdout.strip()
    if found == label:
        _psql(f'CREATE DATABASE "{DATABASE}" TEMPLATE "{template}"')
        return time.perf_counter() - started, False
    _psql(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
    _psql(f'CREATE DATABASE "{DATABASE}"')
    netbox = [str(VENV / "bin" / "netbox")]
    subprocess.run(netbox + ["migrate", "--no-input", "-v", "0"], check=True, env=env)
    _psql(f'CREATE DATABASE "{template}" TEMPLATE "{DATABASE}"')
    _psql(f"COMMENT ON DATABASE \"{template}\" IS '{label}'")
    return time.perf_counter() - started, True


def write_bundle(folder: Path) -> dict:
    """The preset's bundle, with the product's export code and the seed catalog."""
    import yaml

    from inventory.library.files import read_catalog_folder
    from planner.domain.catalog import facts_from_records
    from planner.domain.outputs.netbox_bundle import netbox_bundle
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import parse_spec

    catalog = read_catalog_folder(ROOT / "inventory" / "library" / "seed")
    facts = facts_from_records(catalog.parts)
    makers = {m["slug"]: m["name"] for m in catalog.manufacturers}
    spec = {**yaml.safe_load(PRESET.read_text()), "servers": SERVERS}
    fabric = build_fabric(parse_spec(spec), facts)
    bundle = netbox_bundle(fabric, facts, manufacturer_names=makers)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, text in bundle.files.items():
        (folder / name).write_text(text)
    per_type = Counter(
        row["device_type"] for row in csv.DictReader(io.StringIO(bundle.files["07-devices.csv"]))
    )
    interfaces = sum(
        len(document.get("interfaces") or ()) * per_type[document["model"]]
        for document in yaml.safe_load_all(bundle.files["06-device-types.yaml"])
    )
    return {"fabric": fabric, "facts": facts, "counts": bundle.counts, "interfaces": interfaces}


def run_driver(env: dict, bundle: Path, out: Path) -> dict:
    python = str(VENV / "bin" / "python")
    done = subprocess.run(
        [python, str(DRIVER), str(bundle), str(out)], env=env, capture_output=True, text=True
    )
    if done.returncode:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-8000:])
        raise SystemExit("[netbox-interop] FAILED: the NetBox driver stopped (above)")
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_round_trip(made: dict, out: Path, changed: dict) -> dict:
    """NetBox's exports through the as-built check: all in place, then exactly the changes."""
    from planner.domain.asbuilt.cabling import check_cabling
    from planner.domain.asbuilt.names import FabricNames
    from planner.domain.asbuilt.network_cables import NetworkLinks
    from planner.domain.asbuilt.parsers import parse
    from planner.domain.outputs.exports import network_elements

    fabric, facts = made["fabric"], made["facts"]
    names = FabricNames(fabric, facts)
    networks = NetworkLinks.of(network_elements(fabric, facts), fabric)
    results = {}
    for view in ("current-view", "all-data"):
        rows = parse("netbox-cables", (out / f"cables-{view}.csv").read_text())
        report = check_cabling(names, rows, whole_fabric=True, networks=networks)
        summary = report.summary
        assert not report.findings, (view, report.findings[:5])
        assert summary["links_in_place"] == fabric.link_count, summary
        for network, counts in summary["networks"].items():
            assert counts["links_in_place"] == counts["links_in_design"], (network, counts)
        rows = parse("netbox-cables", (out / f"cables-changed-{view}.csv").read_text())
        report = check_cabling(names, rows, whole_fabric=True, networks=networks)
        kinds = sorted((f["kind"], f["label"]) for f in report.findings)
        expected = sorted(
            [("missing", label) for label in changed["deleted"]]
            + [("swapped-ports", label) for label in changed["swapped"]]
        )
        assert kinds == expected, (view, kinds, expected)
        results[view] = {"rows": summary["rows"], "changed_findings": len(kinds)}
    return results


def main() -> None:
    VAR.mkdir(parents=True, exist_ok=True)
    total = time.perf_counter()
    seconds = {"install": install()}
    log(
        f"install: {seconds['install']:.1f} s"
        + (" (already installed)" if not seconds["install"] else "")
    )
    env = configure()
    seconds["migrate"], migrated = database(env, hashlib.sha256(LOCK.read_bytes()).hexdigest())
    log(
        f"migrate: {seconds['migrate']:.1f} s"
        + ("" if migrated else " (a copy of the database migrated before for this lock)")
    )
    bundle, out = VAR / "netbox-bundle", VAR / "netbox-out"
    started = time.perf_counter()
    made = write_bundle(bundle)
    seconds["bundle"] = time.perf_counter() - started
    started = time.perf_counter()
    report = run_driver(env, bundle, out)
    seconds["netbox"] = time.perf_counter() - started
    counts, expected = report["counts"], made["counts"]
    log(f"import: {report['times']['import_total_s']:.1f} s ({report['times']})")
    log(f"NetBox holds: {counts}")
    assert counts["devices"] == expected["07-devices.csv"], (counts, expected)
    assert counts["cables"] == expected["08-cables.csv"], (counts, expected)
    assert counts["device_types"] == expected["06-device-types.yaml"], (counts, expected)
    assert counts["racks"] == expected["05-racks.csv"], (counts, expected)
    assert counts["interfaces"] == made["interfaces"], (counts, made["interfaces"])
    assert report["imported_status"] == ["planned"], report["imported_status"]
    started = time.perf_counter()
    results = check_round_trip(made, out, report["changed"])
    seconds["check"] = time.perf_counter() - started
    log(f"as-built round trip: {results}; changed: {report['changed']}")
    seconds["total"] = time.perf_counter() - total
    (VAR / "netbox-times.json").write_text(
        json.dumps({"seconds": seconds, "counts": counts}, indent=1)
    )
    log("times: " + ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items()))
    log("OK")


if __name__ == "__main__":
    main()
