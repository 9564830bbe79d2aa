"""Catalog serializers. Validation runs the model's ``clean()`` (one validation path)."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from inventory.library.schema import IDENTITY_FIELDS
from inventory.models import CATEGORY_MODELS, Manufacturer, Price, PriceBook


class NoBlankChoicesMixin:
    """A choice sent empty is an error naming the field, in every body format.

    In a form or multipart body DRF reads an empty value of a field that has a default as
    "not given" and stores the default, so ``kind=`` silently became ``reseller``; a JSON body
    gets "not a valid choice". Both now get the same 400.
    """

    def to_internal_value(self, data):
        blank = {
            name: ["Choose one of the listed values; an empty value is not one of them."]
            for name, field in self.fields.items()
            if isinstance(field, serializers.ChoiceField)
            and not field.read_only
            and not field.allow_blank
            and hasattr(data, "get")
            and name in data
            and data.get(name) == ""
        }
        if blank:
            raise serializers.ValidationError(blank)
        return super().to_internal_value(data)


class ValidatedModelSerializer(NoBlankChoicesMixin, serializers.ModelSerializer):
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


class ManufacturerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Manufacturer
        fields = ["id", "slug", "name", "url"]


class CatalogPartSerializer(ValidatedModelSerializer):
    """Fields common to every part; subclasses add the category's spec fields."""

    category = serializers.SerializerMethodField()
    manufacturer = serializers.SlugRelatedField(
        slug_field="slug", queryset=Manufacturer.objects.all()
    )

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


class PriceBookSerializer(NoBlankChoicesMixin, serializers.ModelSerializer):
    price_count = serializers.IntegerField(source="prices.count", read_only=True)
    team = serializers.SlugRelatedField(
        slug_field="slug",
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
    book = serializers.SlugRelatedField(slug_field="slug", queryset=PriceBook.objects.all())

    def get_fields(self):
        """Offers go only into books the user may read (another book is "does not exist")."""
        fields = super().get_fields()
        request = self.context.get("request")
        if request is not None:
            from inventory.permissions import price_books_for

            fields["book"].queryset = price_books_for(request.user)
        return fields

    class Meta:
        model = Price
        fields = ["id", "book", *Price.OFFER_FIELDS]


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
