"""Design API serializers: they parse and shape data; services do the writes."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from inventory.api.serializers import SlugField
from planner.api_base.serializers import PatchNamesAFieldMixin
from planner.designs.models import Design, DesignRevision, DesignSharingChoices
from planner.domain.canvas.edit_patch import PATCH_KEYS
from planner.teams.models import Team


@extend_schema_field(
    {
        "oneOf": [
            {"type": "object", "additionalProperties": True},
            {"type": "string", "description": "YAML or JSON text"},
        ],
        "description": "A design spec: a mapping (see design-spec.schema.json) or its "
        "YAML/JSON text.",
    }
)
class SpecField(serializers.JSONField):
    """A spec as a mapping or as YAML/JSON text (parsed and checked by the service)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict | str):
            raise serializers.ValidationError("Give the spec as a mapping or as YAML/JSON text.")
        return value


class TeamSlugField(SlugField):
    def __init__(self, **kwargs):
        super().__init__(queryset=Team.objects.all(), **kwargs)


class ProblemSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="Spec field at fault, e.g. switches.leaf ('' = whole)")
    message = serializers.CharField()


class ProblemsSerializer(serializers.Serializer):
    problems = ProblemSerializer(many=True)


class StaleEditSerializer(serializers.Serializer):
    detail = serializers.CharField()
    stale_parameters = serializers.ListField(
        child=serializers.DictField(),
        help_text="The spec parameters the edit makes untrue, as the preview lists them.",
    )


class ConflictSerializer(serializers.Serializer):
    detail = serializers.CharField()
    latest_revision = serializers.IntegerField()
    changes = serializers.DictField(
        help_text="{summary: {path: {old, new, delta?}}, spec: {path: {old, new}}} from the "
        "edit's base revision to the latest."
    )


class CostSerializer(serializers.Serializer):
    """A bill of materials priced at the seed price book (new, no discounts)."""

    total = serializers.CharField(
        allow_null=True,
        help_text="Decimal; null when any line is unpriced (a total is never partial)",
    )
    currency = serializers.CharField()
    complete = serializers.BooleanField(help_text="Every line priced (then `total` is given)")
    unpriced_lines = serializers.IntegerField(help_text="Lines of the bill without a price")
    unpriced_parts = serializers.IntegerField(help_text="Distinct parts without a price")
    text = serializers.CharField(help_text="e.g. '$12,345,678' or 'unpriced (3 parts)'")


