"""Design pages, under ``designs/`` (namespace ``planner``, given by
:mod:`planner.project.design_urls`, which includes these)."""

from django.urls import path

from planner.designs import views

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
        "<int:pk>/revisions/<int:number>/spec.<str:fmt>",
        views.design_spec_download,
        name="design-spec",
    ),
]
