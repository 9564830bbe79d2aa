"""Forms of the catalog pages: one part form per category, and the file uploads.

Part forms only parse and convert what was typed; the model rules (``Model.clean()``) run in
:func:`inventory.services.part_save`, and :func:`add_model_errors` puts what it reports next
to the fields.
"""

from __future__ import annotations

import copy
import json
from functools import cache

from django import forms
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.forms.fields import InvalidJSONInput
from django.forms.models import construct_instance
from django.template.defaultfilters import filesizeformat

from inventory.library.schema import CATEGORY_LABELS, IDENTITY_FIELDS, SPEC_FIELDS
from inventory.models import CATEGORY_MODELS, ExchangeRate, Price
from inventory.services.common import part_get

#: Unit suffixes of field names, shown in labels ("power_max_w" -> "Power max (W)").
UNITS = {
    "gbps": "Gb/s",
    "tbps": "Tb/s",
    "gbd": "GBd",
    "w": "W",
    "kw": "kW",
    "m": "m",
    "mm": "mm",
    "kg": "kg",
    "nm": "nm",
}
ACRONYMS = {
    "asic": "ASIC",
    "pmd": "PMD",
    "dsp": "DSP",
    "psu": "PSU",
    "gpu": "GPU",
    "gpus": "GPUs",
    "nic": "NIC",
    "nics": "NICs",
    "url": "URL",
    "ru": "RU",
    "id": "ID",
}
#: JSON fields holding lists of objects or objects: taller text areas.
STRUCTURED = {
    "cage_groups",
    "ports",
    "compute_ports",
    "other_ports",
    "limits",
    "trays",
    "reach_by_grade",
    "length_parts",
    "channel_il_max_db",
    "sources",
    "provenance",
}


def field_label(name: str) -> str:
    """A readable label for a field or nested key.

    Examples
    --------
    >>> field_label("power_typical_w"), field_label("port_speed_gbps"), field_label("asic")
    ('Power typical (W)', 'Port speed (Gb/s)', 'ASIC')
    """
    words = name.split("_")
    unit = UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    text = " ".join(ACRONYMS.get(word, word) for word in words)
    text = text[:1].upper() + text[1:]
    return f"{text} ({unit})" if unit else text


class JSONTextField(forms.JSONField):
    """JSON in a text area, indented; an empty box means the model's default ([] or {})."""

    def __init__(self, *, empty=list, rows=3, **kwargs):
        self.empty = empty
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": rows, "data-json": ""}))
        super().__init__(**kwargs)

    def to_python(self, value):
        if value in self.empty_values or (isinstance(value, str) and not value.strip()):
            return self.empty() if callable(self.empty) else copy.deepcopy(self.empty)
        return super().to_python(value)

    def prepare_value(self, value):
        if isinstance(value, InvalidJSONInput):
            return value
        if value in (None, [], {}):
            return ""
        nested = isinstance(value, dict) or (
            isinstance(value, list) and any(isinstance(item, dict) for item in value)
        )
        indent = 2 if nested else None
        return json.dumps(value, ensure_ascii=False, indent=indent, cls=self.encoder)


def _formfield(db_field, **kwargs):
    if isinstance(db_field, models.JSONField):
        return JSONTextField(
            label=field_label(db_field.name),
            help_text=db_field.help_text or "JSON.",
            required=False,
            empty=db_field.default,
            rows=8 if db_field.name in STRUCTURED else 2,
        )
    field = db_field.formfield(**kwargs)
    if field is not None:
        field.label = "Vendor" if db_field.name == "manufacturer" else field_label(db_field.name)
    return field


class PartForm(forms.ModelForm):
    """Base of the per-category part forms (see :func:`part_form_class`)."""

    category = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            slug = self.fields["slug"]
            slug.disabled = True
            slug.help_text = "The slug cannot be changed: prices and designs refer to it."
        for name, field in self.fields.items():
            value = self.initial.get(name)
            if (
                isinstance(field, forms.FloatField)
                and isinstance(value, float)
                and value.is_integer()
            ):
                self.initial[name] = int(value)  # "747", not "747.0"

    def _post_clean(self):
        # Only copy the cleaned values onto the instance: the model rules run once, in
        # services.part_save, whose ValidationError the view turns into field errors.
        try:
            self.instance = construct_instance(self, self.instance, self._meta.fields)
        except ValidationError as exc:
            self._update_errors(exc)

    def groups(self):
        """The form's fields in sections: ``[(heading, [bound field, ...]), ...]``."""
        spec = SPEC_FIELDS[self.category]
        return [
            ("Identity", [self[name] for name in IDENTITY_FIELDS]),
            ("Specifications", [self[n] for n in spec if not self._is_json(n)]),
            ("Lists and groups (JSON)", [self[n] for n in spec if self._is_json(n)]),
            ("Sources and provenance (JSON)", [self["sources"], self["provenance"]]),
        ]

    def _is_json(self, name):
        return isinstance(self.fields[name], JSONTextField)


@cache
def part_form_class(category: str) -> type[PartForm]:
    """The ModelForm of one category: identity, spec, sources and provenance fields."""
    model = CATEGORY_MODELS[category]
    fields = [*IDENTITY_FIELDS, *SPEC_FIELDS[category], "sources", "provenance"]
    form_class = forms.modelform_factory(
        model, form=PartForm, fields=fields, formfield_callback=_formfield
    )
    form_class.category = category
    return form_class


