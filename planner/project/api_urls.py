"""Design API routes, mounted at ``/api/planner/``; the quotes', as-built imports' and audit
log's routes there come from their apps (``planner.<app>.api.urls``)."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from planner.designs.api import canvas, optical, transport, views, wizard
from planner.designs.api import failures as failures_api
from planner.designs.api import latency as latency_api
from planner.designs.api import resilience as resilience_api
from planner.designs.api import whatif as whatif_api
from planner.outputs import api as outputs
from simulation.api import overlays

router = DefaultRouter()
router.register("designs", views.DesignViewSet, basename="design")

revisions = views.DesignRevisionViewSet.as_view({"get": "list", "post": "create"})
revision = views.DesignRevisionViewSet.as_view({"get": "retrieve"})
revision_restore = views.DesignRevisionViewSet.as_view({"post": "restore"})

urlpatterns = [
    path("summary/", views.SummaryView.as_view(), name="design-summary"),
    path("presets/", views.PresetListView.as_view(), name="design-presets"),
    path("leaf-options/", wizard.LeafOptionsView.as_view(), name="leaf-options"),
    path("designs/<int:design_pk>/revisions/", revisions, name="design-revision-list"),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/",
        revision,
        name="design-revision-detail",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/restore/",
        revision_restore,
        name="design-revision-restore",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/spec/",
        views.RevisionSpecView.as_view(),
        name="design-revision-spec",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/canvas/",
        canvas.RevisionCanvasView.as_view(),
        name="design-revision-canvas",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/topology/",
        canvas.RevisionTopologyView.as_view(),
        name="design-revision-topology",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/overlays/",
        overlays.RevisionOverlaysView.as_view(),
        name="design-revision-overlays",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/optical-budget/",
        optical.RevisionOpticalBudgetView.as_view(),
        name="design-revision-optical-budget",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/resilience/",
        resilience_api.RevisionResilienceView.as_view(),
        name="design-revision-resilience",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/latency/",
        latency_api.RevisionLatencyView.as_view(),
        name="design-revision-latency",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/what-if/",
        whatif_api.RevisionWhatIfView.as_view(),
        name="design-revision-what-if",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/failures/",
        failures_api.RevisionFailuresView.as_view(),
        name="design-revision-failures",
    ),
    path(
        "designs/<int:design_pk>/revisions/<int:number>/transport-comparison/",
        transport.RevisionTransportComparisonView.as_view(),
        name="design-revision-transport-comparison",
    ),
    path(
        "designs/<int:design_pk>/topology/",
        canvas.DesignTopologyView.as_view(),
        name="design-topology",
    ),
    path(
        "designs/<int:design_pk>/topology/preview/",
        canvas.DesignTopologyPreviewView.as_view(),
        name="design-topology-preview",
    ),
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
    path("link-options/", canvas.LinkOptionsView.as_view(), name="link-options"),
    # The apps above the designs give their own routes, under the same prefix.
    path("", include("planner.quotes.api.urls")),
    path("", include("planner.asbuilt.api.urls")),
    path("", include("planner.audit.api.urls")),
    *router.urls,
]
