"""Generator matrix (issue 36 item 2): every catalog switch with every catalog GPU server.

``python -m tests.bench_matrix`` (also run by ``make bench``) builds, from the seed catalog,
every switch model as the leaf *and* spine of a small rail-optimized fabric with every GPU
server and rack-scale system, at every speed the two ends share (the server's port speed
split into 1, 2, 4 or 8 planes where its NIC lists that split), at 1:1 and 3:1. Each case
either builds through media, validation and the bill of materials, or is refused with the
physical fact at fault and its catalog source:

``breakout``
    a port cannot split to the link speed (the NIC into planes, or the switch's faster ports
    to the server link speed: no listed breakout);
``speed``
    the switch's ports are all slower than the link, or the server's compute NIC cannot run
    the link speed on one port at the leaf's protocol (ConnectX-8: 800G as XDR InfiniBand
    only);
``radix``
    too few ports at that speed for the servers, the uplinks or the ratio;
``reach`` / ``media``
    no transceiver, cable or fibre in the catalog fits both cages at that speed (``reach``:
    none reaches the run);
``unknown-ports``
    the catalog lists no data ports for the switch (a fact to add);
``validation``
    it builds but validation finds errors (the rule codes are listed).

Sizes are small on purpose (:data:`SERVERS_PER_SU` servers, or one rack-scale system, in one
SU): the test (``tests/unit/test_generator_matrix.py``) runs the whole matrix in seconds.
Results go to ``.var/bench/generator-matrix.json`` and ``.md`` (the refusal table).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from dataclasses import field as dc_field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / ".var" / "bench"
SEED = ROOT / "inventory" / "library" / "seed"

#: Servers in the one SU of each case: divisible by 2 and 3, so 1:1 and 3:1 split whole.
SERVERS_PER_SU = 6
RATIOS = (1, 3)
PLANES = (1, 2, 4, 8)
#: A media refusal names the link first (planner.domain.media.assign).
MEDIA_REFUSALS = ("server-leaf link", "leaf-spine link", "spine-core link")
FACTS = ("breakout", "speed", "radix", "reach", "media", "unknown-ports", "validation")


@dataclass
class Case:
    """One cell of the matrix and what became of it."""

    server: str
    switch: str  # leaf and spine; "*" when the server alone refuses (its NIC's planes)
    planes: int
    speed_gbps: int
    oversubscription: float
    uplink_speed_gbps: int = 0  # 0: the link speed (the matrix proper)
    status: str = "built"  # built | refused
    fact: str = ""  # one of FACTS when refused
    field: str = ""
    reason: str = ""
    source: str = ""
    switches: int = 0
    links: int = 0
    bom_lines: int = 0
    severities: dict = dc_field(default_factory=dict)
    seconds: float = 0.0


def gpu_servers(facts) -> list:
    """The catalog's GPU servers and rack-scale systems (one model per slug, no aliases)."""
    from inventory.library.vocab import GPU_SERVER_KINDS

    return [
        model
        for slug, model in sorted(facts.devices.items())
        if slug == model.slug
        and model.category == "server"
        and (model.kind in GPU_SERVER_KINDS or not model.kind)
        and model.ports
    ]


def catalog_switches(facts) -> list:
    """Every switch model of the catalog (one per slug)."""
    return [
        model
        for slug, model in sorted(facts.devices.items())
        if slug == model.slug and model.category == "switch"
    ]


def case_spec(server, switch: str, planes: int, ratio: float, uplink_gbps: int = 0) -> dict:
    """The spec of one cell: one SU of :data:`SERVERS_PER_SU` servers (one rack-scale
    system), rail-optimized, the switch as leaf and spine."""
    doc = {
        "name": f"matrix {server.slug} {switch}",
        "topology": "rail-optimized",
        "server": server.slug,
        "planes": planes,
        "oversubscription": ratio,
        "switches": {"leaf": switch, "spine": switch},
    }
    if uplink_gbps:
        doc["uplink_speed_gbps"] = uplink_gbps
    if server.is_rack_system:
        doc.update(racks=1, servers_per_su=1)
    else:
        doc.update(servers=SERVERS_PER_SU, servers_per_su=SERVERS_PER_SU)
    return doc


