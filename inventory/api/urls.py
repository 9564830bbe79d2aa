from rest_framework.routers import DefaultRouter

from inventory.api import views

# Plural, kebab-case routes per category.
ROUTES = {
    "switch": "switches",
    "nic": "nics",
    "server": "servers",
    "transceiver": "transceivers",
    "cable": "cables",
    "fiber": "fibers",
    "rack": "racks",
}

router = DefaultRouter()
router.register("manufacturers", views.ManufacturerViewSet)
for category, route in ROUTES.items():
    router.register(route, views.VIEWSETS[category], basename=category)
router.register("price-books", views.PriceBookViewSet)
router.register("prices", views.PriceViewSet)
router.register("exchange-rates", views.ExchangeRateViewSet)
urlpatterns = router.urls
