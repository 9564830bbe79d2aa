"""As-built pages, under ``designs/<pk>/revisions/<number>/as-built/`` (included by the design
pages' URLs, whose namespace ``planner`` they share)."""

from django.urls import path

from planner.asbuilt.views import cabling

urlpatterns = [
    path("", cabling.revision_asbuilt, name="revision-asbuilt"),
    path("<int:import_pk>/csv/", cabling.revision_asbuilt_csv, name="revision-asbuilt-csv"),
]
