"""SONiC config_db exports that SONiC's own YANG models accept (issue 38.4).

The proof is the recorded run of SONiC's ``sonic_yang`` (sonic-yang-mgmt over sonic-yang-models,
libyang 3.12.2 with SONiC's patch) in ``tests/data/sonic_yang/`` (README.md: versions and
commands): the exports of the presets below, each switch loaded and validated. Here:

- the current export of each preset is byte for byte the file that run validated (sha256);
- structurally, what the run proved: every port has the lanes, alias and index of its model's
  platform table, the port references (BUFFER_PG, PORT_QOS_MAP, QUEUE, CABLE_LENGTH) and the
  named maps, schedulers and WRED profile resolve, and the buffer model is stated;
- the platform tables (``planner/domain/outputs/config/sonic_platforms``) against the catalog
  (every cage of a model named as the cabling plan names it) and, where the sonic-buildimage
  snapshot is on this machine, against the platform files themselves.

Run as a script, it writes the exports the README's command validates::

    .venv/bin/python tests/unit/test_sonic_config_db.py /tmp/sonic-exports
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script from the checkout
    sys.path.insert(0, str(ROOT))

from planner.domain.catalog import facts_from_records  # noqa: E402
from planner.domain.names import layout_of  # noqa: E402
from planner.domain.outputs.config import config_chunks  # noqa: E402
from planner.domain.outputs.config.sonic import MARK  # noqa: E402
from planner.domain.outputs.config.sonic_ports import platform_ports, platform_tables  # noqa: E402
from planner.domain.pipeline import build_fabric  # noqa: E402
from planner.domain.spec import parse_spec  # noqa: E402

FIXTURES = ROOT / "tests" / "data" / "sonic_yang"
EXAMPLES = ROOT / "planner" / "domain" / "examples"
MIRROR = Path("/work/.mirror/sonic-net+sonic-buildimage/repo")
#: (preset, servers, leaf and spine model or None): the RoCE presets on SONiC-capable
#: switches, the Clos preset on two more models (SN5640: two 400G ports per cage natively;
#: 7060X6-32PE), and one (QFX5240) whose model has no platform table, the marked case.
PRESETS = (
    ("b300-spectrum-x-twin-plane", 8, None),
    ("dell-xe9780-b300-two-plane", 8, None),
    ("clos-3to1", 16, None),
    ("clos-3to1", 16, "SN5640"),
    ("clos-3to1", 16, "7060X6-32PE"),
    ("arista-7060x6-rail", 8, None),
    ("juniper-jvd-qfx5240", 8, None),
)


def file_name(preset: str, servers: int, model: str | None) -> str:
    return f"{preset}-{servers}{'-' + model if model else ''}.json"


def export(facts, preset: str, servers: int, model: str | None) -> str:
    """The SONiC file of ``preset`` sized to ``servers`` (its switches ``model``), as the
    validated run made it."""
    spec = {**yaml.safe_load((EXAMPLES / f"{preset}.yaml").read_text()), "servers": servers}
    if model:
        spec["switches"] = {**spec.get("switches", {}), "leaf": model, "spine": model}
    fabric = build_fabric(parse_spec(spec), facts)
    return "".join(config_chunks("sonic", fabric, facts, name=preset, revision=1))


def _run_log() -> dict[str, dict]:
    """sonic_yang's recorded output, per file: sha256 and per switch OK / FAIL."""
    files: dict[str, dict] = {}
    current = None
    for line in (FIXTURES / "sonic_yang.log").read_text().splitlines():
        head = re.match(r"# file (\S+) sha256 (\w+) switches (\d+)", line)
        if head:
            current = files[head[1]] = {"sha256": head[2], "switches": int(head[3]), "ok": {}}
        elif current is not None and re.match(r"\S+: (OK|FAIL)", line):
            name, _, rest = line.partition(": ")
            current["ok"][name] = rest.startswith("OK")
    return files


