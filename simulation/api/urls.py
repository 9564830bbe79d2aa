from rest_framework.routers import DefaultRouter

from simulation.api.explore import ExplorationViewSet
from simulation.api.views import JobViewSet

router = DefaultRouter()
router.register("jobs", JobViewSet, basename="job")
router.register("explorations", ExplorationViewSet, basename="exploration")
urlpatterns = router.urls
