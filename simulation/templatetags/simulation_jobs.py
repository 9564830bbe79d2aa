"""``{% design_jobs design %}``: the Analysis section of a design page (jobs of that design)."""

from django import template

from planner.analyses.flow import FLOWLETS_DEFAULT, FLOWLETS_MAX, ROUTING_LABELS, ROUTINGS
from planner.analyses.opensm import ENGINES as OPENSM_ENGINES
from planner.analyses.opensm import missing_tools
from planner.analyses.scenario import PLACEMENTS, STORAGE_TRAFFICS, TRAFFICS
from planner.analyses.storage_read import READ_NETWORKS
from planner.domain.transport import PFC_MODES
from simulation.jobs.kinds import design_transport_defaults
from simulation.jobs.parameters import SIMULATE_ONLY_ROUTINGS
from simulation.models import Job, JobKindChoices
from simulation.services import job_recover_stale
from simulation.sweep_chart import sweep_context
from simulation.views import JOB_ERROR_SESSION_KEY

register = template.Library()

SHOWN_PER_KIND = 3


#: The kinds a design page starts, in the order its "Latest results" lists them.
DESIGN_KINDS = (
    JobKindChoices.VALIDATE,
    JobKindChoices.POWER,
    JobKindChoices.SIMULATE,
    JobKindChoices.SWEEP,
    JobKindChoices.SIZE_SWEEP,
)


@register.inclusion_tag("simulation/_latest_results.html", takes_context=True)
def design_latest_results(context, design, latest=None):
    """The signed-in user's newest job of each kind on ``design``: status, its one-line
    outcome (the headline figure) or error, and a link to the result."""
    request = context.get("request")
    user = getattr(request, "user", None)
    newest = []
    if user is not None and user.is_authenticated:
        jobs = (
            Job.objects.filter(owner=user, design_revision__design=design)
            .select_related("design_revision")
            .only(
                "id",
                "kind",
                "status",
                "outcome",
                "error",
                "created",
                "finished",
                "design_revision__number",
            )
        )
        for kind in DESIGN_KINDS:
            job = jobs.filter(kind=kind).first()
            if job is not None:
                newest.append(job)
    return {"design": design, "latest": latest, "results": newest}


@register.inclusion_tag("simulation/_design_jobs.html", takes_context=True)
def design_jobs(context, design, latest=None):
    """Buttons starting validate / power / simulate / sweep jobs on ``design``'s latest
    revision, the signed-in user's recent jobs of each kind on this design (live progress,
    result links), and the newest sweep's chart."""
    request = context.get("request")
    user = getattr(request, "user", None)
    job_error = None
    session = getattr(request, "session", None)
    stored = session.get(JOB_ERROR_SESSION_KEY) if session is not None else None
    if stored and stored.get("design") == design.pk:
        job_error = session.pop(JOB_ERROR_SESSION_KEY)  # shown once, beside its form
    rows = []
    sweep = None
    if user is not None and user.is_authenticated:
        job_recover_stale()
        jobs = (
            Job.objects.filter(owner=user, design_revision__design=design)
            .select_related("design_revision")
            .defer(
                "result",
                "design_revision__topology",
                "design_revision__spec",
                "design_revision__summary",
            )
        )
        for kind in DESIGN_KINDS:
            rows.extend(jobs.filter(kind=kind)[:SHOWN_PER_KIND])
        # The newest sweep drawn as a chart (redrawn while it runs).
        newest = (
            Job.objects.filter(
                owner=user, design_revision__design=design, kind=JobKindChoices.SWEEP
            )
            .only("id", "kind", "status", "parameters", "result", "progress_done")
            .first()
        )
        if newest is not None:
            sweep = sweep_context(newest)
    transport = None
    if latest is not None:
        transport = design_transport_defaults(latest)
    opensm_off = missing_tools()
    if not opensm_off and transport is not None and transport.flow_control != "credit":
        opensm_off = "OpenSM routes InfiniBand designs; this one runs RoCE (Ethernet)"
    networks = (getattr(latest, "summary", None) or {}).get("networks") or {}
    has_storage = any(name in networks for name in READ_NETWORKS)
    return {
        "design": design,
        "latest": latest,
        "jobs": rows,
        "job_error": job_error,
        "sweep": sweep,
        "swept_traffics": [t for t in TRAFFICS if t not in STORAGE_TRAFFICS],
        "placements": PLACEMENTS,
        # storage-read only where the revision has a storage (or converged) network
        "traffics": [t for t in TRAFFICS if has_storage or t not in STORAGE_TRAFFICS],
        "routings": [
            (name, ROUTING_LABELS[name], opensm_off if name == "opensm" else "")
            for name in ROUTINGS
        ],
        "swept_routings": [
            (name, ROUTING_LABELS[name]) for name in ROUTINGS if name not in SIMULATE_ONLY_ROUTINGS
        ],
        "opensm_off": opensm_off,
        "opensm_engines": OPENSM_ENGINES,
        "design_routing": ROUTING_LABELS[transport.routing] if transport else "",
        "design_transport": transport.reason if transport else "",
        "design_flow_control": transport.flow_control if transport else "",
        "pfc_modes": PFC_MODES,
        "flowlets_default": FLOWLETS_DEFAULT,
        "flowlets_max": FLOWLETS_MAX,
        "csrf_token": context.get("csrf_token"),
        "request": request,
    }