class DesignSerializer(serializers.ModelSerializer):
    """A design with its latest revision's number, summary, power and (for users with the
    price right) cost. The view passes ``figures`` ({design id: planner.designs.figures row}) in the
    context; without a row, ``power_w`` is the summary's and ``cost`` is left out."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    latest_revision = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField()
    power_w = serializers.SerializerMethodField(
        help_text="Power budget of the latest revision, W (null: unknown)"
    )
    cost = CostSerializer(
        required=False,
        help_text="Only for users with the price right: the latest revision's bill of "
        "materials at the seed price book (new, no discounts); absent otherwise",
    )

    class Meta:
        model = Design
        fields = [
            "id",
            "name",
            "description",
            "owner",
            "team",
            "sharing",
            "latest_revision",
            "summary",
            "power_w",
            "cost",
            "created",
            "updated",
        ]
        read_only_fields = fields

    def get_latest_revision(self, obj) -> int | None:
        if hasattr(obj, "latest_number"):
            return obj.latest_number
        latest = obj.latest_revision
        return latest.number if latest else None

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_summary(self, obj):
        if hasattr(obj, "latest_summary"):
            return obj.latest_summary
        latest = obj.latest_revision
        return latest.summary if latest else None

    def _figures(self, obj) -> dict:
        return self.context.get("figures", {}).get(obj.pk, {})

    def get_power_w(self, obj) -> float | None:
        row = self._figures(obj)
        if "power_w" in row:
            return row["power_w"]
        return (self.get_summary(obj) or {}).get("power_w")

    def to_representation(self, obj):
        data = super().to_representation(obj)  # cost: not an attribute, so left out here
        cost = self._figures(obj).get("cost")
        if cost is not None:
            data["cost"] = cost.as_dict()
        return data


class DesignCreateSerializer(serializers.Serializer):
    """A new design: a spec to build, or a topology drawn from scratch (name + document)."""

    spec = SpecField(required=False)
    topology_document = serializers.DictField(
        required=False,
        help_text="A topology drawn on the canvas, {nodes, links} (see the topology "
        "endpoints); the design then has no spec. Give name with it.",
    )
    name = serializers.CharField(required=False, max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    team = TeamSlugField(required=False, allow_null=True, default=None)
    sharing = serializers.ChoiceField(
        choices=DesignSharingChoices.choices, default=DesignSharingChoices.PRIVATE
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")

    def validate(self, attrs):
        has_spec, has_document = "spec" in attrs, "topology_document" in attrs
        if has_spec == has_document:
            raise serializers.ValidationError(
                {"spec": "Give either a spec or a topology_document (with a name)."}
            )
        if has_document and not attrs.get("name"):
            raise serializers.ValidationError({"name": "Name the drawn design."})
        return attrs


class DesignUpdateSerializer(PatchNamesAFieldMixin, serializers.Serializer):
    name = serializers.CharField(required=False, max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    team = TeamSlugField(required=False, allow_null=True)
    sharing = serializers.ChoiceField(choices=DesignSharingChoices.choices, required=False)


class RevisionListSerializer(serializers.ModelSerializer):
    """A revision without its spec and summary (see the detail)."""

    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)

    class Meta:
        model = DesignRevision
        fields = ["number", "kind", "message", "created_by", "created", "parent"]
        read_only_fields = fields


class RevisionSerializer(RevisionListSerializer):
    class Meta(RevisionListSerializer.Meta):
        fields = [*RevisionListSerializer.Meta.fields, "spec", "summary"]
        read_only_fields = fields


class RevisionCreateSerializer(serializers.Serializer):
    spec = SpecField()
    base_revision = serializers.IntegerField(
        min_value=1, help_text="The revision this edit started from (must be the latest)."
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")


class SummaryRequestSerializer(serializers.Serializer):
    """A spec, or the design wizard's fields (one of the two)."""

    spec = SpecField(required=False)
    fields = serializers.DictField(
        required=False,
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        help_text="The wizard's form fields as typed ({name: text}, e.g. servers: '127', "
        "leaf: 'QM9700', media_leaf_spine: 'auto'); the server maps them onto a spec "
        "(planner.designs.wizard.spec_from_fields). Unknown names are ignored.",
    )
    draft = serializers.BooleanField(
        default=False,
        help_text="A design being typed (the wizard's live check): when it cannot be built yet, "
        "answer 200 with its problems (and the spec built) instead of 400.",
    )

    def validate(self, attrs):
        if ("spec" in attrs) == ("fields" in attrs):
            raise serializers.ValidationError({"spec": "Give either a spec or the fields."})
        return attrs


class SummaryProblemSerializer(ProblemSerializer):
    spec_field = serializers.CharField(
        required=False, help_text="With fields: the spec path at fault (field is the form field)"
    )


class SummaryProblemsSerializer(serializers.Serializer):
    problems = SummaryProblemSerializer(many=True)
    spec = serializers.DictField(
        required=False, help_text="With fields: the spec document the fields describe"
    )


class SummarySerializer(serializers.Serializer):
    """A spec's summary figures (gpus, servers, switches, links, bisection_gbps, power_w, ...)
    with the spec document built and, for users with the price right, its cost."""

    spec = serializers.JSONField(
        help_text="The spec document: built from the fields, or as given (a mapping, or the "
        "text read)"
    )
    power_w = serializers.FloatField(help_text="Power budget, W")
    cost = CostSerializer(
        required=False, help_text="Only for users with the price right, at the seed price book"
    )

    class Meta:
        ref_name = "DesignSummary"


class PresetSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    note = serializers.CharField(help_text="Which published architecture it reproduces.")
    spec = serializers.DictField()
    fields = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        help_text="Every wizard field (form field name -> value as text) showing the spec: "
        "what the design wizard fills in when the preset is chosen.",
    )


# --- canvas -------------------------------------------------------------------------------------


class EditProblemSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable code, e.g. port-in-use, module-mismatch")
    message = serializers.CharField()
    element_ids = serializers.ListField(
        child=serializers.CharField(), help_text="node:<name> and link:<index in the document>"
    )
    severity = serializers.ChoiceField(choices=["error", "warning"])
    field = serializers.CharField(help_text="Document path, e.g. links[3].b_part ('' = whole)")


class EditProblemsSerializer(serializers.Serializer):
    problems = EditProblemSerializer(many=True)


class StaleParameterSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="parameter-no-longer-holds")
    field = serializers.CharField(help_text="Spec field, e.g. servers, servers_per_su, rails")
    message = serializers.CharField()
    element_ids = serializers.ListField(child=serializers.CharField())
    severity = serializers.CharField(help_text="info: saving is allowed")
    was = serializers.JSONField(help_text="What the spec (the generator) says")
    now = serializers.JSONField(help_text="What the edited fabric has")


