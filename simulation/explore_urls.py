"""Exploration pages, under ``explore/`` (namespace ``explore``)."""

from django.urls import path

from simulation import explore_views

app_name = "explore"
urlpatterns = [
    path("", explore_views.explore_wizard, name="wizard"),
    path(
        "<str:pk>/candidates/<int:index>/",
        explore_views.explore_candidate,
        name="candidate",
    ),
    path(
        "<str:pk>/candidates/<int:index>/open/",
        explore_views.explore_candidate_open,
        name="candidate-open",
    ),
]
