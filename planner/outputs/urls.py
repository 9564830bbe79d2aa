"""Output pages of a design, under ``designs/<pk>/`` (namespace ``planner``, given by
:mod:`planner.project.design_urls`, which includes these): a revision's downloads and the
cabling re-import."""

from django.urls import path

from planner.outputs import views

urlpatterns = [
    path(
        "<int:pk>/revisions/<int:number>/outputs/",
        views.revision_outputs,
        name="revision-outputs",
    ),
    path(
        "<int:pk>/revisions/<int:number>/outputs/<str:fmt>/",
        views.revision_download,
        name="revision-download",
    ),
    path("<int:pk>/cabling/import/", views.cabling_import, name="cabling-import"),
]