class TopologyPreviewSerializer(serializers.Serializer):
    problems = EditProblemSerializer(many=True, help_text="Warnings (errors answer 400)")
    stale_parameters = StaleParameterSerializer(many=True)
    changes = serializers.DictField(help_text="Summary figures: {path: {old, new, delta?}}")


class TopologyNodeSerializer(serializers.Serializer):
    name = serializers.CharField()
    model = serializers.CharField(help_text="Catalog device slug (server or switch)")
    role = serializers.ChoiceField(choices=["server", "leaf", "spine", "core", "manager"])
    x = serializers.FloatField(required=False, allow_null=True)
    y = serializers.FloatField(required=False, allow_null=True)
    plane = serializers.IntegerField(required=False, min_value=1)
    su = serializers.IntegerField(required=False, min_value=1)
    rail = serializers.IntegerField(required=False, min_value=1)
    group = serializers.IntegerField(
        required=False, min_value=1, help_text="Pod of a leaf, core group of a spine or core"
    )
    rack = serializers.CharField(required=False)
    ru = serializers.IntegerField(required=False, min_value=1)


class TopologyLinkSerializer(serializers.Serializer):
    a = serializers.CharField(help_text="Name of the lower-tier node")
    a_port = serializers.IntegerField(min_value=1)
    b = serializers.CharField(help_text="Name of the upper-tier node")
    b_port = serializers.IntegerField(min_value=1)
    speed_gbps = serializers.IntegerField(
        required=False, allow_null=True, help_text="Default: the highest both models run"
    )
    a_part = serializers.CharField(required=False, allow_null=True)
    b_part = serializers.CharField(required=False, allow_null=True)
    cable = serializers.CharField(required=False, allow_null=True)
    length_m = serializers.FloatField(required=False, allow_null=True)


class TopologyDocumentSerializer(serializers.Serializer):
    """An edit document (for the schema; the rules are checked by the service)."""

    design = serializers.IntegerField(read_only=True)
    revision = serializers.IntegerField(read_only=True)
    nodes = TopologyNodeSerializer(many=True)
    links = TopologyLinkSerializer(many=True)


CHECK_STALE_HELP = (
    "PUT only: true saves only an edit that leaves every spec parameter true; one that makes "
    "some untrue is not saved (409 with stale_parameters). Send it again without check_stale "
    "to save it anyway. The canvas saves this way: one request where a preview and a save "
    "took two."
)


class TopologyEditSchemaSerializer(serializers.Serializer):
    base_revision = serializers.IntegerField(min_value=1)
    message = serializers.CharField(required=False, allow_blank=True, max_length=300)
    check_stale = serializers.BooleanField(
        required=False, default=False, help_text=CHECK_STALE_HELP
    )
    nodes = TopologyNodeSerializer(many=True)
    links = TopologyLinkSerializer(many=True)


class JSONItemsField(serializers.ListField):
    """A list of JSON values taken as parsed: the request body is JSON already, so its items
    need no check of their own here (a large canvas edit has thousands); what they hold is
    checked by ``validate_edit``, which names each bad item."""

    def to_internal_value(self, data):
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        if not self.allow_empty and not data:
            self.fail("empty")
        return data


class TopologyEditSerializer(serializers.Serializer):
    """Parses a topology edit; the nodes and links are checked by ``validate_edit`` (so every
    problem comes back in one list with element ids)."""

    base_revision = serializers.IntegerField(
        min_value=1, help_text="The revision this edit started from (must be the latest)."
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")
    check_stale = serializers.BooleanField(
        required=False, default=False, help_text=CHECK_STALE_HELP
    )
    nodes = JSONItemsField(child=serializers.JSONField())
    links = JSONItemsField(child=serializers.JSONField(), required=False, default=list)


PATCH_HELP = (
    "One edit as what it changed in the edit document of base_revision (GET "
    "revisions/{number}/topology/): the base's nodes by name, its links by index (link:<i>). "
    "The document it makes (the base's nodes and links in their order, each set or changed "
    "one in its place, the removed ones left out, then the new ones) is checked and stored as "
    "PUT stores a whole document. Problems name the patch's entries: link:<i> (a base link), "
    "link:added-<j>, fields such as links_added[0].b_part or nodes_set[2].model."
)
CANVAS_CHANGES_HELP = (
    "true: the answer also has canvas, what the edit changed in the whole-fabric detail view "
    "(the canvas redraws only that)."
)


class TopologyLinkChangeSerializer(serializers.Serializer):
    index = serializers.IntegerField(min_value=0, help_text="The base link's index (link:<i>)")
    link = TopologyLinkSerializer(help_text="The link as it is now (it keeps its place)")


class TopologyPatchSchemaSerializer(serializers.Serializer):
    base_revision = serializers.IntegerField(min_value=1)
    message = serializers.CharField(required=False, allow_blank=True, max_length=300)
    check_stale = serializers.BooleanField(
        required=False, default=False, help_text=CHECK_STALE_HELP
    )
    canvas_changes = serializers.BooleanField(
        required=False, default=False, help_text=CANVAS_CHANGES_HELP
    )
    nodes_removed = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Names of the base's nodes"
    )
    nodes_set = TopologyNodeSerializer(
        many=True,
        required=False,
        help_text="Nodes whole: one named as a base node replaces it in its place, others "
        "are added. A renamed node is its old name removed and its new one set.",
    )
    links_removed = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        required=False,
        help_text="Indices of the base's links",
    )
    links_changed = TopologyLinkChangeSerializer(many=True, required=False)
    links_added = TopologyLinkSerializer(many=True, required=False)


