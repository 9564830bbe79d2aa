"""The outputs' API routes, mounted at ``/api/planner/`` (included by
:mod:`planner.project.api_urls`): a revision's bill of materials, cabling plan, exports and
telemetry plan, and the as-installed cabling import."""

from django.urls import path

from planner.outputs import api as outputs

urlpatterns = [
    path(
        "designs/<int:design_pk>/revisions/<int:number>/bom/",
        outputs.RevisionBomView.as_view(),
        name="design-revision-bom",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/cabling/",
        outputs.RevisionCablingView.as_view(),
        name="design-revision-cabling",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/exports/<str:fmt>/",
        outputs.RevisionExportView.as_view(),
        name="design-revision-export",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/telemetry/",
        outputs.RevisionTelemetryView.as_view(),
        name="design-revision-telemetry",
    ),
    path(
        "designs/<int:design_pk>/cabling/",
        outputs.DesignCablingImportView.as_view(),
        name="design-cabling-import",
    ),
]
