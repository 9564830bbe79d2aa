"""Day-0 switch configuration of a design (issue 20): per switch of the compute fabric, the
QoS/RoCE settings (or, for InfiniBand, the subnet manager's) the design needs.

Formats (:data:`CONFIG_FORMATS`):

- ``intent-yaml`` / ``intent-json``: the machine-readable intent (:mod:`.intent`), the source
  of every rendering below;
- ``nvue``: NVIDIA Cumulus Linux ``nv set`` commands (:mod:`.nvue`);
- ``sonic``: SONiC ``config_db.json`` fragments (:mod:`.sonic`);
- ``eos``: Arista EOS configuration (:mod:`.eos`);
- ``opensm``: an ``opensm.conf`` fragment for an InfiniBand fabric's subnet manager
  (:mod:`.opensm`).

One file per format, every switch in it: a multi-document YAML stream, one JSON object, and
text with one marked section per switch. One file streams with flat memory (a 100,000-GPU
fabric has thousands of switches), reads in a browser, diffs in version control and needs no
archive tool, and splitting it per switch is one ``csplit`` or ``jq`` command (each module says
which).

:func:`config_chunks` checks a format against the design before it returns: a RoCE rendering
of an InfiniBand design, the opensm fragment of a RoCE design, a semi-lossless design in SONiC
or EOS (neither has that mode), or a design none of whose switches a format can describe, is
refused with :class:`ConfigError` (``code`` and a message saying what to use instead). The
switches a format leaves out are listed in the text formats' headers and in the intent's
notes. Interface names match the cabling plan and the NetBox export (:mod:`.intent`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from planner.domain.catalog import CatalogFacts
from planner.domain.fabric import ROLE, ROLES, SWITCH_ROLES, Fabric
from planner.domain.outputs.config.eos import eos_chunks, eos_refusal
from planner.domain.outputs.config.intent import (
    FORMAT,
    FabricIntent,
    SwitchIntent,
    fabric_intent,
    intent_json_chunks,
    intent_yaml_chunks,
    layout_of,
    switch_intents,
)
from planner.domain.outputs.config.nvue import nvue_chunks, nvue_refusal
from planner.domain.outputs.config.opensm import opensm_chunks
from planner.domain.outputs.config.sonic import MARK, sonic_chunks, sonic_refusal
from planner.domain.outputs.config.sonic_ports import platform_ports
from planner.domain.outputs.config.text import safe_text

CONFIG_FORMATS = ("intent-yaml", "intent-json", "nvue", "sonic", "eos", "opensm")
#: The renderings of RoCE switches, and why each leaves a switch out.
SWITCH_FORMATS = {"nvue": nvue_refusal, "sonic": sonic_refusal, "eos": eos_refusal}
FORMAT_TITLES = {
    "nvue": "NVIDIA Cumulus NVUE",
    "sonic": "SONiC config_db.json",
    "eos": "Arista EOS",
    "opensm": "opensm.conf",
}


class ConfigError(ValueError):
    """A format that cannot describe a design; ``code`` names why."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def _model_probes(fabric: Fabric, facts: CatalogFacts) -> list[tuple[SwitchIntent, int]]:
    """One interface-less :class:`SwitchIntent` per (model, split) of the fabric's switches,
    with how many switches it stands for: what the refusal functions need, cheaply."""
    codes = [ROLE[r] for r in SWITCH_ROLES]
    nodes = np.flatnonzero(np.isin(fabric.node_role, codes))
    counts = Counter(
        (int(fabric.node_model[n]), int(fabric.node_ports_per_cage[n]), int(fabric.node_role[n]))
        for n in nodes.tolist()
    )
    probes = []
    for (model_index, per_cage, role), count in counts.items():
        model = fabric.models[model_index]
        device = facts.devices.get(model)
        probe = SwitchIntent(
            name="",
            role=ROLES[role],
            model=safe_text(model),
            manufacturer=str((facts.parts.get(model) or {}).get("manufacturer") or ""),
            protocols=tuple(device.protocols) if device is not None else (),
            layout=layout_of(facts, model, per_cage),
            mtu_b=None,
            interfaces=(),
        )
        probes.append((probe, count))
    return probes


def _left_out(probes, refusal) -> Counter:
    out: Counter = Counter()
    for probe, count in probes:
        reason = refusal(probe)
        if reason:
            out[(probe.model, reason)] += count
    return out


def skipped_switches(probes, refusal) -> list[str]:
    """``"<n> <model> (<reason>)"`` per model a format leaves out."""
    out = _left_out(probes, refusal)
    return [f"{n:,} {model} ({reason})" for (model, reason), n in sorted(out.items())]


def _port_table_gaps(probes) -> list[tuple[str, int]]:
    """(model, switches) the SONiC file describes without its platform port table."""
    out: Counter = Counter()
    for probe, count in probes:
        if not sonic_refusal(probe) and platform_ports(probe.model) is None:
            out[probe.model] += count
    return sorted(out.items())


