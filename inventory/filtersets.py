"""Filters shared by the catalog API and pages: search, vendor, speed, form factor, media,
reach, protocol and lifecycle, each mapped to the category's own columns."""

import django_filters
from django import forms
from django.db.models import Q
from drf_spectacular.utils import extend_schema_field

from inventory.library import units
from inventory.models import CATEGORY_MODELS, CatalogPart, Manufacturer


class SpeedField(forms.CharField):
    """A speed typed with or without units ("800G", "800 Gb/s", "1.6T", "400"), in Gb/s."""

    def to_python(self, value):
        value = super().to_python(value)
        if value in self.empty_values:
            return None
        try:
            return units.parse_speed_gbps(value)
        except ValueError as error:
            raise forms.ValidationError(str(error), code="invalid") from None


@extend_schema_field(
    {
        "type": "string",
        "pattern": units.SPEED_PATTERN,
        "example": "800G",
        "description": units.SPEED_HELP,
    }
)
class SpeedFilter(django_filters.CharFilter):
    field_class = SpeedField


FORM_FACTOR_HELP = (
    "A form factor or family: names that start with it match (OSFP finds OSFP, OSFP224 and "
    "OSFP-XD; QSFP every QSFP kind)."
)


class CatalogPartFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", label="Search")
    manufacturer = django_filters.ModelChoiceFilter(
        queryset=Manufacturer.objects.all(), to_field_name="slug", label="Vendor"
    )
    speed_gbps = SpeedFilter(method="filter_speed", label="Speed", help_text=units.SPEED_HELP)
    speed_min_gbps = SpeedFilter(
        method="filter_speed_min", label="Speed ≥", help_text=units.SPEED_HELP
    )
    form_factor = django_filters.CharFilter(
        method="filter_form_factor", label="Form factor", help_text=FORM_FACTOR_HELP
    )
    media = django_filters.CharFilter(method="filter_media", label="Media")
    reach_min_m = django_filters.NumberFilter(method="filter_reach", label="Reach ≥ (m)")
    protocol = django_filters.ChoiceFilter(
        method="filter_protocol",
        label="Protocol",
        choices=[("infiniband", "InfiniBand"), ("ethernet", "Ethernet"), ("nvlink", "NVLink")],
    )
    lifecycle = django_filters.CharFilter(field_name="lifecycle")
    include_archived = django_filters.ChoiceFilter(
        method="filter_include_archived",
        choices=[("true", "Yes"), ("false", "No")],
        empty_label="No",
        label="Include archived",
        help_text="Archived parts are left out of lists unless asked for (true).",
    )

    model: type[CatalogPart]

    @property
    def qs(self):
        """The filtered parts; archived ones only when ``include_archived`` is on."""
        queryset = super().qs
        wanted = self.is_bound and self.form.is_valid()
        if not (wanted and self.form.cleaned_data.get("include_archived") == "true"):
            queryset = queryset.filter(archived=False)
        return queryset

    def filter_include_archived(self, queryset, name, value):
        return queryset  # applied in :attr:`qs`, also when the filter is not given

    def filter_q(self, queryset, name, value):
        return queryset.filter(
            Q(slug__icontains=value)
            | Q(name__icontains=value)
            | Q(part_number__icontains=value)
            | Q(aliases__icontains=value)
            | Q(description__icontains=value)
        )

    def filter_speed(self, queryset, name, value):
        field = self._meta.model.SPEED_FIELD
        return queryset.filter(**{field: value}) if field else queryset.none()

    def filter_speed_min(self, queryset, name, value):
        field = self._meta.model.SPEED_FIELD
        return queryset.filter(**{f"{field}__gte": value}) if field else queryset.none()

    def filter_form_factor(self, queryset, name, value):
        """Parts with a form factor of the family ``value`` starts (see ``vocab``)."""
        fields = self._meta.model.FORM_FACTOR_FIELDS
        value = value.strip()
        if not fields:
            return queryset.none()
        condition = Q()
        for field in fields:
            if field == "form_factors":  # comma-separated: any name of the list
                condition |= Q(form_factors__istartswith=value)
                condition |= Q(form_factors__icontains=f",{value}")
            else:
                condition |= Q(**{f"{field}__istartswith": value})
        return queryset.filter(condition)

    def filter_media(self, queryset, name, value):
        field = self._meta.model.MEDIA_FIELD
        return queryset.filter(**{f"{field}__iexact": value}) if field else queryset.none()

    def filter_reach(self, queryset, name, value):
        field = self._meta.model.REACH_FIELD
        return queryset.filter(**{f"{field}__gte": value}) if field else queryset.none()

    def filter_protocol(self, queryset, name, value):
        if not hasattr(self._meta.model, "protocols"):
            return queryset.none()
        return queryset.filter(protocols__icontains=f'"{value}"')


def _filterset_for(model):
    """A FilterSet for one category, without the filters its columns cannot serve."""
    meta = type(
        "Meta",
        (),
        {"model": model, "fields": ["q", "manufacturer", "lifecycle", "include_archived"]},
    )
    filterset = type(f"{model.__name__}FilterSet", (CatalogPartFilterSet,), {"Meta": meta})
    unused = {
        "speed_gbps": not model.SPEED_FIELD,
        "speed_min_gbps": not model.SPEED_FIELD,
        "form_factor": not model.FORM_FACTOR_FIELDS,
        "media": not model.MEDIA_FIELD,
        "reach_min_m": not model.REACH_FIELD,
        "protocol": not hasattr(model, "protocols"),
    }
    for name, drop in unused.items():
        if drop:
            del filterset.base_filters[name]
    return filterset


FILTERSETS = {category: _filterset_for(model) for category, model in CATEGORY_MODELS.items()}
