"""The API routes mounted at ``/api/planner/``: each app gives its own (``<app>.api.urls``),
the designs' router last (its API root answers ``/api/planner/`` itself)."""

from django.urls import include, path

from planner.designs.api.urls import router as designs_router

urlpatterns = [
    path("", include("planner.designs.api.urls")),
    path("", include("planner.outputs.api_urls")),
    path("", include("simulation.api.design_urls")),
    path("", include("planner.quotes.api.urls")),
    path("", include("planner.asbuilt.api.urls")),
    path("", include("planner.audit.api.urls")),
    *designs_router.urls,
]
