from django.urls import path

from simulation import views

app_name = "simulation"
urlpatterns = [
    path("", views.job_list, name="job-list"),
    path("diagnostics/", views.job_diagnostics, name="job-diagnostics"),
    path("<str:pk>/", views.job_detail, name="job-detail"),
    path("<str:pk>/cancel/", views.job_cancel_view, name="job-cancel"),
    path("<str:pk>/sweep-chart/", views.job_sweep_chart, name="job-sweep-chart"),
    path("designs/<int:design_pk>/start/", views.job_start_for_design, name="job-start"),
]
