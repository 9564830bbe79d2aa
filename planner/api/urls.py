"""Design API routes, mounted at ``/api/planner/``."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from planner.api import canvas, views

router = DefaultRouter()
router.register("designs", views.DesignViewSet, basename="design")

revisions = views.DesignRevisionViewSet.as_view({"get": "list", "post": "create"})
revision = views.DesignRevisionViewSet.as_view({"get": "retrieve"})
revision_restore = views.DesignRevisionViewSet.as_view({"post": "restore"})

urlpatterns = [
    path("summary/", views.SummaryView.as_view(), name="design-summary"),
    path("presets/", views.PresetListView.as_view(), name="design-presets"),
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
        canvas.RevisionOverlaysView.as_view(),
        name="design-revision-overlays",
    ),
    path(
        "designs/<int:design_pk>/topology/",
        canvas.DesignTopologyView.as_view(),
        name="design-topology",
    ),
    path("link-options/", canvas.LinkOptionsView.as_view(), name="link-options"),
    *router.urls,
]
