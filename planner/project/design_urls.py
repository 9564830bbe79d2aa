"""Design pages, under ``designs/`` (namespace ``planner``)."""

from django.urls import path

from planner.asbuilt.views import cabling as asbuilt_views
from planner.designs import views
from planner.outputs import views as output_views
from planner.quotes import views as quote_views

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
    path(
        "<int:pk>/revisions/<int:number>/as-built/",
        asbuilt_views.revision_asbuilt,
        name="revision-asbuilt",
    ),
    path(
        "<int:pk>/revisions/<int:number>/as-built/<int:import_pk>/csv/",
        asbuilt_views.revision_asbuilt_csv,
        name="revision-asbuilt-csv",
    ),
    path("<int:pk>/cabling/import/", output_views.cabling_import, name="cabling-import"),
    path("<int:pk>/quotes/", quote_views.quote_list, name="quote-list"),
    path("<int:pk>/quotes/new/", quote_views.quote_new, name="quote-new"),
    path("<int:pk>/quotes/<int:quote_pk>/", quote_views.quote_detail, name="quote-detail"),
    path("<int:pk>/quotes/<int:quote_pk>/edit/", quote_views.quote_edit, name="quote-edit"),
    path("<int:pk>/quotes/<int:quote_pk>/delete/", quote_views.quote_delete, name="quote-delete"),
    path("<int:pk>/quotes/<int:quote_pk>/diff/", quote_views.quote_diff, name="quote-diff"),
    *[
        path(
            f"<int:pk>/quotes/<int:quote_pk>/{step}/",
            quote_views.quote_step,
            {"step": step},
            name=f"quote-{step}",
        )
        for step in quote_views.STEP_DONE
    ],
    path(
        "<int:pk>/quotes/<int:quote_pk>/<str:fmt>/",
        quote_views.quote_download,
        name="quote-download",
    ),
    path(
        "<int:pk>/revisions/<int:number>/spec.<str:fmt>",
        views.design_spec_download,
        name="design-spec",
    ),
]
