"""The jobs' routes under a design, mounted at ``/api/planner/`` (included by
:mod:`planner.project.api_urls`): a revision's overlays, drawn from its latest jobs' results."""

from django.urls import path

from simulation.api import overlays

urlpatterns = [
    path(
        "designs/<int:design_pk>/revisions/<int:number>/overlays/",
        overlays.RevisionOverlaysView.as_view(),
        name="design-revision-overlays",
    ),
]