def _port_table_notes(probes) -> list[str]:
    """One intent note per model of :func:`_port_table_gaps`."""
    return [
        f"{FORMAT_TITLES['sonic']}: {n:,} {model} without a SONiC platform port table in the "
        f"planner: their ports carry no lanes, which SONiC requires (the file lists them under "
        f"{MARK})."
        for model, n in _port_table_gaps(probes)
    ]


def config_notes(fabric: Fabric, facts: CatalogFacts) -> dict[str, str]:
    """Format -> what a download of it lacks, said beside it (nothing when complete): the SONiC
    file's switches whose model has no platform port table, so no ``lanes``."""
    gaps = _port_table_gaps(_model_probes(fabric, facts))
    if not gaps:
        return {}
    models = ", ".join(f"{n:,} {model}" for model, n in gaps)
    return {
        "sonic": (
            f"No SONiC platform port table for {models}: their ports have no lanes, which "
            "SONiC requires. Merge each port's lanes from the platform's platform.json or "
            "port_config.ini before loading; the file lists these switches at its end."
        )
    }


def _check(fmt: str, header: FabricIntent, probes) -> list[str]:
    transport = header.transport
    if fmt in SWITCH_FORMATS:
        if transport != "roce":
            raise ConfigError(
                "not-roce",
                f"This design runs InfiniBand: its switches take their settings from the subnet "
                f"manager, so there is no {FORMAT_TITLES[fmt]} configuration. Download the "
                "opensm.conf fragment or the intent.",
            )
        mode = header.settings.roce.pfc_mode
        if fmt in ("sonic", "eos") and mode == "semi-lossless":
            raise ConfigError(
                "not-supported",
                f"{FORMAT_TITLES[fmt]} has no semi-lossless mode (PFC both sends and honours "
                "pause frames): choose lossless or lossy in the design's transport settings, "
                "or download the NVUE commands or the intent.",
            )
        skipped = skipped_switches(probes, SWITCH_FORMATS[fmt])
        left_out = sum(_left_out(probes, SWITCH_FORMATS[fmt]).values())
        if probes and left_out == sum(count for _, count in probes):
            raise ConfigError(
                "no-switch",
                f"No switch of this design can be described as {FORMAT_TITLES[fmt]}: "
                + "; ".join(skipped)
                + ". Download the intent (YAML or JSON) or another switch format.",
            )
        return skipped
    if fmt == "opensm" and transport != "infiniband":
        raise ConfigError(
            "not-infiniband",
            "This design runs RoCE (Ethernet): it has no subnet manager. Download the NVUE, "
            "SONiC or EOS configuration or the intent.",
        )
    return []


def config_refusals(fabric: Fabric, facts: CatalogFacts) -> dict[str, ConfigError]:
    """The formats of :data:`CONFIG_FORMATS` that cannot describe ``fabric``, each with the
    :class:`ConfigError` :func:`config_chunks` would raise (the same check, nothing rendered).

    Notes
    -----
    An InfiniBand design has no NVUE, SONiC or EOS configuration; a RoCE one no opensm.conf.
    """
    probes = _model_probes(fabric, facts)
    header = fabric_intent(fabric, facts, name="", revision=None)
    refused: dict[str, ConfigError] = {}
    for fmt in CONFIG_FORMATS:
        try:
            _check(fmt, header, probes)
        except ConfigError as exc:
            refused[fmt] = exc
    return refused


def config_chunks(
    fmt: str,
    fabric: Fabric,
    facts: CatalogFacts,
    *,
    name: str,
    revision: int | None,
) -> Iterator[str]:
    """The body of one format (:data:`CONFIG_FORMATS`) as text chunks, checked first.

    Raises
    ------
    KeyError
        Unknown format.
    ConfigError
        The format cannot describe this design (see the module docstring).
    """
    if fmt not in CONFIG_FORMATS:
        raise KeyError(fmt)
    probes = _model_probes(fabric, facts)
    notes: list[str] = []
    header = fabric_intent(fabric, facts, name=name, revision=revision)
    skipped = _check(fmt, header, probes)
    if fmt.startswith("intent-") and header.transport == "roce":
        for other, refusal in SWITCH_FORMATS.items():
            for line in skipped_switches(probes, refusal):
                notes.append(f"{FORMAT_TITLES[other]} leaves out {line}.")
        notes.extend(_port_table_notes(probes))
        header = fabric_intent(fabric, facts, name=name, revision=revision, notes=tuple(notes))
    switches = switch_intents(fabric, facts, header.settings)
    if fmt == "intent-yaml":
        return intent_yaml_chunks(header, switches)
    if fmt == "intent-json":
        return intent_json_chunks(header, switches)
    if fmt == "opensm":
        return opensm_chunks(header, switches)
    renderer = {"nvue": nvue_chunks, "sonic": sonic_chunks, "eos": eos_chunks}[fmt]
    return renderer(header, switches, skipped)


__all__ = [
    "CONFIG_FORMATS",
    "FORMAT",
    "ConfigError",
    "config_chunks",
    "config_notes",
    "config_refusals",
    "skipped_switches",
]
