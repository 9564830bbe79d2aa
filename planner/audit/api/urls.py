"""Audit API routes, mounted at ``/api/planner/audit/`` (included by
:mod:`planner.project.api_urls`)."""

from rest_framework.routers import DefaultRouter

from planner.audit.api.views import AuditEventViewSet

router = DefaultRouter()
router.include_root_view = False  # the index at /api/planner/ is the designs' router's
router.register("audit", AuditEventViewSet, basename="audit-event")
urlpatterns = router.urls
