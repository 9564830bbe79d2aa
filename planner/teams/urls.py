"""Team pages, mounted at ``/teams/`` (the API's routes: :mod:`planner.teams.api.urls`)."""

from django.urls import path

from planner.teams import views

app_name = "teams"

urlpatterns = [
    path("", views.team_list, name="team-list"),
    path("<slug:team_slug>/", views.team_detail, name="team-detail"),
    path("<slug:team_slug>/members/<str:username>/", views.member_change, name="member-change"),
    path(
        "<slug:team_slug>/members/<str:username>/remove/", views.member_remove, name="member-remove"
    ),
]
