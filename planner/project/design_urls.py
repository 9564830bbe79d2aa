"""The pages under ``designs/`` (namespace ``planner``): the designs', their outputs', their
quotes' and their revisions' as-built imports', each app's routes included from it."""

from django.urls import include, path

app_name = "planner"
urlpatterns = [
    path("", include("planner.designs.urls")),
    path("", include("planner.outputs.urls")),
    path("<int:pk>/revisions/<int:number>/as-built/", include("planner.asbuilt.urls")),
    path("<int:pk>/quotes/", include("planner.quotes.urls")),
]
