"""The InfiniBand exports run by the real tools: Debian's ibsim (0.10) simulates the design's
exported topology (planner.domain.outputs.ib_topology), Debian's OpenSM (3.3.23) routes it with
the routing engines of our opensm.conf fragment, and infiniband-diags reads the result back:

- ``opensm --create-config`` writes every option upstream OpenSM knows: the fragment's options
  are among them, and its engine list ends in an engine OpenSM lists;
- ``opensm --once`` on ibsim logs "<engine> tables configured on all switches" (``updn`` for
  our ``ar_updn,updn``: upstream cannot set up ``ar_updn``; ``ftree``, which needs a fat tree);
- ``dump_fts`` gives every switch's forwarding table: traced here, every adapter reaches every
  other adapter's LID, and the channel dependency graph of those routes has no cycle (no
  credit loop: Dally and Seitz's condition for deadlock freedom);
- ``ibnetdiscover`` of the simulated fabric, read by the as-built check, finds every cable in
  place (Debian's ibsim 0.10 parses no rate past FDR, so it runs NDR links at SDR: the speed
  findings are the simulator's, and are counted apart).

Without the tools these tests skip, except in CI (``CI`` set), where ``.ci/run`` installs
``opensm infiniband-diags ibsim-utils libumad2sim0`` and a missing tool fails.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import networkx as nx
import pytest
import yaml

from planner.domain.asbuilt.cabling import check_cabling
from planner.domain.asbuilt.names import FabricNames
from planner.domain.asbuilt.parsers import parse
from planner.domain.outputs.config import config_chunks
from planner.domain.outputs.config.opensm import UPSTREAM_ENGINES, UPSTREAM_OPTIONS
from planner.domain.outputs.ib_topology import ib_topology_lines
from planner.domain.pipeline import build_fabric
from planner.domain.spec import parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "planner" / "domain" / "examples"
UMAD2SIM = Path("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
TOOLS = ("ibsim", "opensm", "dump_fts", "ibnetdiscover")


def _tools() -> dict[str, str]:
    found = {tool: shutil.which(tool) or shutil.which(tool, path="/usr/sbin") for tool in TOOLS}
    missing = [tool for tool, path in found.items() if not path]
    if not UMAD2SIM.exists():
        missing.append(str(UMAD2SIM))
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(missing)} missing in CI (.ci/run installs them)")
        pytest.skip(
            f"{', '.join(missing)} not installed (apt-get install opensm infiniband-diags "
            "ibsim-utils libumad2sim0); CI runs this check"
        )
    return found


@pytest.fixture(scope="module")
def su1(facts):
    """The 1 SU DGX H100 SuperPOD on Quantum-2 (NDR) switches."""
    spec = yaml.safe_load((EXAMPLES / "h100-superpod-1su.yaml").read_text())
    return build_fabric(parse_spec(spec), facts)


def _opensm_conf(fabric, facts) -> str:
    return "".join(config_chunks("opensm", fabric, facts, name="1 SU", revision=1))


def test_fragment_options_are_upstream_opensm_options(su1, facts, tmp_path):
    tools = _tools()
    created = tmp_path / "created.conf"
    subprocess.run([tools["opensm"], "--create-config", str(created)], capture_output=True)
    known = {
        line.split()[0]
        for line in created.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert "routing_engine" in known and len(known) > 100
    assert set(UPSTREAM_OPTIONS) <= known
    engines = re.search(r"# Supported engines: ([^\n]+)\n#\s+([^\n]+)", created.read_text())
    listed = {e.strip() for e in f"{engines[1]},{engines[2]}".split(",")} - {""}
    assert set(UPSTREAM_ENGINES) == listed
    for line in _opensm_conf(su1, facts).splitlines():
        if line and not line.startswith("#"):
            key, value = line.split(None, 1)
            assert key in known, line
            if key == "routing_engine":
                assert value.split(",")[-1] in listed


# --- ibsim + OpenSM ---------------------------------------------------------------------------


class Simulated:
    """ibsim running ``net`` on a private socket, and the diagnostics run against it."""

    def __init__(self, tools, directory: Path, net: str):
        self.tools = tools
        self.dir = directory
        (directory / "net").write_text(net)
        self.env = {
            **os.environ,
            "IBSIM_SOCKNAME": f"fp-ibsim-{os.getpid()}-{time.monotonic_ns()}",
            "OSM_TMP_DIR": str(directory),
            "OSM_CACHE_DIR": str(directory),
        }
        log = directory / "ibsim.log"  # a file, not a pipe: ibsim never blocks on its output
        with log.open("w") as out:
            self.process = subprocess.Popen(
                [tools["ibsim"], "-s", "-n", str(directory / "net")],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 30
        while "Network simulator ready" not in log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise AssertionError(f"ibsim did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.02)

    def run(self, *command: str, timeout: float = 60) -> str:
        done = subprocess.run(
            [self.tools[command[0]], *command[1:]],
            env={**self.env, "LD_PRELOAD": str(UMAD2SIM)},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=10)


_TABLE = re.compile(r"^Unicast lids .* guid 0x([0-9a-f]+) \(")
_ENTRY = re.compile(r"^0x([0-9a-f]+) (\d+) : \((Switch|Channel Adapter) portguid \S+ '([^']*)'\)")


def forwarding_tables(text: str) -> tuple[dict[str, dict[int, int]], dict[int, str]]:
    """``dump_fts`` output: ``{switch id: {lid: out port}}`` and ``{lid: description}`` of the
    adapters (switch ids as the topology file writes them, ``S-<guid>``)."""
    tables: dict[str, dict[int, int]] = {}
    adapters: dict[int, str] = {}
    current = None
    for line in text.splitlines():
        if match := _TABLE.match(line):
            current = tables.setdefault(f"S-{int(match.group(1), 16):016x}", {})
        elif (match := _ENTRY.match(line)) and current is not None:
            lid = int(match.group(1), 16)
            current[lid] = int(match.group(2))
            if match.group(3) == "Channel Adapter":
                adapters[lid] = match.group(4)
    return tables, adapters


_NODE = re.compile(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"\s*#\s*"([^"]*)"')
_PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([^"]+)"\[(\d+)\]')


def topology(text: str) -> tuple[dict[tuple[str, int], tuple[str, int]], dict[str, str]]:
    """The exported topology: ``{(id, port): (peer id, peer port)}`` and ``{description: id}``."""
    wires: dict[tuple[str, int], tuple[str, int]] = {}
    ids: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if match := _NODE.match(line):
            current = match.group(2)
            ids[match.group(3)] = current
        elif match := _PORT.match(line):
            wires[(current, int(match.group(1)))] = (match.group(2), int(match.group(3)))
    return wires, ids


def trace_routes(net: str, fts: str) -> tuple[list[str], nx.DiGraph]:
    """Follow every switch's forwarding entry towards every adapter LID.

    Returns the problems (an adapter a switch cannot reach: no entry, a dead end, a loop, the
    wrong adapter) and the channel dependency graph (an edge from each switch-to-switch hop to
    the next hop a route takes after it)."""
    wires, ids = topology(net)
    tables, adapters = forwarding_tables(fts)
    problems: list[str] = []
    dependencies = nx.DiGraph()
    for lid, description in adapters.items():
        target = ids[description]
        for start in tables:
            switch, previous, hops = start, None, 0
            while True:
                out = tables[switch].get(lid, 0)
                peer = wires.get((switch, out))
                if not out or peer is None:
                    problems.append(f"{switch}: no route to lid {lid} ({description})")
                    break
                channel = (switch, out)
                if previous is not None:
                    dependencies.add_edge(previous, channel)
                if not peer[0].startswith("S-"):
                    if peer[0] != target:
                        problems.append(f"{switch}: lid {lid} leads to {peer[0]}, not {target}")
                    break
                switch, previous, hops = peer[0], channel, hops + 1
                if hops > len(tables):
                    problems.append(f"{start}: a forwarding loop towards lid {lid}")
                    break
    return problems, dependencies


@pytest.mark.parametrize(("engine", "routed_by"), [("from-fragment", "updn"), ("ftree", "ftree")])
def test_opensm_on_ibsim_routes_every_adapter_without_credit_loops(
    su1, facts, tmp_path, engine, routed_by
):
    tools = _tools()
    net = "".join(ib_topology_lines(su1, name="1 SU", revision=1))
    conf = tmp_path / "opensm.conf"
    fragment = _opensm_conf(su1, facts)
    conf.write_text(fragment if engine == "from-fragment" else f"routing_engine {engine}\n")
    assert "\nrouting_engine ar_updn,updn\n" in fragment
    sim = Simulated(tools, tmp_path, net)
    try:
        log = tmp_path / "opensm.log"
        sim.run("opensm", "--once", "-F", str(conf), "-D", "0x03", "-f", str(log))
        text = log.read_text()
        assert f"{routed_by} tables configured on all switches" in text, text[-2000:]
        fts = sim.run("dump_fts")
        discovered = sim.run("ibnetdiscover")
    finally:
        sim.close()
    roles = su1.node_role
    host_ends = int((roles[su1.link_a] < 2).sum() + (roles[su1.link_b] < 2).sum())
    adapters = forwarding_tables(fts)[1]
    # every linked port of a DGX (8 each) and of the UFM appliance has a LID
    assert len(adapters) == host_ends == 31 * 8 + 4
    problems, dependencies = trace_routes(net, fts)
    assert problems == []
    assert dependencies.number_of_edges() > 0
    assert nx.is_directed_acyclic_graph(dependencies), nx.find_cycle(dependencies)
    # the simulated fabric, discovered by the real ibnetdiscover, is the design's cabling
    report = check_cabling(
        FabricNames(su1, facts), parse("ibnetdiscover", discovered), whole_fabric=True
    )
    counts = report.summary["counts"]
    # every cable where the design has it; ibsim 0.10 runs NDR at SDR (10 Gb/s on 4 lanes)
    assert report.summary["links_in_place"] + counts["wrong-speed"] == su1.link_count
    assert {kind: n for kind, n in counts.items() if kind != "wrong-speed"} == dict.fromkeys(
        ("missing", "unexpected", "swapped-ports", "wrong-rail", "wrong-plane"), 0
    )


def test_the_route_tracer_finds_loops_dead_ends_and_credit_loops():
    r"""A ring of three switches, one adapter on each (no tools needed)::

    [H1]--[S1]--[S2]--[H2]
            \   /
             [S3]--[H3]
    """

    def s(n: int) -> str:
        return f'"S-{n:016x}"'

    net = (
        f'Switch\t3 {s(1)}\t# "s1"\n[1]\t"H-1"[1]\n[2]\t{s(2)}[2]\n[3]\t{s(3)}[3]\n\n'
        f'Switch\t3 {s(2)}\t# "s2"\n[1]\t"H-2"[1]\n[2]\t{s(1)}[2]\n[3]\t{s(3)}[2]\n\n'
        f'Switch\t3 {s(3)}\t# "s3"\n[1]\t"H-3"[1]\n[2]\t{s(2)}[3]\n[3]\t{s(1)}[3]\n\n'
        + "".join(f'Ca\t1 "H-{n}"\t# "h{n}"\n[1]\t{s(n)}[1]\n\n' for n in (1, 2, 3))
    )

    def fts(entries: dict[int, dict[int, int]]) -> str:
        lines = []
        for switch, table in entries.items():
            lines.append(f"Unicast lids [0x0-0x3] of switch DR path slid 0; guid 0x{switch:x} (x):")
            for lid, port in table.items():
                lines.append(f"0x{lid:04x} {port:03d} : (Channel Adapter portguid 0x9: 'h{lid}')")
        return "\n".join(lines)

    shortest = {1: {1: 1, 2: 2, 3: 3}, 2: {1: 2, 2: 1, 3: 3}, 3: {1: 3, 2: 2, 3: 1}}
    problems, dependencies = trace_routes(net, fts(shortest))
    assert problems == [] and nx.is_directed_acyclic_graph(dependencies)
    looped = {**shortest, 2: {1: 2, 2: 2, 3: 3}}  # S2 sends lid 2 back to S1
    assert any("loop" in p for p in trace_routes(net, fts(looped))[0])
    dead = {**shortest, 1: {1: 1, 3: 3}}  # S1 has no entry for lid 2
    assert any("no route to lid 2" in p for p in trace_routes(net, fts(dead))[0])
    bounced = {**shortest, 3: {1: 3, 2: 2, 3: 3}}  # S3 sends lid 3 to S1, which sends it back
    assert any("loop" in p for p in trace_routes(net, fts(bounced))[0])
    astray = {**shortest, 1: {1: 1, 2: 2, 3: 1}}  # S1 delivers lid 3 to H1
    assert any("not H-3" in p for p in trace_routes(net, fts(astray))[0])
    # every remote route turns the same way round the ring S1 -> S2 -> S3 -> S1: credit loop
    ring = {1: {1: 1, 2: 2, 3: 2}, 2: {1: 3, 2: 1, 3: 3}, 3: {1: 3, 2: 3, 3: 1}}
    problems, dependencies = trace_routes(net, fts(ring))
    assert problems == [] and not nx.is_directed_acyclic_graph(dependencies)