class TopologyPatchSerializer(PatchNamesAFieldMixin, serializers.Serializer):
    """Parses a topology patch; what its entries name and hold is checked by ``apply_patch``
    and ``validate_edit`` (every problem in one list, naming the entry). A patch naming none of
    the change lists (a misspelt ``link_removed``) is a 400, never an unchanged revision."""

    change_fields = PATCH_KEYS

    base_revision = serializers.IntegerField(
        min_value=1, help_text="The revision this edit started from (must be the latest)."
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")
    check_stale = serializers.BooleanField(
        required=False, default=False, help_text=CHECK_STALE_HELP
    )
    canvas_changes = serializers.BooleanField(
        required=False, default=False, help_text=CANVAS_CHANGES_HELP
    )
    nodes_removed = JSONItemsField(child=serializers.JSONField(), required=False, default=list)
    nodes_set = JSONItemsField(child=serializers.JSONField(), required=False, default=list)
    links_removed = JSONItemsField(child=serializers.JSONField(), required=False, default=list)
    links_changed = JSONItemsField(child=serializers.JSONField(), required=False, default=list)
    links_added = JSONItemsField(child=serializers.JSONField(), required=False, default=list)


class CanvasChangesSerializer(serializers.Serializer):
    removed = serializers.ListField(
        child=serializers.CharField(),
        help_text="Ids of the base view's elements the saved revision no longer has (links "
        "the patch removed are not listed again)",
    )
    nodes = serializers.ListField(
        child=serializers.DictField(), help_text="New or changed nodes (canvas element JSON)"
    )
    edges = serializers.ListField(
        child=serializers.DictField(),
        help_text="New or changed edges. The base's links are renumbered first: link:<i> "
        "becomes the index it has once the removed links are left out.",
    )


class TopologyPatchResultSerializer(RevisionSerializer):
    canvas = CanvasChangesSerializer(
        read_only=True, required=False, help_text="With canvas_changes only"
    )

    class Meta(RevisionSerializer.Meta):
        fields = [*RevisionSerializer.Meta.fields, "canvas"]
        read_only_fields = fields


class LinkOptionSerializer(serializers.Serializer):
    a_part = serializers.CharField(allow_null=True)
    b_part = serializers.CharField(allow_null=True)
    cable = serializers.CharField()
    kind = serializers.ChoiceField(choices=["MMF", "SMF", "DAC", "ACC", "AEC", "AOC"])
    reach_m = serializers.FloatField(allow_null=True)
    price = serializers.FloatField(allow_null=True, help_text="Per link, seed price book")
    power_w = serializers.FloatField(allow_null=True, help_text="Modules' power per link")
    lengths_m = serializers.ListField(child=serializers.FloatField())
    label = serializers.CharField()
    legs = serializers.IntegerField(help_text="1, or N for a 1:N breakout cable or splitter")
    leg_speed_gbps = serializers.IntegerField(allow_null=True, help_text="A breakout's leg speed")


class RefusalSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class LinkOptionsSerializer(serializers.Serializer):
    a = serializers.CharField(help_text="Lower-tier model (swapped when given second)")
    b = serializers.CharField()
    speed_gbps = serializers.IntegerField(allow_null=True)
    b_ports_per_cage = serializers.IntegerField(
        allow_null=True, help_text="Ports of the b end's cage at that speed (a breakout's head)"
    )
    options = LinkOptionSerializer(many=True)
    refusal = RefusalSerializer(many=True)
    notes = serializers.ListField(child=serializers.CharField())
