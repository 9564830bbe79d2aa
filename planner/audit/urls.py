"""The audit log page, mounted at ``/audit/``."""

from django.urls import path

from planner.audit import views

urlpatterns = [
    path("", views.audit_list, name="audit-list"),
]
