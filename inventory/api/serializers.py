"""Catalog serializers. Validation runs the model's ``clean()`` (one validation path).

Every writable serializer follows the API's rule for partial updates
(:class:`planner.api_base.serializers.PatchNamesAFieldMixin`). :class:`SlugField` is the API's
field for an object named by its slug.
"""

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from inventory.library.documents import text_problem
from inventory.library.schema import IDENTITY_FIELDS
from inventory.models import CATEGORY_MODELS, ExchangeRate, Manufacturer, Price, PriceBook
from inventory.permissions import price_books_for
from planner.api_base.serializers import NoEmptyValuesMixin, PatchNamesAFieldMixin


class SlugField(serializers.SlugRelatedField):
    """An object named by its slug; a slug a database cannot store (a NUL character, a lone
    surrogate) is refused naming the field before it is looked up.

    A JSON body is checked as it is parsed; a form or multipart body reached the lookup, and
    PostgreSQL's refusal was a 400 that named no field.
    """

    def __init__(self, **kwargs):
        super().__init__(slug_field="slug", **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and (problem := text_problem(data)):
            raise serializers.ValidationError(f"The slug {problem}.")
        return super().to_internal_value(data)


class ValidatedModelSerializer(
    PatchNamesAFieldMixin, NoEmptyValuesMixin, serializers.ModelSerializer
):
    """Run ``Model.full_clean()`` on a copy of the instance, as NetBox does: DRF does not."""

    def validate(self, attrs):
        attrs = super().validate(attrs)
        model = self.Meta.model
        if self.instance is None:
            instance = model(**attrs)
        else:
            # Work on a copy so that a failed validation leaves the stored row untouched.
            instance = model.objects.get(pk=self.instance.pk)
            for key, value in attrs.items():
                setattr(instance, key, value)
        try:
            instance.full_clean(exclude=self._clean_exclude())
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return attrs

    def _clean_exclude(self):
        return []


class ManufacturerSerializer(PatchNamesAFieldMixin, serializers.ModelSerializer):
    class Meta:
        model = Manufacturer
        fields = ["id", "slug", "name", "url"]


class CatalogPartSerializer(ValidatedModelSerializer):
    """Fields common to every part; subclasses add the category's spec fields."""

    category = serializers.SerializerMethodField()
    manufacturer = SlugField(queryset=Manufacturer.objects.all())

    def get_category(self, obj) -> str:
        return obj.CATEGORY

    def _clean_exclude(self):
        return ["slug"] if self.instance is None else []


DERIVED = {
    "switch": ["port_speed_gbps", "port_count", "form_factors"],
    "nic": ["form_factors", "port_count"],
    "server": ["port_speed_gbps", "compute_port_count", "form_factors"],
}


def _serializer_for(category, model):
    fields = [
        "id",
        "category",
        *IDENTITY_FIELDS,
        *model.SPEC_FIELDS,
        *DERIVED.get(category, []),
        "sources",
        "provenance",
        "archived",
        "created",
        "updated",
    ]
    meta = type(
        "Meta",
        (),
        {
            "model": model,
            "fields": fields,
            "read_only_fields": [*DERIVED.get(category, []), "archived", "created", "updated"],
        },
    )
    return type(f"{model.__name__}Serializer", (CatalogPartSerializer,), {"Meta": meta})


SERIALIZERS = {
    category: _serializer_for(category, model) for category, model in CATEGORY_MODELS.items()
}


class PriceBookSerializer(PatchNamesAFieldMixin, NoEmptyValuesMixin, serializers.ModelSerializer):
    price_count = serializers.IntegerField(source="prices.count", read_only=True)
    team = SlugField(
        queryset=PriceBook._meta.get_field("team").related_model.objects.all(),
        allow_null=True,
        required=False,
        help_text="Slug of the team that keeps the book; null = a public book (catalog editors).",
    )

    class Meta:
        model = PriceBook
        fields = [
            "id",
            "slug",
            "name",
            "currency",
            "kind",
            "description",
            "team",
            "price_count",
            "created",
            "updated",
        ]


class PriceSerializer(ValidatedModelSerializer):
    book = SlugField(queryset=PriceBook.objects.all())
    archived = serializers.BooleanField(
        source="is_archived",
        required=False,
        help_text="An archived offer stays in its book but prices nothing (quotes, BOM and "
        "link-option prices, coverage, media choice); PATCH true to archive, false to restore.",
    )
    archived_at = serializers.DateTimeField(read_only=True, allow_null=True)
    archived_by = serializers.SlugRelatedField(
        read_only=True, slug_field="username", allow_null=True, help_text="Who archived it."
    )

    def validate(self, attrs):
        """The offer's fields are checked as the model checks them; ``archived`` is not a
        model field (the archive and restore services set who and when)."""
        archived = attrs.pop("is_archived", None)
        attrs = super().validate(attrs)
        if archived is not None:
            attrs["is_archived"] = archived
        return attrs

    def get_fields(self):
        """Offers go only into books the user may read (another book is "does not exist")."""
        fields = super().get_fields()
        request = self.context.get("request")
        if request is not None:
            fields["book"].queryset = price_books_for(request.user)
        return fields

    class Meta:
        model = Price
        fields = ["id", "book", *Price.OFFER_FIELDS, "archived", "archived_at", "archived_by"]


class PriceBookUploadSerializer(serializers.Serializer):
    """A CSV for a price book (the columns of its download), with the two steps of an upload:
    ``dry_run`` previews, ``confirm_removals`` allows removing many offers."""

    text = serializers.CharField(
        trim_whitespace=False, allow_blank=False, help_text="The CSV, as text."
    )
    name = serializers.CharField(
        required=False, default="prices.csv", max_length=200, help_text="The file's name."
    )
    dry_run = serializers.BooleanField(
        required=False, default=False, help_text="Only say what the file would change."
    )
    confirm_removals = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Apply a file that removes more than 5 offers or 10 % of the book.",
    )

    def validate_text(self, value):
        if len(value.encode()) > settings.CATALOG_IMPORT_MAX_BYTES:
            raise serializers.ValidationError(
                f"The CSV is over the limit of {settings.CATALOG_IMPORT_MAX_BYTES:,} bytes."
            )
        return value


class ExchangeRateSerializer(ValidatedModelSerializer):
    """One exchange rate: ``1 from_currency = rate to_currency`` from ``valid_from``, with its
    source. The rate is an exact decimal string (up to 10 decimal places)."""

    rate = serializers.DecimalField(
        max_digits=20,
        decimal_places=10,
        coerce_to_string=True,
        help_text="Units of to_currency for one unit of from_currency (above 0).",
    )

    class Meta:
        model = ExchangeRate
        fields = ["id", *ExchangeRate.RATE_FIELDS, "created", "updated"]
        validators = []  # the model's clean() names the field (valid_from) for a second rate


class PartHistoryEventSerializer(serializers.Serializer):
    """One recorded change of a part (from the audit log): who, when, what, old -> new."""

    id = serializers.IntegerField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    actor = serializers.CharField(
        source="actor.username", read_only=True, default=None, allow_null=True
    )
    action = serializers.CharField(read_only=True)
    summary = serializers.CharField(read_only=True)
    details = serializers.JSONField(
        read_only=True, help_text="``changes``: ``{field: {old, new}}`` for a change."
    )
