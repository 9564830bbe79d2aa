"""Runs INSIDE NetBox (its own virtualenv and settings; started by ``netbox_run.py``): imports
the bundle through NetBox's own bulk-import pages, reads the counts back, marks the cables
installed, writes NetBox's own cable list exports, then changes a few cables and exports again.

Usage: ``python netbox_driver.py BUNDLE_DIR OUT_DIR`` with ``NETBOX_ROOT`` set (its
``conf/configuration.py``) and the database migrated. Prints one JSON object (counts, times,
the cables changed) on its last line. Nothing of Fabric Planner is imported here: the bundle's
files go in as a user would paste them into each *Import* page (``format`` csv or yaml).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "netbox.settings")

import django  # noqa: E402

django.setup()

from django.test.utils import setup_test_environment  # noqa: E402

setup_test_environment()  # the test client keeps each page's context (the form's errors)

from dcim.models import Cable, Device, DeviceType, Interface, Rack  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.test import Client  # noqa: E402

#: Bundle file -> NetBox's import page (the *Import* button of each object list).
IMPORT_PAGES = {
    "01-manufacturers.csv": "/dcim/manufacturers/import/",
    "02-tags.csv": "/extras/tags/import/",
    "03-sites.csv": "/dcim/sites/import/",
    "04-device-roles.csv": "/dcim/device-roles/import/",
    "05-racks.csv": "/dcim/racks/import/",
    "06-device-types.yaml": "/dcim/device-types/import/",
    "07-devices.csv": "/dcim/devices/import/",
    "08-cables.csv": "/dcim/cables/import/",
}
#: How many cables the driver deletes and swaps after the first export.
DELETED, SWAPPED_PAIRS = 3, 1


def _import(client: Client, name: str, text: str) -> float:
    """POST one file to its import page; a refusal (the page again, with errors) stops all."""
    started = time.perf_counter()
    fmt = "yaml" if name.endswith(".yaml") else "csv"
    response = client.post(
        IMPORT_PAGES[name], {"data": text, "format": fmt, "csv_delimiter": ","}, follow=False
    )
    elapsed = time.perf_counter() - started
    if response.status_code != 302:
        form = response.context.get("form") if response.context else None
        errors = form.errors.as_text()[:4000] if form is not None else response.content[:2000]
        raise SystemExit(f"NetBox refused {name} (HTTP {response.status_code}):\n{errors}")
    return elapsed


def _export(client: Client, query: str) -> str:
    response = client.get(f"/dcim/cables/?{query}")
    if response.status_code != 200:
        raise SystemExit(f"cable export {query}: HTTP {response.status_code}")
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8")


def _counts() -> dict:
    return {
        "device_types": DeviceType.objects.count(),
        "racks": Rack.objects.count(),
        "devices": Device.objects.count(),
        "interfaces": Interface.objects.count(),
        "cables": Cable.objects.count(),
    }


def _change_cables() -> dict:
    """Delete a few compute cables and cross two on one leaf (their leaf ports swapped, the
    labels kept), as an installer might."""
    compute = list(Cable.objects.filter(tags__slug="compute").order_by("pk")[:200])
    gone = compute[:DELETED]
    changed = {"deleted": [c.label for c in gone], "swapped": []}
    for cable in gone:
        cable.delete()
    first = compute[10]
    leaf = first.b_terminations[0].device
    second = next(c for c in compute[11:] if c.b_terminations[0].device == leaf)
    crossed = (
        (first, list(first.a_terminations), list(second.b_terminations)),
        (second, list(second.a_terminations), list(first.b_terminations)),
    )
    tags = list(first.tags.all())
    changed["swapped"] = [first.label, second.label]
    first.delete()
    second.delete()
    for old, a, b in crossed:
        cable = Cable(
            a_terminations=a, b_terminations=b, status="connected", label=old.label, type=old.type
        )
        cable.save()
        cable.tags.set(tags)
    return changed


def main(bundle: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    user, _ = get_user_model().objects.get_or_create(
        username="interop", defaults={"is_superuser": True}
    )
    client = Client()
    client.force_login(user)
    times = {}
    started = time.perf_counter()
    for name in IMPORT_PAGES:
        times[name] = round(_import(client, name, (bundle / name).read_text()), 2)
    times["import_total_s"] = round(time.perf_counter() - started, 2)
    counts = _counts()
    statuses = sorted(set(Cable.objects.values_list("status", flat=True)))
    Cable.objects.update(status="connected")  # the installer marks every cable in place
    (out / "cables-current-view.csv").write_text(_export(client, "export=table"))
    (out / "cables-all-data.csv").write_text(_export(client, "export"))
    changed = _change_cables()
    (out / "cables-changed-current-view.csv").write_text(_export(client, "export=table"))
    (out / "cables-changed-all-data.csv").write_text(_export(client, "export"))
    report = {"counts": counts, "imported_status": statuses, "times": times, "changed": changed}
    print(json.dumps(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