def add_model_errors(form: forms.BaseForm, exc: ValidationError) -> None:
    """Attach a model ValidationError to the form's fields.

    Nested paths (``cage_groups.0.breakouts``) go to their top-level field; keys the form has
    no field for become form-wide errors that name the key.
    """
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for key, messages in exc.message_dict.items():
        top = key.split(".", 1)[0]
        target = top if top in form.fields else None
        for message in messages:
            if key not in (top, NON_FIELD_ERRORS) and not message.startswith(key):
                message = f"{key}: {message}"
            elif target is None and key != NON_FIELD_ERRORS:
                message = f"{field_label(key)}: {message}"
            form.add_error(target, message)


# --- Uploads -----------------------------------------------------------------------------------


class UploadForm(forms.Form):
    """A text file upload, capped at ``settings.CATALOG_IMPORT_MAX_BYTES``, read as UTF-8."""

    file = forms.FileField(label="File")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.CATALOG_IMPORT_MAX_BYTES
        if upload.size > limit:
            raise ValidationError(
                f"The file is {filesizeformat(upload.size)}; the limit is "
                f"{filesizeformat(limit)}. Nothing was imported."
            )
        try:
            self.cleaned_data["text"] = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValidationError("The file is not UTF-8 text. Nothing was imported.") from None
        self.cleaned_data["name"] = upload.name
        return upload


CATEGORY_CHOICES = [(category, CATEGORY_LABELS[category]) for category in CATEGORY_MODELS]


class CatalogUploadForm(UploadForm):
    category = forms.ChoiceField(label="Category", choices=CATEGORY_CHOICES)
    file = forms.FileField(
        label="CSV file",
        help_text="Columns as in the downloaded CSV; lists and objects are JSON in their cells.",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )
    field_order = ["category", "file"]


class NetboxUploadForm(UploadForm):
    category = forms.ChoiceField(
        label="Category",
        choices=[("", "Detect from the file"), ("switch", "Switch"), ("nic", "NIC")],
        required=False,
    )
    file = forms.FileField(
        label="NetBox device-type YAML",
        help_text="A device-type or module-type file of the netbox-community devicetype-library.",
        widget=forms.ClearableFileInput(attrs={"accept": ".yaml,.yml"}),
    )
    replace_existing = forms.BooleanField(
        label="Replace a part that is already in the catalog from other sources",
        required=False,
        help_text="Off: such a part refuses the import (parts imported from NetBox alone are "
        "always updated).",
    )
    field_order = ["category", "file", "replace_existing"]


class PriceBookUploadForm(UploadForm):
    file = forms.FileField(
        label="CSV file",
        help_text="Columns as in the downloaded CSV (part and price are required). The file "
        "replaces every offer of this book; you see what it adds, changes and removes before "
        "anything is written.",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )


class PriceBookApplyForm(forms.Form):
    """The second step of an upload: the previewed file, sent back to be applied, and the
    confirmation a file that removes many offers needs."""

    text = forms.CharField(widget=forms.HiddenInput, strip=False)
    name = forms.CharField(widget=forms.HiddenInput, max_length=200)
    confirm_removals = forms.BooleanField(
        required=False,
        label="Yes, remove these offers from the book",
        help_text="Needed when the file removes more than 5 offers or 10 % of the book.",
    )

    def clean_text(self):
        text = self.cleaned_data["text"]
        if len(text.encode()) > settings.CATALOG_IMPORT_MAX_BYTES:
            raise ValidationError("The file is over the upload limit. Nothing was imported.")
        return text


class PriceForm(forms.ModelForm):
    """One offer of a book: the part by slug, part number or alias; the model's rules run in
    :func:`inventory.services.price_save`."""

    part = forms.CharField(
        label="Part", max_length=100, help_text="Slug, part number or alias, e.g. QM9700."
    )

    class Meta:
        model = Price
        fields = [name for name in Price.OFFER_FIELDS if name not in ("part_category", "part_slug")]
        labels = {"as_of": "Seen", "source_url": "Source URL", "length_m": "Length (m)"}

    field_order = ["part", "price", "currency", "seller", "source_url", "as_of", "grade"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["part"] = self.instance.part_slug
        elif self.instance.book_id and not self.instance.currency:
            self.initial["currency"] = self.instance.book.currency

    def clean_part(self):
        name = self.cleaned_data["part"].strip()
        part = part_get(name)
        if part is None:
            raise ValidationError(f"No part with slug, part number or alias {name!r}.")
        self.cleaned_data["part_found"] = part
        return part.slug

    def clean_currency(self):
        return (self.cleaned_data.get("currency") or "").strip().upper()

    def _post_clean(self):
        """Only copy the values onto the instance: the service validates (and audits)."""
        self.instance = construct_instance(self, self.instance, self._meta.fields)
        part = self.cleaned_data.get("part_found")
        if part is not None:
            self.instance.part_category, self.instance.part_slug = part.CATEGORY, part.slug


class ExchangeRateForm(forms.ModelForm):
    """One exchange rate; the model's rules run in
    :func:`inventory.services.exchange_rate_save`."""

    class Meta:
        model = ExchangeRate
        fields = list(ExchangeRate.RATE_FIELDS)
        widgets = {"valid_from": forms.DateInput(attrs={"type": "date"})}

    def _post_clean(self):
        """Only copy the values onto the instance: the service validates (and audits)."""
        self.instance = construct_instance(self, self.instance, self._meta.fields)

    def clean_from_currency(self):
        return (self.cleaned_data.get("from_currency") or "").strip().upper()

    def clean_to_currency(self):
        return (self.cleaned_data.get("to_currency") or "").strip().upper()
