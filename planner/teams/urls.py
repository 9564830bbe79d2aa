"""Team pages (mounted at ``/teams/``) and the teams API (``api_urlpatterns``, at
``/api/teams/``)."""

from django.urls import path

from planner.teams import views
from planner.teams.api import views as api

app_name = "teams"

urlpatterns = [
    path("", views.team_list, name="team-list"),
    path("<slug:team_slug>/", views.team_detail, name="team-detail"),
    path("<slug:team_slug>/members/<str:username>/", views.member_change, name="member-change"),
    path(
        "<slug:team_slug>/members/<str:username>/remove/", views.member_remove, name="member-remove"
    ),
]

api_urlpatterns = (
    [
        path("", api.TeamListView.as_view(), name="team-list"),
        path("<slug:team_slug>/", api.TeamDetailView.as_view(), name="team-detail"),
        path("<slug:team_slug>/members/", api.MemberListView.as_view(), name="member-list"),
        path(
            "<slug:team_slug>/members/<str:username>/",
            api.MemberDetailView.as_view(),
            name="member-detail",
        ),
    ],
    "teams-api",
)
