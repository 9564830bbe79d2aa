"""Teams API routes, mounted at ``/api/teams/``."""

from django.urls import path

from planner.teams.api import views

app_name = "teams-api"

urlpatterns = [
    path("", views.TeamListView.as_view(), name="team-list"),
    path("<slug:team_slug>/", views.TeamDetailView.as_view(), name="team-detail"),
    path("<slug:team_slug>/members/", views.MemberListView.as_view(), name="member-list"),
    path(
        "<slug:team_slug>/members/<str:username>/",
        views.MemberDetailView.as_view(),
        name="member-detail",
    ),
]
