"""Root URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from planner.navigation import views as navigation_views
from planner.project import views as project_views
from planner.project.api.schema_view import SchemaView
from planner.project.docs_site import docs_site
from planner.quotes.urls import catalog_urlpatterns as quote_catalog_urls

urlpatterns = [
    path("", navigation_views.home, name="home"),
    path("search/", navigation_views.search_page, name="search"),
    path("help/", navigation_views.help_page, name="help"),
    path("docs/", docs_site, name="docs-site"),
    re_path(r"^docs/(?P<path>.+)$", docs_site, name="docs-page"),
    path("healthz", project_views.healthz, name="healthz"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/token/", project_views.account_token, name="account-token"),
    path("designs/", include("planner.project.design_urls")),
    path("audit/", include("planner.audit.urls")),
    path("teams/", include("planner.teams.urls")),
    path("catalog/", include(quote_catalog_urls)),  # a price book's coverage, by the quotes
    path("catalog/", include("inventory.urls")),
    path("jobs/", include("simulation.urls")),
    path("explore/", include("simulation.explore_urls")),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's init script from a URL: no inline script (CSP).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema", template_name="planner/api_docs.html"
        ),
        name="api-docs",
    ),
    path("api/search/", navigation_views.SearchView.as_view(), name="api-search"),
    path("api/inventory/", include("inventory.api.urls")),
    path("api/simulation/", include("simulation.api.urls")),
    path("api/teams/", include("planner.teams.api.urls")),
    path("api/planner/", include("planner.project.api_urls")),
    path("admin/", admin.site.urls),
]

handler404 = "planner.project.api.exceptions.not_found"  # JSON for /api/ URLs no route matches
