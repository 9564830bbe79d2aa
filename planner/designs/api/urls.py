"""The designs' API routes, mounted at ``/api/planner/`` (included by
:mod:`planner.project.api_urls`): a design's revisions, spec, canvas and topology, and the
analyses computed on request (optical budget, resilience, latency, what-if, failures, transport
comparison); the wizard's summary, presets and leaf and link options. The design viewset's
router is :data:`router`, included last by the project (its API root answers ``/api/planner/``).
"""

from django.urls import path
from rest_framework.routers import DefaultRouter

from planner.designs.api import canvas, optical, transport, views, wizard
from planner.designs.api import failures as failures_api
from planner.designs.api import latency as latency_api
from planner.designs.api import resilience as resilience_api
from planner.designs.api import whatif as whatif_api

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
    path("link-options/", canvas.LinkOptionsView.as_view(), name="link-options"),
]
