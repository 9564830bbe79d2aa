"""Jobs pages: the list with live progress, a job and its result, and starting jobs."""

import math

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from planner.analyses.sweep import MAX_POINTS
from planner.designs.selectors import design_get_for
from simulation import presentation
from simulation.explore_page import explore_context
from simulation.jobs.kinds import KINDS
from simulation.jobs.parameters import Choice, Number
from simulation.models import Job, JobKindChoices
from simulation.services import JobError, job_cancel, job_enqueue, job_recover_stale, max_attempts
from simulation.size_sweep_chart import size_sweep_context
from simulation.sweep_chart import sweep_context
from simulation.whatif_page import whatif_context

DESIGN_KINDS = (
    JobKindChoices.VALIDATE,
    JobKindChoices.POWER,
    JobKindChoices.SIMULATE,
    JobKindChoices.SWEEP,
    JobKindChoices.SIZE_SWEEP,
)


def _finite(text: str) -> float:
    """A number as typed (``1e9``, ``2.5``); infinity and NaN are refused."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


#: The kinds whose design-page form sends each parameter as a text box or a list.
FORM_KINDS = (JobKindChoices.SIMULATE, JobKindChoices.SIZE_SWEEP)


def form_casts(kind: str) -> dict:
    """How the design page's form of ``kind`` reads each parameter's text, from the kind's
    parameters serializer (:mod:`simulation.jobs.parameters`): whole numbers as ``int``, other
    numbers as typed (``1e9``), choices as text."""
    casts = {}
    for name, field in KINDS[kind].parameters.parameter_fields().items():
        if isinstance(field, Number):
            casts[name] = int if field.whole else _finite
        elif isinstance(field, Choice):
            casts[name] = str
    return casts


#: The design page's names of the job parameters, for its error messages.
FIELD_LABELS = {
    "gpus": "GPUs",
    "switch_latency_ns": "Switch latency (ns)",
    "overhead_us": "Per-step overhead (µs)",
    "size_bytes": "Size (bytes)",
    "fail_links": "Fail links",
    "seed": "Seed",
    "seeds": "Seeds",
    "flowlets": "Flowlets",
    "pue": "PUE",
    "traffic": "Traffic",
    "rings": "Rings",
    "routing": "Routing",
    "placement": "Placement",
    "pfc_mode": "Flow control",
    "opensm_engine": "OpenSM engine",
}
#: Where the design page keeps a refused job's message until it shows it beside the form.
JOB_ERROR_SESSION_KEY = "design_job_error"


def _labelled(message: str) -> str:
    """``"gpus: a number …"`` as the form names the field: ``"GPUs: a number …"``."""
    field, sep, rest = message.partition(":")
    label = FIELD_LABELS.get(field.strip())
    text = f"{label}:{rest}" if sep and label else message
    return text if text.endswith((".", "?", "!")) else f"{text}."


def _refuse(request, design, kind: str, message: str):
    """Back to the design page's Analysis section, the message beside the form of ``kind``."""
    request.session[JOB_ERROR_SESSION_KEY] = {
        "design": design.pk,
        "kind": kind if kind in DESIGN_KINDS else "",
        "message": _labelled(message),
    }
    return redirect(f"{design.get_absolute_url()}#analysis-heading")


def _sweep_parameters(post) -> dict:
    """A sweep's parameters from the design page's form: failed links 0 to ``fail_to`` in
    steps of ``fail_step``, the routings and placements ticked, sizes listed (bytes, commas or
    spaces between). Raises ``ValueError`` with what to fix."""

    def whole(name: str, label: str, default: int) -> int:
        text = (post.get(name) or "").strip()
        try:
            return int(text) if text else default
        except ValueError:
            raise ValueError(f"{label}: a whole number.") from None

    parameters = {"traffic": post.get("traffic") or "all-reduce"}
    top, step = whole("fail_to", "Failed links up to", 0), whole("fail_step", "Step", 1)
    if top < 0 or step < 1:
        raise ValueError("Failed links: up to 0 or more, in steps of 1 or more.")
    if top // step + 1 > MAX_POINTS:
        raise ValueError(
            f"Failed links: 0 to {top:,} in steps of {step:,} is {top // step + 1:,} values; a "
            f"sweep has at most {MAX_POINTS} points."
        )
    parameters["fail_links"] = list(range(0, top + 1, step))
    sizes = (post.get("sizes") or "").replace(",", " ").split()
    try:
        parameters["size_bytes"] = [float(size) for size in sizes] or [1e9]
    except ValueError:
        raise ValueError("Message sizes: numbers of bytes such as 1e6, 1e9.") from None
    for field in ("routing", "placement"):
        chosen = [value for value in post.getlist(field) if value]
        if chosen:
            parameters[field] = chosen
    parameters["seeds"] = whole("seeds", "Seeds per point", 1)
    parameters["seed"] = whole("seed", "Seed", 0)
    return parameters


