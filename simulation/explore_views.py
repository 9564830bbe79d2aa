"""Exploration pages: the wizard (``/explore/``), a candidate's page, and opening a candidate
as a new design. The result itself is on the job's page (:func:`simulation.views.job_detail`).
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from planner.designs.services import DesignError
from simulation.explore import (
    ExploreError,
    candidate_document,
    explore_open_design,
    result_candidate,
)
from simulation.explore_page import candidate_context
from simulation.explore_wizard import ExploreForm, FieldProblem
from simulation.jobs.parameters import requirement_problems
from simulation.models import Job, JobKindChoices
from simulation.services import JobError, job_enqueue
from simulation.views import _own_job


def _recent(user):
    return (
        Job.objects.filter(owner=user, kind=JobKindChoices.EXPLORE)
        .only("id", "status", "outcome", "created", "parameters", "progress_done", "progress_total")
        .order_by("-created")[:5]
    )


@require_http_methods(["GET", "POST"])
def explore_wizard(request):
    """The requirements as a form (or YAML/JSON pasted or uploaded); a valid one starts an
    exploration and shows its job page, a refused one comes back with each problem next to its
    field."""
    if request.method == "GET":
        form = ExploreForm(user=request.user)
        return render(request, "simulation/explore_wizard.html", _wizard(form, request))
    form = ExploreForm(request.POST, request.FILES, user=request.user)
    if form.is_valid():
        try:
            document = form.document()
            job = job_enqueue(owner=request.user, kind=JobKindChoices.EXPLORE, parameters=document)
        except FieldProblem as exc:
            form.add_error(exc.field, "; ".join(requirement_problems(exc.problems)))
        except ValidationError as exc:
            form.add_problems(exc.message_dict.get("parameters") or exc.messages)
        except JobError as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("simulation:job-detail", pk=job.pk)
    return render(request, "simulation/explore_wizard.html", _wizard(form, request), status=400)


def _wizard(form, request) -> dict:
    return {"form": form, "recent": _recent(request.user)}


def _explore_job(request, pk) -> Job:
    return _own_job(request, pk)


@require_GET
def explore_candidate(request, pk, index):
    """One candidate of a finished exploration: its choices, figures, limits, why it is where
    it is, its design spec, and the button that opens it as a design."""
    job = _explore_job(request, pk)
    try:
        candidate = result_candidate(job, index)
    except ExploreError as exc:
        messages.error(request, exc.message[:1].upper() + exc.message[1:] + ".")
        return redirect("simulation:job-detail", pk=job.pk)
    try:
        document = candidate_document(job, index)
        gone = ""
    except ExploreError as exc:
        document, gone = None, exc.message
    context = {"job": job, "gone": gone, **candidate_context(job, candidate, document)}
    return render(request, "simulation/explore_candidate.html", context)


@require_POST
def explore_candidate_open(request, pk, index):
    """A new design of the signed-in user from the candidate; its page next."""
    job = _explore_job(request, pk)
    try:
        design = explore_open_design(job=job, index=index, owner=request.user)
    except ExploreError as exc:
        messages.error(request, exc.message[:1].upper() + exc.message[1:] + ".")
        return redirect("simulation:job-detail", pk=job.pk)
    except DesignError as exc:
        messages.error(request, f"The candidate cannot be built as a design: {exc}.")
        return redirect("explore:candidate", pk=job.pk, index=index)
    messages.success(request, f"Design “{design.name}” created from candidate {index}.")
    return redirect(design.get_absolute_url())
