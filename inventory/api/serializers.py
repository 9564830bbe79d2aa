"""Catalog serializers. Validation runs the model's ``clean()`` (one validation path).

:class:`PatchNamesAFieldMixin` is the API's rule for every partial update (the catalog's and
the planner's writable serializers use it): a PATCH that names no field it may change is a 400.
:class:`SlugField` is the API's field for an object named by its slug.
"""

from collections.abc import Mapping

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.settings import api_settings

from inventory.library.documents import text_problem
from inventory.library.schema import IDENTITY_FIELDS
from inventory.models import CATEGORY_MODELS, ExchangeRate, Manufacturer, Price, PriceBook
from inventory.permissions import price_books_for


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


class NoEmptyValuesMixin:
    """A choice or a number sent empty is an error naming the field, in every body format and
    in a query string.

    In a form, multipart body or query string DRF reads an empty value of a field that is not
    required as "not given" and uses the default, so ``kind=`` silently became ``reseller`` and
    ``?audience=`` the internal copy; a JSON body gets "not a valid choice". All now get the
    same 400.
    """

    _EMPTY_MESSAGES = (
        (
            serializers.ChoiceField,
            "Choose one of the listed values; an empty value is not one of them.",
        ),
        (
            (serializers.IntegerField, serializers.FloatField, serializers.DecimalField),
            "Give a number; the value is empty.",
        ),
    )

    def to_internal_value(self, data):
        blank = {}
        for name, field in self.fields.items():
            if field.read_only or field.allow_null or getattr(field, "allow_blank", False):
                continue  # an empty value means null or "" for these
            if not (hasattr(data, "get") and name in data and data.get(name) == ""):
                continue
            message = next((m for kinds, m in self._EMPTY_MESSAGES if isinstance(field, kinds)), "")
            if message:
                blank[name] = [message]
        if blank:
            raise serializers.ValidationError(blank)
        return super().to_internal_value(data)


#: Keys a browser's form may add that are not fields of the object.
FORM_EXTRAS = frozenset({"csrfmiddlewaretoken"})


def _field_named(key: str, names) -> str | None:
    """The field a body key is about: ``name`` itself, or a form body's ``name.key`` (a dict
    field) or ``name[0]`` (a list field); None when it names no field."""
    if key in names:
        return key
    for name in names:
        if key.startswith((f"{name}.", f"{name}[")):
            return name
    return None


def patch_problems(fields: Mapping, data: Mapping) -> dict[str, list[str]]:
    """Why a partial update of ``fields`` from ``data`` changes nothing ({} when it names a
    field it may change): no field to change, each unknown key and each read-only field named.
    """
    writable = [name for name, field in fields.items() if not field.read_only]
    named = {key: _field_named(key, fields) for key in data if key not in FORM_EXTRAS}
    if any(name in writable for name in named.values()):
        return {}
    problems: dict[str, list[str]] = {
        api_settings.NON_FIELD_ERRORS_KEY: [
            "No field to change: the request names none of " + ", ".join(writable) + "."
        ]
    }
    for key, name in named.items():
        if name is None:
            problems[key] = ["Unknown field: it is not one of this object's fields."]
        else:
            problems[key] = ["Read-only: it cannot be changed."]
    return problems


class PatchNamesAFieldMixin:
    """A partial update (PATCH) must name at least one field it may change.

    DRF reads a PATCH whose body names no writable field (``{}``, an empty form, only unknown
    or read-only keys) as an empty update: it answered 200 and saved nothing, so a client
    that misspelt a field, or sent a form body the server read as empty, was told it had
    succeeded. Now that is a 400 in every body format (JSON, form, multipart), naming the
    unknown and read-only keys, and nothing is stored. Keys beside a writable field are left
    to DRF as before (unknown ones are ignored).
    """

    # A PATCH whose body is a patch document rather than a partial update (the canvas's
    # topology patch: ``base_revision`` and what changed) names the fields that carry a change:
    # every request must then name one of them, and its other known fields do not count.
    # (Said here, not in the docstring: drf-spectacular publishes the docstring in the schema.)
    change_fields: tuple[str, ...] = ()

    def to_internal_value(self, data):
        if self.parent is None and isinstance(data, Mapping):
            if self.change_fields:
                fields = {name: self.fields[name] for name in self.change_fields}
                named = {
                    key: value
                    for key, value in data.items()
                    if key in self.change_fields or _field_named(key, self.fields) is None
                }
                problems = patch_problems(fields, named)
            else:
                problems = patch_problems(self.fields, data) if self.partial else {}
            if problems:
                raise serializers.ValidationError(problems)
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