def _own_job(request, pk) -> Job:
    try:
        return Job.objects.select_related("design_revision__design").get(pk=pk, owner=request.user)
    except (Job.DoesNotExist, ValueError, ValidationError) as exc:
        raise Http404("No such job.") from exc


def _back(request, default):
    target = request.POST.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return redirect(target)
    return redirect(default)


@require_GET
def job_list(request):
    """The signed-in user's jobs, newest first, with live progress and cancel buttons."""
    job_recover_stale()
    jobs = (
        Job.objects.filter(owner=request.user)
        .select_related("design_revision__design")
        .defer(
            "result",
            "design_revision__topology",
            "design_revision__spec",
            "design_revision__summary",
        )[:200]
    )
    return render(request, "simulation/job_list.html", {"jobs": jobs})


@require_GET
def job_detail(request, pk):
    """One job: state and progress (live until it finishes), then its result."""
    job_recover_stale()
    job = _own_job(request, pk)
    context = {
        "job": job,
        # an exploration's requirements are nested: its page shows them as YAML
        "parameter_rows": []
        if job.kind == JobKindChoices.EXPLORE
        else presentation.parameter_rows(job.parameters, job.kind),
        "attempts": presentation.attempts_text(job, max_attempts()),
        **presentation.job_context(job),
    }
    if job.kind == JobKindChoices.SWEEP:
        context["sweep"] = sweep_context(job)
    if job.kind == JobKindChoices.SIZE_SWEEP:
        context["ss"] = size_sweep_context(job)
    if job.kind == JobKindChoices.WHATIF:
        context["wi"] = whatif_context(job)
    if job.kind == JobKindChoices.EXPLORE:
        context["ex"] = explore_context(job, request.GET)
    return render(request, "simulation/job_detail.html", context)


@require_GET
def job_sweep_chart(request, pk):
    """A sweep job's chart and table alone: what the job and design pages fetch again while
    its runs complete."""
    job = _own_job(request, pk)
    if job.kind != JobKindChoices.SWEEP:
        raise Http404("No such sweep.")
    return render(request, "simulation/_sweep.html", {"sweep": sweep_context(job)})


@require_POST
def job_cancel_view(request, pk):
    """Cancel a queued job or stop a running one."""
    job = job_cancel(job=_own_job(request, pk))
    messages.info(request, f"{job.get_kind_display()} job is {job.get_status_display().lower()}.")
    return _back(request, "simulation:job-list")


@require_POST
def job_diagnostics(request):
    """Start a worker-diagnostics job: proves a worker picks up work and reports back."""
    try:
        job_enqueue(
            owner=request.user,
            kind=JobKindChoices.DIAGNOSTICS,
            parameters={"echo": request.user.username},
        )
    except JobError as exc:
        messages.error(request, str(exc))
    return redirect("simulation:job-list")


@require_POST
def job_start_for_design(request, design_pk):
    """Start a validate, power or simulate job on a design's latest revision (read access
    suffices)."""
    design = design_get_for(request.user, design_pk)
    kind = request.POST.get("kind")
    if kind not in DESIGN_KINDS:
        return _refuse(
            request,
            design,
            "",
            "Choose a validation, a power budget, a flow simulation, a sweep or a message-size "
            "sweep.",
        )
    revision = design.revisions.defer("topology").order_by("-number").first()
    if revision is None:
        return _refuse(request, design, kind, "This design has no revision to work on.")
    parameters = {}
    if kind == JobKindChoices.POWER and request.POST.get("pue"):
        try:
            parameters["pue"] = _finite(request.POST["pue"])
        except ValueError:
            return _refuse(request, design, kind, "PUE: a number such as 1.3.")
    if kind == JobKindChoices.SWEEP:
        try:
            parameters = _sweep_parameters(request.POST)
        except ValueError as exc:
            return _refuse(request, design, kind, str(exc))
    fields = form_casts(kind) if kind in FORM_KINDS else None
    if fields:
        for field, cast in fields.items():
            value = (request.POST.get(field) or "").strip()
            if not value:
                continue
            try:
                parameters[field] = cast(value)
            except ValueError:
                what = "a whole number" if cast is int else "a number"
                return _refuse(request, design, kind, f"{field}: {what} (got “{value[:40]}”).")
    try:
        job = job_enqueue(
            owner=request.user, kind=kind, design_revision=revision, parameters=parameters
        )
    except JobError as exc:
        return _refuse(request, design, kind, str(exc))
    except ValidationError as exc:
        return _refuse(request, design, kind, " ".join(exc.messages))
    if job.reused:
        messages.info(
            request,
            f"Revision {revision.number} is unchanged since this {job.get_kind_display().lower()}"
            " ran (same catalog too): showing that result.",
        )
    return redirect("simulation:job-detail", pk=job.pk)
