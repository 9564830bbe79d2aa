"""The InfiniBand exports run by the real tools: Debian's ibsim (0.10) simulates the design's
exported topology (planner.domain.outputs.ib_topology), Debian's OpenSM (3.3.23) routes it with
the routing engines of our opensm.conf fragment, and infiniband-diags reads the result back:

- ``opensm --create-config`` writes every option upstream OpenSM knows: the fragment's options
  are among them, and its engine list ends in an engine OpenSM lists;
- ``opensm --once`` on ibsim logs "<engine> tables configured on all switches" (``updn`` for
  our ``ar_updn,updn``: upstream cannot set up ``ar_updn``; ``ftree``, which needs a fat tree);
- ``dump_fts`` gives every switch's forwarding table: traced by the product's tracer
  (:mod:`planner.analyses.opensm.tables`, tested on hand-made tables in
  ``test_opensm_routing.py``), every adapter reaches every other adapter's LID, and the channel
  dependency graph of those routes has no cycle (no credit loop: Dally and Seitz's condition
  for deadlock freedom);
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

import numpy as np
import pytest
import yaml

from planner.analyses.opensm.tables import check_routes, tables_for
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
    # every switch's table traced towards every adapter (planner.analyses.opensm.tables)
    alive = np.ones(su1.link_count, dtype=bool)
    check = check_routes(su1, tables_for(su1, fts, alive, source=routed_by))
    # every linked port of a DGX (8 each) and of the UFM appliance has a LID
    assert check.adapters == host_ends == 31 * 8 + 4
    assert check.unrouted == 0, check.examples
    assert check.dependencies > 0 and check.credit_loop_links == []
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
