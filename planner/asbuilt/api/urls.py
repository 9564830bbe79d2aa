"""As-built API routes, mounted at ``/api/planner/`` (included by
:mod:`planner.project.api_urls`): a revision's cabling imports and counter snapshots, under
``designs/<design>/revisions/<number>/``."""

from django.urls import path

from planner.asbuilt.api import cabling, counters

REVISION = "designs/<int:design_pk>/revisions/<int:number>/"

urlpatterns = [
    path(
        f"{REVISION}as-built/cabling/",
        cabling.RevisionCablingImportsView.as_view(),
        name="design-revision-asbuilt-cabling",
    ),
    path(
        f"{REVISION}as-built/cabling/<int:pk>/",
        cabling.RevisionCablingImportView.as_view(),
        name="design-revision-asbuilt-cabling-detail",
    ),
    path(
        f"{REVISION}as-built/cabling/<int:pk>/csv/",
        cabling.RevisionCablingImportCsvView.as_view(),
        name="design-revision-asbuilt-cabling-csv",
    ),
    path(
        f"{REVISION}as-built/overlay/",
        cabling.RevisionAsBuiltOverlayView.as_view(),
        name="design-revision-asbuilt-overlay",
    ),
    path(
        f"{REVISION}counters/",
        counters.RevisionCountersView.as_view(),
        name="design-revision-counters",
    ),
]
