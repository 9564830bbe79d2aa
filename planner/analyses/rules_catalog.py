"""The codes the fabric validator reports, each with its catalog-facts rule and default severity.

``rule`` is the number of the compatibility rule in the research notes (catalog-facts.md,
"Compatibility rules", 1-26), ``"fabric"`` for a whole-fabric check, ``"budget"`` for the
optical loss budget (:mod:`planner.domain.physical.budget`) or ``"transport"`` for the RoCE /
InfiniBand settings (:mod:`planner.domain.transport`). ``scope`` says which
pass of :func:`planner.analyses.validate.validate_fabric` runs the code:

- ``device``: per link, from the two devices alone (protocols, NIC limits, breakouts, lanes);
- ``media``: per link, from its modules, cable or fiber (needs the media columns);
- ``module``: per module or cable id (twin-port fiber pairing, breakout leg counts);
- ``fabric``: wiring of the whole fabric (rails, ports, balance, redundancy, reachability);
- ``network``: the links of the cluster's other networks (a spec's ``networks`` block:
  storage, converged, in-band, OOB), run only for a fabric that has them;
- ``roce`` / ``infiniband``: the transport's settings (rule ``transport``, issue 20), run only
  for a fabric of that transport (:mod:`planner.analyses.validate.transport`).

A code's severity can be lowered for a case whose facts are unknown: a check that cannot be
made is reported as a ``warning`` ("cannot be verified: ..."), never as an error.
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class RuleInfo:
    code: str
    rule: str
    severity: str
    scope: str
    title: str


def _rules(*rows: tuple[str, str, str, str, str]) -> dict[str, RuleInfo]:
    return {row[0]: RuleInfo(*row) for row in rows}


RULES: dict[str, RuleInfo] = _rules(
    # code, rule, default severity, scope, title
    ("finned-plug-in-flat-cage", "1", "error", "media", "finned (IHS) plug in a flat-top cage"),
    ("switch-module-in-host", "1", "error", "media", "switch-only module in a host cage"),
    ("top-unknown", "1", "warning", "media", "finned or flat-top unknown"),
    ("flat-plug-in-finned-cage", "2", "error", "media", "flat-top (RHS) plug in a finned cage"),
    ("modules-swapped", "3", "error", "media", "finned and flat-top modules swapped"),
    ("single-port-module-in-twin-cage", "4", "error", "media", "single-port module in twin cage"),
    ("host-module-in-switch", "4", "error", "media", "adapter-only module in a switch"),
    ("form-factor-mismatch", "5", "error", "media", "plug does not fit the cage"),
    ("form-factor-unknown", "5", "warning", "media", "form factor unknown"),
    ("port-speed-mismatch", "6", "error", "media", "modules share no port speed"),
    ("twin-port-pairing", "6", "error", "media", "lanes per port differ across a straight fiber"),
    ("splitter-leg-speed", "7", "error", "media", "1:2 splitter leg at the wrong speed"),
    ("splitter-mode-unsupported", "7", "error", "media", "module lacks the 4 x 200G mode"),
    ("twin-port-mixed-fibers", "8", "error", "module", "twin-port module on mixed fibers"),
    ("twin-port-fiber-parts-differ", "8", "warning", "module", "twin-port fibers differ"),
    ("twin-port-length-skew", "8", "warning", "module", "twin-port fibers of unequal length"),
    ("media-mismatch", "9", "error", "media", "MMF and SMF optics on one link"),
    ("pmd-mismatch", "9", "error", "media", "SR / DR / FR optics mixed"),
    ("wavelength-mismatch", "9", "error", "media", "wavelengths differ"),
    ("fiber-media-mismatch", "9", "error", "media", "fiber type does not suit the optics"),
    ("fiber-grade-mismatch", "9", "error", "media", "fiber grade not listed by the module"),
    ("media-unknown", "9", "warning", "media", "media of a module unknown"),
    ("polish-mismatch", "10", "error", "media", "APC and UPC connectors mated"),
    ("reach-exceeded", "11", "error", "media", "link longer than the optics reach"),
    ("reach-unknown", "11", "warning", "media", "reach unknown"),
    ("ieee-reach-exceeded", "12", "error", "media", "link longer than the IEEE reach class"),
    ("lane-rate-mismatch", "13", "error", "media", "plug lane rate differs from the cage"),
    ("optics-lane-rate-mismatch", "13", "error", "media", "lane rates differ across the link"),
    ("lane-rate-unknown", "13", "warning", "media", "lane rate unknown"),
    ("qsfp-dd-in-qsfp-cage", "14", "error", "media", "QSFP-DD plug in a QSFP cage"),
    ("plug-faster-than-cage", "14", "error", "media", "plug faster than the cage"),
    ("xdr-qsfp112", "15", "error", "media", "QSFP112 on an XDR (200G/lane) link"),
    ("xdr-multimode", "15", "error", "media", "multimode on an XDR link"),
    ("xdr-aoc", "15", "error", "media", "AOC on an XDR link"),
    ("xdr-passive-dac", "15", "error", "media", "passive DAC on an XDR link"),
    ("copper-reach-exceeded", "16", "error", "media", "copper cable longer than its reach"),
    ("protocol-mismatch", "17", "error", "media", "part does not speak the link's protocol"),
    ("optics-protocol-mismatch", "17", "error", "media", "modules share no protocol"),
    ("device-protocol-mismatch", "17", "error", "device", "devices share no protocol"),
    ("compute-nic-unknown", "17", "warning", "device", "server's compute NIC unknown"),
    ("nic-single-port-speed", "18", "error", "device", "NIC cannot run this speed on one port"),
    ("module-power-over-cage", "19", "error", "media", "module power above the cage budget"),
    ("module-power-unknown", "19", "warning", "media", "module power unknown for a budget"),
    ("power-unknown", "20", "info", "media", "power of a module or cable end unknown"),
    ("breakout-not-listed", "21", "error", "device", "switch does not list the breakout"),
    ("breakout-unverified", "21", "warning", "device", "breakout modes unknown"),
    ("module-speed-unsupported", "21", "error", "media", "module does not run the link speed"),
    ("twin-port-plug-in-single-cage", "21", "error", "media", "twin-port plug, single cage"),
    ("cable-breakout-mismatch", "21", "error", "media", "cable head/legs do not match ports"),
    ("fiber-legs-exceeded", "21", "error", "module", "more links than a cable has legs"),
    ("lane-structure-mismatch", "22", "error", "media", "lane count x rate differ"),
    ("host-port-speed", "22", "error", "device", "host port cannot run the link speed"),
    ("twin-port-vs-single-phy", "23", "error", "media", "twin-port paired with 800G PHY"),
    ("single-phy-unverified", "23", "warning", "media", "800G peer's 2 x 400G mode unknown"),
    ("connector-mismatch", "24", "error", "media", "connector families differ"),
    ("fiber-unknown", "24", "warning", "media", "fiber type or connector unknown"),
    ("lpo-host-unsupported", "25", "error", "media", "LPO module on a non-LPO host"),
    ("lpo-host-unverified", "25", "warning", "media", "LPO host validation not stated"),
    ("host-fec-mismatch", "26", "error", "media", "hosts state different FEC modes"),
    ("host-fec-unverified", "26", "warning", "media", "one host states no FEC mode"),
    ("host-fec-unstated", "26", "info", "media", "host FEC not stated (assumed RS-FEC)"),
    # whole-fabric checks
    ("media-not-assigned", "fabric", "info", "device", "fabric has no media"),
    ("media-missing", "fabric", "warning", "media", "link without modules or cable"),
    ("part-not-in-catalog", "fabric", "warning", "media", "part not in the catalog"),
    ("layout-missing", "fabric", "info", "media", "no link lengths"),
    ("cable-shorter-than-run", "fabric", "error", "media", "ordered cable shorter than run"),
    ("module-part-conflict", "fabric", "error", "module", "one module id, two parts"),
    ("rail-mismatch", "fabric", "error", "fabric", "GPU NIC not on its rail leaf"),
    ("oversubscription-above-design", "fabric", "warning", "fabric", "more oversubscribed"),
    ("oversubscription-below-design", "fabric", "info", "fabric", "less oversubscribed"),
    ("leaf-no-uplinks", "fabric", "error", "fabric", "switch without uplinks"),
    ("ecmp-unbalanced", "fabric", "warning", "fabric", "unequal links to upper switches"),
    ("ecmp-incomplete", "fabric", "warning", "fabric", "not linked to every upper switch"),
    ("port-used-twice", "fabric", "error", "fabric", "port used by two links"),
    ("port-out-of-range", "fabric", "error", "fabric", "link beyond a device's ports"),
    ("too-many-links", "fabric", "error", "fabric", "more links than ports"),
    ("ports-exceed-model", "fabric", "error", "fabric", "more ports than the model has"),
    ("dangling-link", "fabric", "error", "fabric", "link to a missing node or itself"),
    ("link-roles-mismatch", "fabric", "error", "fabric", "link tier does not match roles"),
    ("isolated-node", "fabric", "warning", "fabric", "node without links"),
    ("spof-server-single-leaf", "fabric", "warning", "fabric", "all rails on one leaf"),
    ("spof-single-uplink", "fabric", "warning", "fabric", "one upper switch only"),
    ("spof-single-spine", "fabric", "warning", "fabric", "pod or group with one switch"),
    # failure domains (planner.analyses.validate.spof; issue 24)
    ("spof-feed", "fabric", "warning", "fabric", "leaf pair on one power feed"),
    ("spof-dual-homed", "fabric", "warning", "fabric", "all uplinks on one switch"),
    ("spof-plane-rack", "fabric", "warning", "fabric", "a plane's spines in one rack"),
    ("server-ports-unconnected", "fabric", "error", "fabric", "server ports without links"),
    ("gpus-disconnected", "fabric", "error", "fabric", "GPUs not all reachable"),
    # the cluster's other networks (planner.analyses.validate.networks)
    ("network-copper-reach-exceeded", "16", "error", "network", "copper run over its reach"),
    ("network-reach-exceeded", "11", "error", "network", "network link over its reach"),
    ("network-reach-unknown", "11", "warning", "network", "network link reach unknown"),
    ("network-length-unknown", "fabric", "info", "network", "network run lengths unknown"),
    ("network-port-speed", "22", "error", "network", "switch has no port at the speed"),
    ("network-cable-speed", "21", "error", "network", "cable or module slower than link"),
    ("network-plug-cage-mismatch", "5", "error", "network", "plug does not fit switch cage"),
    ("network-plug-cage-unverified", "13", "warning", "network", "plug below rating, unstated"),
    ("network-leaf-pair", "fabric", "error", "network", "leaf pair not two switches"),
    ("network-dual-homing-single-leaf", "fabric", "error", "network", "dual-homed on one leaf"),
    ("network-dual-homing-unpaired", "fabric", "error", "network", "dual-homed, unpaired leaves"),
    ("network-dangling-link", "fabric", "error", "network", "network link to no device"),
    ("network-port-used-twice", "fabric", "error", "network", "network port used twice"),
    ("storage-read-short", "fabric", "warning", "fabric", "storage reads slower than asked"),
    # structured cabling (planner.analyses.validate.cabling; issue 19)
    ("cabling-polarity", "fabric", "error", "fabric", "polarity reversed end to end"),
    ("cabling-connector-mismatch", "fabric", "error", "fabric", "MPO-12 and MPO-16 mixed"),
    ("cabling-polish-mismatch", "fabric", "error", "fabric", "APC and UPC in one channel"),
    # transport (planner.analyses.validate.transport; issue 20): RoCE and InfiniBand
    ("pfc-headroom-exceeded", "transport", "error", "roce", "PFC headroom over the buffer"),
    ("pfc-buffer-unknown", "transport", "info", "roce", "switch buffer not in the catalog"),
    ("pfc-length-unknown", "transport", "warning", "roce", "lossless link without a length"),
    ("pfc-long-run", "transport", "info", "roce", "long lossless run at 400G or more"),
    ("pfc-headroom-unpublished", "transport", "info", "roce", "no vendor headroom table"),
    ("pfc-headroom-unlisted", "transport", "warning", "roce", "run past the headroom table"),
    ("roce-priority-mismatch", "transport", "error", "roce", "NIC and switch lossless class"),
    ("roce-cnp-mismatch", "transport", "error", "roce", "NIC and switch CNP marking differ"),
    ("roce-trust-mismatch", "transport", "error", "roce", "NIC and switch trust differ"),
    ("roce-ecn-thresholds", "transport", "error", "roce", "ECN thresholds out of order"),
    ("roce-mtu-mismatch", "transport", "error", "roce", "MTU differs along the path"),
    ("roce-pfc-watchdog-off", "transport", "warning", "roce", "PFC without its watchdog"),
    ("transport-setting-blank", "transport", "warning", "roce", "RoCE setting not known"),
    ("ar-nic-unsupported", "transport", "error", "roce", "NIC cannot do adaptive routing"),
    ("ar-on-bond", "transport", "info", "roce", "adaptive routing and bonded ports"),
    ("multiplane-mode-unsupported", "transport", "error", "roce", "NIC lacks multiplane mode"),
    ("multiplane-speed-mismatch", "transport", "error", "roce", "planes x speed is not NIC speed"),
    ("multiplane-gpu-missing", "transport", "error", "roce", "GPU not in every plane"),
    ("multiplane-single-plane", "transport", "warning", "roce", "multiplane mode, one plane"),
    ("ib-routing-engine-topology", "transport", "error", "infiniband", "engine unfit for topology"),
    ("ib-sharp-unsupported", "transport", "error", "infiniband", "SHARP on a switch without it"),
    # optical loss budget (planner.analyses.validate.loss; issue 19)
    ("optical-loss-exceeded", "budget", "error", "media", "worst-case loss over the limit"),
    ("optical-margin-low", "budget", "warning", "media", "optical margin under threshold"),
    ("optical-limit-unknown", "budget", "info", "media", "optical budget not computed"),
)


def rule_sort_key(rule: str) -> tuple[int, str]:
    """Numbered rules in order, then ``fabric``.

    Examples
    --------
    >>> sorted(["fabric", "11", "2"], key=rule_sort_key)
    ['2', '11', 'fabric']
    """
    return (int(rule), "") if rule.isdigit() else (1000, rule)


def codes_for_rule(rule: str) -> list[str]:
    """Codes reported under catalog-facts rule ``rule``.

    Examples
    --------
    >>> codes_for_rule("3")
    ['modules-swapped']
    """
    return [code for code, info in RULES.items() if info.rule == rule]


__all__ = ["RULES", "SEVERITIES", "RuleInfo", "codes_for_rule", "rule_sort_key"]
