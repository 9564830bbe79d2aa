"""A design spec's ``transport`` block as written: its field names and the checks that need
no catalog (a RoCE field on an InfiniBand fabric, ECN thresholds out of order).

The spec parser (:mod:`planner.domain.spec`) runs :func:`check_transport` with the other field
checks; :mod:`planner.domain.transport.resolve` fills the block's defaults from the catalog.
Nothing here imports Django.
"""

from __future__ import annotations

ROCE_FIELDS = (
    "profile",
    "lossless_priority",
    "lossless_dscp",
    "cnp_priority",
    "cnp_dscp",
    "trust",
    "ecn_min_kb",
    "ecn_max_kb",
    "pfc_mode",
    "mtu_b",
    "mtu_by_role",
    "pfc_watchdog",
    "load_balancing",
    "multiplane_mode",
    "nics",
)
IB_FIELDS = ("routing_engine", "adaptive_routing", "shield", "sharp")
NIC_FIELDS = ("profile", "data_priority", "data_dscp", "cnp_priority", "cnp_dscp", "trust")


def normalize(block) -> dict:
    """The block as a mapping (``"roce"`` -> ``{"type": "roce"}``; absent -> ``{}``)."""
    if block is None:
        return {}
    if isinstance(block, str):
        return {"type": block}
    return dict(block)


def check_transport(block) -> list[tuple[str, str]]:
    """Problems of a ``transport`` block that need no catalog (see the module docstring).

    Examples
    --------
    >>> check_transport({"type": "infiniband", "ecn_min_kb": 10})
    [('transport.ecn_min_kb', 'applies to RoCE (type roce), not to an InfiniBand fabric')]
    >>> check_transport({"ecn_min_kb": 1500, "ecn_max_kb": 150})[0][0]
    'transport.ecn_min_kb'
    """
    block = normalize(block)
    problems = []
    kind = block.get("type")
    if kind == "infiniband":
        for name in ROCE_FIELDS:
            if name in block:
                problems.append(
                    (
                        f"transport.{name}",
                        "applies to RoCE (type roce), not to an InfiniBand fabric",
                    )
                )
    if kind == "roce":
        for name in IB_FIELDS:
            if name in block:
                problems.append(
                    (
                        f"transport.{name}",
                        "applies to InfiniBand (type infiniband), not to a RoCE fabric",
                    )
                )
    low, high = block.get("ecn_min_kb"), block.get("ecn_max_kb")
    if low is not None and high is not None and low >= high:
        problems.append(
            (
                "transport.ecn_min_kb",
                f"{low:,} KB is not below ecn_max_kb ({high:,} KB): ECN marks from the "
                "minimum threshold up to the maximum",
            )
        )
    return problems