def _source(facts, slug: str, keys: tuple[str, ...]) -> str:
    """``grade: url or title (source id)`` of the first of ``keys`` the part's provenance
    has; ``"no source in the catalog"`` when none."""
    part = facts.parts.get(slug) or {}
    provenance, sources = part.get("provenance") or {}, part.get("sources") or {}
    for key in keys:
        entry = provenance.get(key)
        if entry:
            ref = sources.get(entry.get("source")) or {}
            where = ref.get("url") or ref.get("title") or entry.get("source")
            return f"{slug} {key}: {entry.get('grade', 'unknown')}, {where}"
    return f"{slug}: no source in the catalog for {keys[0]}"


def classify(facts, case: Case, message: str, error_field: str) -> tuple[str, str]:
    """The physical fact a refusal names and its catalog source."""
    switch = facts.devices.get(case.switch)
    server = facts.devices[case.server]
    cages = ("cage_groups.0.breakouts", "cage_groups")
    if error_field.startswith("media") or message.startswith(MEDIA_REFUSALS):
        fact = "reach" if ("reach" in message and "fits" not in message) else "media"
        ports = _source(facts, server.slug, ("compute_ports",))
        return fact, f"{_source(facts, case.switch, cages)}; {ports}"
    if error_field == "planes" and "compute NIC" in message:
        nic = (facts.parts.get(server.slug) or {}).get("compute_nic") or server.slug
        return "speed", _source(facts, nic, ("limits.0", "limits"))
    if error_field == "planes":
        return "breakout", _source(
            facts, case.server, ("compute_ports.0.breakouts", "compute_ports")
        )
    if "lists no data ports" in message:
        return "unknown-ports", _source(facts, case.switch, cages)
    if "cannot run" in message and switch is not None:
        fastest = switch.port_speed_gbps or 0
        fact = "speed" if fastest < case.speed_gbps else "breakout"
        return fact, _source(facts, case.switch, cages)
    return "radix", _source(facts, case.switch, ("cage_groups",))


def run_case(facts, case: Case, server) -> Case:
    """Build one cell through media, validation and the BOM (or record its refusal)."""
    from planner.analyses.validate import validate_fabric
    from planner.domain.catalog import CatalogLookupError
    from planner.domain.fabric import FabricError
    from planner.domain.outputs.bom import bill_of_materials
    from planner.domain.pipeline import build_fabric
    from planner.domain.spec import SpecError, parse_spec

    started = time.perf_counter()
    spec = parse_spec(
        case_spec(server, case.switch, case.planes, case.oversubscription, case.uplink_speed_gbps)
    )
    try:
        fabric = build_fabric(spec, facts)
    except FabricError as exc:
        case.status = "refused"
        case.field, case.reason = exc.field, str(exc)
        case.fact, case.source = classify(facts, case, str(exc), exc.field or "")
    except (CatalogLookupError, SpecError) as exc:  # pragma: no cover - the seed is complete
        case.status, case.fact, case.reason = "refused", "unknown-ports", str(exc)
    else:
        report = validate_fabric(fabric, facts)
        case.severities = {k: v for k, v in report.counts_by_severity.items() if v}
        case.switches = int(sum(fabric.node_role >= 2))
        case.links = fabric.link_count
        case.bom_lines = len(bill_of_materials(fabric, facts).lines)
        errors = [p for p in report.problems if p.severity == "error"]
        if errors:
            case.status, case.fact = "refused", "validation"
            case.reason = "; ".join(f"{p.code}: {p.message}" for p in errors[:3])
            case.source = "validation rules (planner/analyses/validate)"
    case.seconds = round(time.perf_counter() - started, 4)
    return case


def matrix(facts, *, switches=None, servers=None) -> list[Case]:
    """Every cell (or those of the given switch and server models)."""
    switches = switches if switches is not None else catalog_switches(facts)
    servers = servers if servers is not None else gpu_servers(facts)
    cases: list[Case] = []
    for server in servers:
        port_speed = server.port_speed_gbps
        group = server.group_at(port_speed)
        for planes in PLANES:
            speed = port_speed // planes if port_speed % planes == 0 else 0
            splits = planes == 1 or (speed and group and group.split_at(speed) == planes)
            for ratio in RATIOS:
                if not splits:  # the NIC alone refuses: one row, whatever the switch
                    if switches:
                        probe = Case(server.slug, switches[0].slug, planes, speed, ratio)
                        probe = run_case(facts, probe, server)
                        probe.switch = "*"
                        cases.append(probe)
                    continue
                for switch in switches:
                    case = Case(server.slug, switch.slug, planes, speed, ratio)
                    cases.append(run_case(facts, case, server))
    return cases


