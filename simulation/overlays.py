"""Canvas overlays: what the jobs run on a revision found (problems, rack power, link
utilization), drawn on that revision or, when it has none, an earlier one's."""

from __future__ import annotations

from planner.designs.adapters import (
    fabric_unpack,
)
from planner.designs.models import Design
from planner.designs.selectors import SHARED, revision_get
from planner.teams.models import TeamMembership
from simulation.models import Job, JobStatusChoices


def _readers(design: Design) -> set[int]:
    readers = {design.owner_id}
    if design.team_id is not None and design.sharing in SHARED:
        readers |= set(
            TeamMembership.objects.filter(team_id=design.team_id).values_list("user_id", flat=True)
        )
    return readers


#: Which job kind fills each overlay (the canvas names them this way).
OVERLAY_KINDS = {"problems": "validate", "power": "power", "util": "simulate"}


def _link_keys(revision) -> list[tuple] | None:
    """``(a name, a port, b name, b port)`` per link of ``revision``'s stored fabric (both ends
    sorted, so a link keeps its key when drawn the other way)."""

    if not revision.topology:
        return None
    fabric = fabric_unpack(revision.topology)
    names = fabric.node_name
    return [
        tuple(sorted([(names[a], pa), (names[b], pb)]))
        for a, pa, b, pb in zip(
            fabric.link_a.tolist(),
            fabric.link_a_port.tolist(),
            fabric.link_b.tolist(),
            fabric.link_b_port.tolist(),
            strict=True,
        )
    ]


def _map_link_ids(overlays: dict, source, target) -> dict:
    """Overlays of revision ``source`` on revision ``target``'s elements: a ``link:<i>`` becomes
    the link between the same device ports in ``target`` (dropped when there is none);
    devices and racks keep their names. ``unmatched_links`` counts the links dropped."""
    old, new = _link_keys(source) or [], _link_keys(target) or []
    where = {key: i for i, key in enumerate(new)}
    dropped = 0

    def mapped(element_id):
        nonlocal dropped
        kind, _, rest = str(element_id).partition(":")
        if kind != "link":
            return element_id
        try:
            index = where.get(old[int(rest)])
        except (ValueError, IndexError):
            index = None
        if index is None:
            dropped += 1
            return None
        return f"link:{index}"

    links = {}
    for key, value in overlays["links"].items():
        if (target_id := mapped(key)) is not None:
            links[target_id] = value
    problems = []
    for problem in overlays["problems"]:
        ids = [m for m in (mapped(i) for i in problem.get("element_ids") or []) if m is not None]
        problems.append({**problem, "element_ids": ids})
    return {**overlays, "links": links, "problems": problems, "unmatched_links": dropped}


def revision_overlays_older(design: Design, number: int) -> dict:
    """The newest revision before ``number`` with a succeeded job of each overlay kind, read by
    someone who may read ``design``: ``{"util": 1, ...}`` (kinds without one left out)."""
    older: dict[str, int] = {}
    rows = Job.objects.filter(
        status=JobStatusChoices.SUCCEEDED,
        parameters__design=design.pk,
        parameters__revision__lt=int(number),
        owner_id__in=_readers(design),
    ).values_list("kind", "parameters")
    for kind, parameters in rows:
        for overlay, job_kind in OVERLAY_KINDS.items():
            if kind == job_kind:
                revision = int((parameters or {}).get("revision") or 0)
                older[overlay] = max(older.get(overlay, 0), revision)
    return {k: v for k, v in older.items() if v > 0}


def revision_overlays_from(design: Design, number: int, source: int) -> dict:
    """Revision ``source``'s overlays (an older revision's) drawn on revision ``number``: links
    matched by their device ports (see :func:`_map_link_ids`); ``source_revision`` says whose
    they are."""
    overlays = revision_overlays(design, source)
    if int(source) != int(number):
        overlays = _map_link_ids(
            overlays, revision_get(design, source), revision_get(design, number)
        )
    return {**overlays, "source_revision": int(source)}


def revision_overlays(design: Design, number: int) -> dict:
    """What jobs found about revision ``number`` of ``design``, for the canvas overlays.

    Jobs (``simulation.Job``) whose ``parameters`` hold ``{"design": <id>, "revision": <n>}``,
    that SUCCEEDED, owned by someone who may read the design, newest first. The job kinds
    (validate, power, simulate) fill their ``result`` with any of these keys:

    - ``problems``: ``[{code, message, element_ids, severity}]`` (as
      :func:`planner.domain.canvas.violation_dict`; ids ``node:<name>``, ``link:<i>``);
    - ``racks``: ``[{rack, power_w, limit_w}]`` (rack name, drawn power, limit or null);
    - ``link_utilization``: ``{"link:<i>": utilization 0..1}``.

    Returns ``{"problems": [...], "racks": [...], "links": {...}, "jobs": [{id, kind,
    finished}]}``: the problems of the newest job of each kind that reports problems, the
    racks of the newest job that reports racks, and the utilization of the newest job that
    reports it; empty lists and dict when there is none.
    """
    jobs = Job.objects.filter(
        status=JobStatusChoices.SUCCEEDED,
        parameters__design=design.pk,
        parameters__revision=int(number),
        owner_id__in=_readers(design),
    ).order_by("-finished", "-created")
    problems: list = []
    racks: list | None = None
    links: dict | None = None
    used = []
    kinds_with_problems: set[str] = set()
    for job in jobs.only("id", "kind", "result", "finished"):
        result = job.result if isinstance(job.result, dict) else {}
        took = False
        if isinstance(result.get("problems"), list) and job.kind not in kinds_with_problems:
            kinds_with_problems.add(job.kind)
            problems += [p for p in result["problems"] if isinstance(p, dict)]
            took = True
        if racks is None and isinstance(result.get("racks"), list):
            racks = [r for r in result["racks"] if isinstance(r, dict)]
            took = True
        if links is None and isinstance(result.get("link_utilization"), dict):
            links = result["link_utilization"]
            took = True
        if took:
            finished = job.finished.isoformat() if job.finished else None
            used.append({"id": str(job.id), "kind": job.kind, "finished": finished})
    return {"problems": problems, "racks": racks or [], "links": links or {}, "jobs": used}


def revision_utilization(design, number: int) -> dict:
    """The per-tier load (``{tier: {mean, max}}``, 0..1) of the newest succeeded flow
    simulation of revision ``number``, run by someone who may read the design; ``{}`` when none
    (the telemetry plan's expected throughput)."""
    jobs = Job.objects.filter(
        status=JobStatusChoices.SUCCEEDED,
        parameters__design=design.pk,
        parameters__revision=int(number),
        owner_id__in=_readers(design),
    ).order_by("-finished", "-created")
    for job in jobs.only("result")[:20]:
        result = job.result if isinstance(job.result, dict) else {}
        load = result.get("per_tier_load")
        if isinstance(load, dict) and load:
            return {
                str(tier): {
                    "mean": row.get("mean_utilization"),
                    "max": row.get("max_utilization"),
                }
                for tier, row in load.items()
                if isinstance(row, dict)
            }
    return {}
