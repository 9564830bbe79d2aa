"""Jobs pages."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from simulation.models import Job, JobKindChoices
from simulation.services import job_enqueue


def job_list(request):
    """The signed-in user's jobs, newest first, with live progress."""
    jobs = Job.objects.filter(owner=request.user)[:200]
    return render(request, "simulation/job_list.html", {"jobs": jobs})


@require_POST
def job_diagnostics(request):
    """Start a worker-diagnostics job: proves a worker picks up work and reports back."""
    job_enqueue(
        owner=request.user,
        kind=JobKindChoices.DIAGNOSTICS,
        parameters={"echo": request.user.username},
    )
    return redirect("simulation:job-list")
