"""Design pages, under ``designs/`` (namespace ``planner``)."""

from django.urls import include, path

from planner.designs import views
from planner.outputs import views as output_views

app_name = "planner"
urlpatterns = [
    path("", views.design_list, name="design-list"),
    path("new/", views.design_new, name="design-new"),
    path("canvas/new/", views.design_canvas_new, name="design-canvas-new"),
    path("<int:pk>/", views.design_detail, name="design-detail"),
    path("<int:pk>/edit/", views.design_edit, name="design-edit"),
    path("<int:pk>/canvas/", views.design_canvas, name="design-canvas"),
    path("<int:pk>/delete/", views.design_delete, name="design-delete"),
    path("<int:pk>/share/", views.design_share, name="design-share"),
    path("<int:pk>/diff/", views.design_diff, name="design-diff"),
    path(
        "<int:pk>/revisions/<int:number>/restore/",
        views.design_restore,
        name="design-restore",
    ),
    path(
        "<int:pk>/revisions/<int:number>/outputs/",
        output_views.revision_outputs,
        name="revision-outputs",
    ),
    path(
        "<int:pk>/revisions/<int:number>/outputs/<str:fmt>/",
        output_views.revision_download,
        name="revision-download",
    ),
    path("<int:pk>/revisions/<int:number>/as-built/", include("planner.asbuilt.urls")),
    path("<int:pk>/cabling/import/", output_views.cabling_import, name="cabling-import"),
    path("<int:pk>/quotes/", include("planner.quotes.urls")),
    path(
        "<int:pk>/revisions/<int:number>/spec.<str:fmt>",
        views.design_spec_download,
        name="design-spec",
    ),
]
