from django.urls import path

from simulation import views

app_name = "simulation"
urlpatterns = [
    path("", views.job_list, name="job-list"),
    path("diagnostics/", views.job_diagnostics, name="job-diagnostics"),
]
