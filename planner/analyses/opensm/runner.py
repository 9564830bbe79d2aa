"""The real subnet manager, run once: ibsim simulates a net file, OpenSM routes it, ``dump_fts``
reads the forwarding tables back.

The tools are Debian's (``apt-get install opensm ibsim-utils libumad2sim0 infiniband-diags``:
OpenSM 3.3.23, ibsim 0.10, infiniband-diags 44 on Debian 12). OpenSM and ``dump_fts`` reach the
simulator through the ``libumad2sim`` preload (ibsim's README; ibsim's own
``scripts/run_opensm.sh`` runs them so). Each run has its own ibsim socket name and its own
temporary directory (``OSM_TMP_DIR``, ``OSM_CACHE_DIR``), so runs can overlap. Nothing here
imports Django: a job or a command calls :func:`run_opensm`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from planner.analyses.errors import JobInputError

__all__ = [
    "DEBIAN_PACKAGES",
    "ENGINES",
    "INSTALL_HINT",
    "OpenSMRun",
    "OpenSMUnavailable",
    "missing_tools",
    "run_opensm",
    "tool_paths",
]

#: The tools a run needs (executables), and the preload library.
TOOLS = ("ibsim", "opensm", "dump_fts")
UMAD2SIM_GLOB = "/usr/lib/*/umad2sim/libumad2sim.so"
#: Debian's packages of the tools (the Docker image and ``.ci/run`` install them).
DEBIAN_PACKAGES = ("opensm", "ibsim-utils", "libumad2sim0", "infiniband-diags")
INSTALL_HINT = (
    f"install Debian's packages: apt-get install {' '.join(DEBIAN_PACKAGES)} (the Docker "
    "image and CI have them)"
)
#: Upstream OpenSM's unicast routing engines that route a Clos without extra input files
#: (``lash``, ``dor``, ``torus-2QoS`` and ``file`` need a torus or a routing file): the first is
#: what our opensm.conf fragment's ``ar_updn,updn`` routes with on upstream OpenSM.
ENGINES = ("updn", "ftree", "minhop", "dfsssp", "sssp", "nue", "dnup")
#: Seconds one OpenSM sweep may take (ibsim answers every MAD over a socket).
TIMEOUT_S = 1200
_CONFIGURED = re.compile(r"(\S+) tables configured on all switches")
_VERSION = re.compile(r"OpenSM (\d[\w.]*)")


class OpenSMUnavailable(JobInputError):
    """The tools are not installed here; the message says how to install them."""


def tool_paths() -> dict[str, str | None]:
    """Each tool's path (``None`` where missing); ``umad2sim`` is the preload library."""
    found: dict[str, str | None] = {
        tool: shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/usr/bin") for tool in TOOLS
    }
    libraries = sorted(glob.glob(UMAD2SIM_GLOB))
    found["umad2sim"] = libraries[0] if libraries else None
    return found


def missing_tools() -> str:
    """``""`` when OpenSM can run here, else why not and how to install it (a sentence)."""
    missing = [name for name, path in tool_paths().items() if not path]
    if not missing:
        return ""
    names = ", ".join("libumad2sim" if name == "umad2sim" else name for name in missing)
    return f"OpenSM routing needs {names}, not installed on this server: {INSTALL_HINT}"


@dataclass(frozen=True)
class OpenSMRun:
    """One run: the engine list asked for, the engine that routed (from OpenSM's log,
    ``"<engine> tables configured on all switches"``; ``""`` when none did), the ``dump_fts``
    text, the log's last lines and the seconds the run took (ibsim's start included)."""

    engine: str
    version: str
    routed_by: str
    fts: str
    log_tail: str
    seconds: float


class _Simulator:
    """ibsim running ``net`` on a private socket in ``directory``."""

    def __init__(self, tools: dict, directory: Path, net_text: str, limits: tuple[int, ...]):
        self.tools = tools
        (directory / "net").write_text(net_text)
        self.env = {
            **os.environ,
            "IBSIM_SOCKNAME": f"fp-ibsim-{os.getpid()}-{time.monotonic_ns()}",
            "OSM_TMP_DIR": str(directory),
            "OSM_CACHE_DIR": str(directory),
        }
        nodes, switches, ports = limits
        log = directory / "ibsim.log"  # a file, not a pipe: ibsim never blocks on its output
        command = [tools["ibsim"], "-s", "-n", "-N", str(nodes), "-S", str(switches)]
        command += ["-P", str(ports), str(directory / "net")]
        with log.open("w") as out:
            self.process = subprocess.Popen(
                command, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while "Network simulator ready" not in log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"ibsim did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.02)

    def run(self, *command: str, timeout: float) -> subprocess.CompletedProcess:
        return subprocess.run(
            [self.tools[command[0]], *command[1:]],
            env={**self.env, "LD_PRELOAD": self.tools["umad2sim"]},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def run_opensm(
    net_text: str,
    *,
    engine: str = "updn",
    limits: tuple[int, int, int] = (8192, 2048, 131072),
    timeout: float = TIMEOUT_S,
) -> OpenSMRun:
    """Route the ibsim net file ``net_text`` with OpenSM's ``engine`` (an engine or a list,
    ``ar_updn,updn``), once (``opensm --once``), and dump the forwarding tables.

    ``limits`` are ibsim's most nodes, switches and ports (``-N``, ``-S``, ``-P``; its
    defaults are smaller than a large design).

    Raises
    ------
    OpenSMUnavailable
        A tool is missing (the message says how to install it).
    RuntimeError
        ibsim did not start, or OpenSM or ``dump_fts`` failed (the output's end in the message).
    """
    if problem := missing_tools():
        raise OpenSMUnavailable(problem, field="routing")
    tools = tool_paths()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fp-opensm-") as name:
        directory = Path(name)
        conf = directory / "opensm.conf"
        conf.write_text(f"routing_engine {engine}\n")
        log = directory / "opensm.log"
        sim = _Simulator(tools, directory, net_text, limits)
        try:
            done = sim.run(
                "opensm", "--once", "-F", str(conf), "-D", "0x03", "-f", str(log), timeout=timeout
            )
            text = log.read_text() if log.exists() else ""
            if done.returncode != 0:
                raise RuntimeError(f"opensm failed:\n{(done.stdout + done.stderr + text)[-2000:]}")
            fts = sim.run("dump_fts", timeout=timeout)
            if fts.returncode != 0:
                raise RuntimeError(f"dump_fts failed:\n{(fts.stdout + fts.stderr)[-2000:]}")
        finally:
            sim.close()
    configured = _CONFIGURED.findall(text)
    version = _VERSION.search(text)
    return OpenSMRun(
        engine=engine,
        version=version.group(1) if version else "",
        routed_by=configured[-1] if configured else "",
        fts=fts.stdout,
        log_tail="\n".join(text.splitlines()[-20:]),
        seconds=time.monotonic() - started,
    )