#: The free leaf shapes (issue 36 item 1) tried on every switch: (server, planes, uplink
#: speed as a multiple of the link speed, ratio): uplinks at half and twice the server link
#: speed, and a 1:2 leaf, for a 400G server and an 800G server in two 400G planes.
SHAPES = (
    ("XE9680", 1, 0.5, 1),
    ("XE9680", 1, 2, 1),
    ("XE9680", 1, 1, 0.5),
    ("DGX-B300", 2, 0.5, 1),
    ("DGX-B300", 2, 2, 1),
    ("DGX-B300", 2, 1, 0.5),
)


def shapes_matrix(facts, *, switches=None) -> list[Case]:
    """Every switch (leaf and spine) in each of :data:`SHAPES`."""
    switches = switches if switches is not None else catalog_switches(facts)
    cases = []
    for slug, planes, times, ratio in SHAPES:
        server = facts.devices[slug]
        speed = server.port_speed_gbps // planes
        up = int(speed * times) if times != 1 else 0
        for switch in switches:
            case = Case(slug, switch.slug, planes, speed, ratio, uplink_speed_gbps=up)
            cases.append(run_case(facts, case, server))
    return cases


def refusal_table(cases: list[Case], title: str = "Generator matrix") -> str:
    """The refusals as a Markdown table, with counts by fact first."""
    built = sum(case.status == "built" for case in cases)
    by_fact = Counter(case.fact for case in cases if case.status == "refused")
    lines = [
        f"# {title}",
        "",
        f"{len(cases)} cases: {built} built through media, validation and the BOM; "
        f"{len(cases) - built} refused ("
        + ", ".join(f"{fact} {by_fact[fact]}" for fact in FACTS if by_fact[fact])
        + ").",
        "",
        "| Server | Switch (leaf and spine) | Planes | Link | Uplink | Ratio | Fact | Reason "
        "| Source |",
        "|---|---|---:|---:|---:|---:|---|---|---|",
    ]
    for case in cases:
        if case.status != "refused":
            continue
        reason = case.reason.replace("|", "/").replace("\n", " ")
        if len(reason) > 300:
            reason = reason[:297] + "..."
        lines.append(
            f"| {case.server} | {case.switch} | {case.planes} | {case.speed_gbps}G | "
            f"{case.uplink_speed_gbps or case.speed_gbps}G | {case.oversubscription:g}:1 | "
            f"{case.fact} | {reason} | {case.source} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from inventory.library.files import read_catalog_folder
    from planner.domain.catalog import facts_from_records

    facts = facts_from_records(read_catalog_folder(SEED).parts)
    started = time.perf_counter()
    cases = matrix(facts)
    seconds = round(time.perf_counter() - started, 2)
    shapes = shapes_matrix(facts)
    OUT.mkdir(parents=True, exist_ok=True)
    built = sum(case.status == "built" for case in cases)
    result = {
        "cases": len(cases),
        "built": built,
        "refused": len(cases) - built,
        "refused_by_fact": dict(Counter(c.fact for c in cases if c.status == "refused")),
        "seconds": seconds,
        "servers_per_su": SERVERS_PER_SU,
        "rows": [asdict(case) for case in cases],
        "shapes": {
            "cases": len(shapes),
            "built": sum(case.status == "built" for case in shapes),
            "refused_by_fact": dict(Counter(c.fact for c in shapes if c.status == "refused")),
            "rows": [asdict(case) for case in shapes],
        },
    }
    (OUT / "generator-matrix.json").write_text(json.dumps(result, indent=1) + "\n")
    table = refusal_table(cases) + "\n" + refusal_table(shapes, "Free leaf shapes")
    (OUT / "generator-matrix.md").write_text(table)
    print(table)
    print(
        f"{len(cases)} cases in {seconds} s: {built} built, {len(cases) - built} refused "
        f"({result['refused_by_fact']}); written to {OUT / 'generator-matrix.json'} and .md"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