@pytest.fixture(scope="module")
def exports(facts):
    return {file_name(*preset): export(facts, *preset) for preset in PRESETS}


def test_the_exports_are_the_files_sonic_yang_validated(exports):
    log = _run_log()
    assert set(log) == set(exports)
    for name, text in exports.items():
        digest = hashlib.sha256(text.encode()).hexdigest()
        assert digest == log[name]["sha256"], (
            f"{name} changed since SONiC's sonic_yang validated it: run it again "
            "(tests/data/sonic_yang/README.md) and record its output"
        )
        data = json.loads(text)
        assert set(log[name]["ok"]) == {k for k in data if k != MARK}
    for name in exports:  # every switch valid but on the QFX5240, which has no table
        assert all(log[name]["ok"].values()) != name.startswith("juniper"), name
    assert not any(log["juniper-jvd-qfx5240-8.json"]["ok"].values())


def test_the_refused_run_before_the_port_tables_is_kept():
    """The negative control: the same validator refused the export without lanes."""
    text = (FIXTURES / "sonic_yang-before.log").read_text()
    assert 'Mandatory node "lanes" instance does not exist' in text
    assert "valid 0 refused" in text


#: PORT_QOS_MAP's keys and the tables they name (sonic-port-qos-map.yang leafrefs)
MAPS = {
    "dscp_to_tc_map": "DSCP_TO_TC_MAP",
    "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
    "tc_to_queue_map": "TC_TO_QUEUE_MAP",
    "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
    "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
}


def _references(fragment: dict) -> list[tuple[str, str, dict]]:
    """(what, name, table) for every reference a fragment makes that the YANG leafrefs check."""
    ports = fragment["PORT"]
    refs = [("port", key.split("|")[0], ports) for key in fragment.get("BUFFER_PG", {})]
    refs += [("port", key.split("|")[0], ports) for key in fragment.get("QUEUE", {})]
    refs += [("port", key, ports) for key in fragment.get("PORT_QOS_MAP", {})]
    for lengths in fragment.get("CABLE_LENGTH", {}).values():
        refs += [("port", key, ports) for key in lengths]
    for queue in fragment.get("QUEUE", {}).values():
        refs.append(("scheduler", queue["scheduler"], fragment["SCHEDULER"]))
        if "wred_profile" in queue:
            refs.append(("wred", queue["wred_profile"], fragment["WRED_PROFILE"]))
    for entry in fragment.get("PORT_QOS_MAP", {}).values():
        refs += [(key, name, fragment[MAPS[key]]) for key, name in entry.items() if key in MAPS]
    return refs


def test_every_port_has_its_platforms_lanes_and_every_reference_resolves(exports):
    models = {"b300": "SN5600", "dell": "SN5600", "clos": "SN5600", "aris": "DCS-7060X6-64PE"}
    for preset in PRESETS:
        model = preset[2] or models.get(preset[0][:4])
        if model is None:
            continue
        text = exports[file_name(*preset)]
        name = file_name(*preset)
        table = platform_ports(model)
        lanes_of = {}
        for base, entry in table.interfaces.items():
            lanes_of.update(dict.fromkeys(entry["lanes"].split(","), base))
        data = json.loads(text)
        assert MARK not in data
        for fragment in data.values():
            for port, entry in fragment["PORT"].items():
                lanes = entry["lanes"].split(",")
                base = lanes_of[lanes[0]]
                parent = table.interfaces[base]
                offset = parent["lanes"].split(",").index(lanes[0])
                assert port == f"Ethernet{int(base.removeprefix('Ethernet')) + offset}"
                assert set(lanes) <= set(parent["lanes"].split(","))  # one cage's lanes
                assert entry["index"] == parent["index"].split(",")[0]
                aliases = {a for mode in parent["breakout_modes"].values() for a in mode}
                assert entry["alias"] in aliases
            for what, ref, target in _references(fragment):
                assert ref in target, f"{name}: {what} {ref} does not resolve"
            model_of = fragment["DEVICE_METADATA"]["localhost"]["buffer_model"]
            assert model_of == ("dynamic" if table.vendor == "mellanox" else "traditional")
            profiles = {pg["profile"] for pg in fragment.get("BUFFER_PG", {}).values()}
            assert profiles == ({"NULL"} if model_of == "dynamic" else set())


def test_a_model_without_a_table_is_marked(exports):
    data = json.loads(exports["juniper-jvd-qfx5240-8.json"])
    mark = data[MARK]
    assert mark["models"] == {"QFX5240-64OD": 12}
    assert mark["switches"] == sorted(k for k in data if k != MARK)
    assert "lanes" in mark["note"] and "platform.json" in mark["note"]
    leaf = data["leaf-su001-r1"]
    assert all("lanes" not in port for port in leaf["PORT"].values())
    assert leaf["DEVICE_METADATA"] == {"localhost": {"buffer_model": "traditional"}}


def test_the_intent_notes_a_model_without_a_table(facts):
    spec = yaml.safe_load((EXAMPLES / "juniper-jvd-qfx5240.yaml").read_text())
    fabric = build_fabric(parse_spec({**spec, "servers": 8}), facts)
    intent = yaml.safe_load(
        next(
            iter(
                "".join(config_chunks("intent-yaml", fabric, facts, name="j", revision=1)).split(
                    "\n---"
                )
            )
        )
    )
    notes = [n for n in intent["notes"] if "platform port table" in n]
    assert notes == [
        "SONiC config_db.json: 12 QFX5240-64OD without a SONiC platform port table in the "
        "planner: their ports carry no lanes, which SONiC requires (the file lists them under "
        f"{MARK})."
    ]


def test_every_table_names_the_catalogs_cages_as_the_cabling_plan(facts):
    """Each cage of a model, split as the catalog gives it, is the platform's port of that
    front-panel index, under the name the cabling plan gives it (PortLayout)."""
    assert len(platform_tables()) >= 10
    for model, table in platform_tables().items():
        device = facts.devices[model]
        assert "ethernet" in device.protocols, model
        first = 0  # the platform numbers the front-panel cages across the groups
        for group in device.port_groups:
            per_cage = max(1, int(group.ports_per_cage or 1))
            layout = layout_of(facts, model, per_cage)
            count, speed = int(group.count), int(group.port_speed_gbps)
            for cage in range(first + 1, first + count + 1) if group.lanes_per_port else ():
                for index in range(per_cage):
                    port = table.port(cage, index, per_cage, speed)
                    assert port is not None, (model, cage, index)
                    assert len(port.lanes.split(",")) == group.lanes_per_port, model
                    if layout.lanes_per_cage:  # one cage group: the cabling plan names it
                        assert port.name == layout.sonic(cage, index), (model, cage)
            first += count
        assert table.url.endswith(table.path) and table.commit in table.url
        assert table.grade == "datasheet"


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no sonic-buildimage snapshot on this machine")
def test_every_table_is_its_platform_file_verbatim():
    for model, table in platform_tables().items():
        raw = subprocess.run(
            ["git", "-C", str(MIRROR), "show", f"{table.commit}:{table.path}"],
            capture_output=True,
            check=True,
            text=True,
        ).stdout
        source = json.loads(raw)["interfaces"]
        assert set(source) == set(table.interfaces), model
        for name, entry in source.items():
            for key in ("index", "lanes", "breakout_modes"):
                assert table.interfaces[name][key] == entry[key], (model, name, key)


if __name__ == "__main__":
    from inventory.library.files import read_catalog_folder

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    seed = read_catalog_folder(ROOT / "inventory" / "library" / "seed").parts
    catalog = facts_from_records(seed)
    for preset in PRESETS:
        (out / file_name(*preset)).write_text(export(catalog, *preset), encoding="utf-8")
