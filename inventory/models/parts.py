"""Parts of the catalog: one model per category, sharing :class:`CatalogPart`.

Spec values sit in ordinary columns (repeated groups such as cage groups in JSON); beside them
``sources`` names the documents and ``provenance`` maps each field (dotted path for nested
values) to ``{source, grade, note?, alternatives?}``. A value no source gives stays empty and
shows as "unknown".
"""

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.urls import reverse

from inventory.library import rules, schema, vocab

__all__ = [
    "CATEGORY_MODELS",
    "CableAssembly",
    "CatalogPart",
    "FiberCable",
    "Manufacturer",
    "NICModel",
    "RackType",
    "ServerModel",
    "SwitchModel",
    "Transceiver",
]

slug_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9._\-]*$",
    "Use letters, digits, '.', '_' and '-' (the model or part name as the vendor writes it).",
    code="invalid_slug",
)
positive = [MinValueValidator(0)]


def _choices(vocabulary):
    return list(vocabulary)


class Manufacturer(models.Model):
    """A company whose parts are in the catalog."""

    slug = models.CharField(max_length=60, unique=True, validators=[slug_validator])
    name = models.CharField(max_length=100, unique=True)
    url = models.URLField(blank=True)

    class Meta:
        ordering = ["name"]
        permissions = [
            (
                "edit_catalog",
                "Can create, change, archive and delete catalog parts, manufacturers and "
                "public price books",
            ),
        ]

    def __str__(self):
        return self.name


class CatalogPart(models.Model):
    """Fields every part shares: identity, notes, sources and per-value provenance."""

    CATEGORY = ""
    CATEGORY_LABEL = ""
    #: Fields shown as specs, in display order (identity fields are shown apart).
    SPEC_FIELDS: tuple[str, ...] = ()
    #: Columns behind the common filters (speed, form factor, media, reach); "" = none.
    SPEED_FIELD = ""
    FORM_FACTOR_FIELDS: tuple[str, ...] = ()
    MEDIA_FIELD = ""
    REACH_FIELD = ""

    slug = models.CharField(
        max_length=100,
        unique=True,
        validators=[slug_validator],
        help_text="Model or part name as the vendor writes it.",
    )
    name = models.CharField(max_length=200)
    manufacturer = models.ForeignKey(
        Manufacturer, on_delete=models.PROTECT, related_name="%(class)s_parts"
    )
    part_number = models.CharField(
        max_length=100, blank=True, help_text="Ordering part number (OPN) if published."
    )
    aliases = models.JSONField(
        default=list, blank=True, help_text="Other names and OPNs of the same part."
    )
    lifecycle = models.CharField(
        max_length=16, choices=_choices(vocab.LIFECYCLES), default="shipping"
    )
    description = models.CharField(max_length=300, blank=True)
    notes = models.TextField(blank=True)
    sources = models.JSONField(
        default=dict, blank=True, help_text="{key: {url, grade, title?, date?}}"
    )
    provenance = models.JSONField(
        default=dict, blank=True, help_text="{field path: {source, grade, note?, alternatives?}}"
    )
    archived = models.BooleanField(
        default=False,
        help_text="Hidden from pickers and refused in new designs; still resolves for the "
        "revisions that use it.",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
        ordering = ["slug"]

    def __str__(self):
        return self.slug

    def save(self, *args, **kwargs):
        self.refresh_derived()
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("inventory:part-detail", args=[self.CATEGORY, self.slug])

    def spec_values(self) -> dict:
        """Spec fields as a plain dict (what the pure rules read)."""
        return {name: getattr(self, name) for name in self.SPEC_FIELDS}

    def refresh_derived(self) -> None:
        """Recompute denormalized filter columns from the spec (no-op by default)."""

    def clean(self):
        super().clean()
        errors: dict[str, list[str]] = {}
        if not isinstance(self.aliases, list) or not all(isinstance(a, str) for a in self.aliases):
            errors.setdefault("aliases", []).append("Aliases must be a list of strings.")
        for problem in rules.check_provenance(self.sources, self.provenance):
            errors.setdefault(problem.field or "provenance", []).append(problem.message)
        for problem in rules.check_part(self.CATEGORY, self.spec_values()):
            errors.setdefault(problem.field or "__all__", []).append(problem.message)
        if errors:
            raise ValidationError(errors)
        self.refresh_derived()


def _float(**kwargs):
    return models.FloatField(null=True, blank=True, validators=positive, **kwargs)


def _int(**kwargs):
    return models.PositiveIntegerField(null=True, blank=True, **kwargs)


def _choice(vocabulary, **kwargs):
    return models.CharField(max_length=24, blank=True, choices=_choices(vocabulary), **kwargs)


def _form_factors(groups) -> str:
    names = []
    for group in groups or []:
        form_factor = group.get("form_factor") if isinstance(group, dict) else None
        if form_factor and form_factor not in names:
            names.append(form_factor)
    return ",".join(names)


def _cage_totals(groups: list[dict]) -> tuple[int | None, int | None, str]:
    """Fastest port speed, logical port count and form factors of cage groups."""
    speeds = [g["port_speed_gbps"] for g in groups if g.get("port_speed_gbps")]
    ports = [(g.get("count") or 0) * (g.get("ports_per_cage") or 1) for g in groups]
    return (max(speeds) if speeds else None, sum(ports) if groups else None, _form_factors(groups))


def _host_facts():
    """Rules 25-26 host facts: None (the default) means not stated, never "no"."""
    return (
        models.BooleanField(
            null=True,
            blank=True,
            verbose_name="LPO validated",
            help_text="The ports are validated for linear (LPO/LRO) optics: true, false, or "
            "empty when no source says (rule 25).",
        ),
        models.JSONField(
            null=True,
            blank=True,
            default=None,
            verbose_name="FEC modes",
            help_text='FEC modes the ports run, e.g. ["RS(544,514)"]; empty when no source '
            "says (rule 26).",
        ),
    )


class SwitchModel(CatalogPart):
    """A switch model: ASIC, cages by group, capacity, size, airflow and system power."""

    CATEGORY = "switch"
    CATEGORY_LABEL = "Switches"
    SPEC_FIELDS = schema.SPEC_FIELDS["switch"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "port_speed_gbps", ("form_factors",)
    MEDIA_FIELD, REACH_FIELD = "", ""

    asic = models.CharField(max_length=100, blank=True)
    protocols = models.JSONField(default=list, blank=True)
    capacity_tbps = _float(verbose_name="capacity (Tb/s)")
    rack_units = _float()
    airflow = _choice(vocab.AIRFLOWS)
    cooling = _choice(vocab.COOLING)
    weight_kg = _float()
    power_typical_w = _float(help_text="Typical system power without optics.")
    power_max_w = _float(help_text="Maximum system power as published (may include optics).")
    psu_count = _int()
    psu_rating_w = _float(help_text="Rating of one PSU (not the system draw).")
    buffer_mb = _float(
        verbose_name="packet buffer (MB)",
        help_text="Packet buffer as published (on-chip shared buffer; a deep-buffer switch's "
        "off-chip memory); the PFC headroom check sums lossless headroom against it.",
    )
    cage_groups = models.JSONField(
        default=list,
        blank=True,
        help_text="[{role, count, form_factor, top, ports_per_cage, port_speed_gbps, "
        "lanes_per_port, lane_rate_gbps, modulation, breakouts, breakout_scope, "
        "max_module_power_w}]",
    )
    latency_ns = _float(
        verbose_name="port-to-port latency (ns)",
        help_text="Port-to-port latency as the vendor publishes it (and the forwarding mode it "
        "was measured in).",
    )
    forwarding_mode = _choice(vocab.FORWARDING_MODES)
    mtbf_hours = _float(
        verbose_name="MTBF (hours)",
        help_text="Mean time between failures as published or inferred (with its source and "
        "grade); the expected-failures estimate reads 8,760 / MTBF failures per part-year.",
    )
    lpo_validated, fec_modes = _host_facts()
    # Derived from cage_groups, for filtering and sorting.
    port_speed_gbps = _int(editable=False, verbose_name="port speed (Gb/s)")
    port_count = _int(editable=False)
    form_factors = models.CharField(max_length=100, blank=True, editable=False)

    class Meta(CatalogPart.Meta):
        verbose_name = "switch model"

    def refresh_derived(self):
        data = [
            g
            for g in self.cage_groups or []
            if isinstance(g, dict) and g.get("role", "data") == "data"
        ]
        self.port_speed_gbps, self.port_count, self.form_factors = _cage_totals(data)


class NICModel(CatalogPart):
    """A NIC, SuperNIC or DPU: ports and cages, speeds, protocols, host interface, power."""

    CATEGORY = "nic"
    CATEGORY_LABEL = "NICs"
    SPEC_FIELDS = schema.SPEC_FIELDS["nic"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "max_speed_gbps", ("form_factors",)
    MEDIA_FIELD, REACH_FIELD = "", ""

    host_interface = models.CharField(max_length=100, blank=True)
    card_form_factor = models.CharField(max_length=60, blank=True)
    ports = models.JSONField(
        default=list,
        blank=True,
        help_text="[{count, form_factor, top, max_speed_gbps, speeds_gbps, lanes, lane_rate_gbps}]",
    )
    protocols = models.JSONField(default=list, blank=True)
    max_speed_gbps = _int(verbose_name="max speed (Gb/s)")
    power_typical_w = _float()
    power_max_w = _float()
    aux_power_required = models.BooleanField(null=True, blank=True)
    limits = models.JSONField(
        default=list, blank=True, help_text="[{code, message, ...}] machine-readable limits"
    )
    mtbf_hours = _float(
        verbose_name="MTBF (hours)",
        help_text="Mean time between failures as published or inferred (with its source and "
        "grade); the expected-failures estimate reads 8,760 / MTBF failures per part-year.",
    )
    lpo_validated, fec_modes = _host_facts()
    form_factors = models.CharField(max_length=100, blank=True, editable=False)
    port_count = _int(editable=False)

    class Meta(CatalogPart.Meta):
        verbose_name = "NIC model"

    def refresh_derived(self):
        self.form_factors = _form_factors(self.ports)
        counts = [p.get("count") or 0 for p in self.ports or [] if isinstance(p, dict)]
        self.port_count = sum(counts) if counts else None


class ServerModel(CatalogPart):
    """A GPU server or rack-scale system and its network ports."""

    CATEGORY = "server"
    CATEGORY_LABEL = "GPU servers"
    SPEC_FIELDS = schema.SPEC_FIELDS["server"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "port_speed_gbps", ("form_factors",)
    MEDIA_FIELD, REACH_FIELD = "", ""

    kind = models.CharField(max_length=16, choices=_choices(vocab.SERVER_KINDS), default="server")
    gpus = _int()
    gpu_model = models.CharField(max_length=60, blank=True)
    rack_units = _float()
    systems_per_rack = _int(
        help_text="Systems a rack holds in the maker's published design (NVIDIA: four DGX B300 "
        "per rack); the layout uses it when the height is unknown."
    )
    power_max_w = _float()
    power_typical_w = _float()
    cooling = _choice(vocab.COOLING)
    scale_up = models.CharField(max_length=100, blank=True)
    compute_nic = models.CharField(
        max_length=100, blank=True, help_text="Slug of the compute NIC model, if known."
    )
    compute_ports = models.JSONField(
        default=list,
        blank=True,
        help_text="[{count, form_factor, top, ports_per_cage, "
        "port_speed_gbps, lanes_per_port, lane_rate_gbps}]",
    )
    other_ports = models.JSONField(default=list, blank=True)
    trays = models.JSONField(default=dict, blank=True)
    nics_per_gpu = _float()
    weight_kg = _float()
    psu_count = _int()
    psu_rating_w = _float()
    mtbf_hours = _float(
        verbose_name="MTBF (hours)",
        help_text="Mean time between failures as published or inferred (with its source and "
        "grade); the expected-failures estimate reads 8,760 / MTBF failures per part-year.",
    )
    lpo_validated, fec_modes = _host_facts()
    port_speed_gbps = _int(editable=False, verbose_name="compute port speed (Gb/s)")
    compute_port_count = _int(editable=False)
    form_factors = models.CharField(max_length=100, blank=True, editable=False)

    class Meta(CatalogPart.Meta):
        verbose_name = "GPU server model"

    def refresh_derived(self):
        groups = [g for g in self.compute_ports or [] if isinstance(g, dict)]
        self.port_speed_gbps, self.compute_port_count, self.form_factors = _cage_totals(groups)


class Transceiver(CatalogPart):
    """An optical module: form factor and top, lanes, media, connector, reach, power."""

    CATEGORY = "transceiver"
    CATEGORY_LABEL = "Transceivers"
    SPEC_FIELDS = schema.SPEC_FIELDS["transceiver"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "speed_gbps", ("form_factor",)
    MEDIA_FIELD, REACH_FIELD = "media", "reach_m"

    form_factor = _choice(vocab.FORM_FACTORS)
    top = _choice(vocab.TOPS)
    ports_per_module = models.PositiveSmallIntegerField(default=1)
    speed_gbps = _int(verbose_name="speed (Gb/s)")
    port_speed_gbps = _int(verbose_name="speed per port (Gb/s)")
    lanes = models.PositiveSmallIntegerField(null=True, blank=True)
    lane_rate_gbps = _int()
    modulation = _choice(vocab.MODULATIONS)
    baud_gbd = _float()
    dsp = _choice(vocab.DSP)
    pmd = models.CharField(max_length=40, blank=True)
    protocols = models.JSONField(default=list, blank=True)
    media = _choice(vocab.MEDIA)
    fiber_grades = models.JSONField(default=list, blank=True)
    wavelength_nm = _float()
    connector = _choice(vocab.CONNECTORS)
    connector_count = models.PositiveSmallIntegerField(null=True, blank=True)
    reach_m = _float()
    reach_by_grade = models.JSONField(default=dict, blank=True)
    power_typical_w = _float()
    power_max_w = _float()
    power_reduced_w = _float(help_text="Power in a reduced mode (e.g. 200G on a 400G module).")
    side = _choice(vocab.SIDES)
    breakouts = models.JSONField(default=list, blank=True)
    partners = models.JSONField(default=list, blank=True, help_text="Slugs of mating modules.")
    fibers = models.JSONField(default=list, blank=True, help_text="Slugs of fibers to use.")
    # Optical budget facts (issue 19). Empty = unknown; reach per grade is reach_by_grade and
    # linear (LPO/LRO) is dsp, as before.
    phy = models.CharField(
        max_length=40,
        blank=True,
        verbose_name="PHY",
        help_text="The IEEE or MSA PHY the optics follow, e.g. 400GBASE-DR4, 2x400GBASE-FR4.",
    )
    channel_il_max_db = models.JSONField(
        default=dict,
        blank=True,
        verbose_name="channel insertion loss max (dB)",
        help_text='Channel insertion-loss limit per fiber grade, e.g. {"OS2": 3.0}: fiber, '
        "connections and splices between the two modules.",
    )
    tx_avg_min_dbm = models.FloatField(
        null=True, blank=True, verbose_name="Tx average power min (dBm)", help_text="Per lane."
    )
    rx_avg_min_dbm = models.FloatField(
        null=True,
        blank=True,
        verbose_name="Rx average power min (dBm)",
        help_text="Per lane (informative receiver sensitivity, average power).",
    )
    fec = _choice(vocab.FEC, verbose_name="FEC")
    host_serdes_note = models.CharField(
        max_length=300,
        blank=True,
        verbose_name="host SerDes note",
        help_text="What a linear module needs from the host SerDes (rule 25).",
    )
    latency_ns = _float(
        verbose_name="added latency (ns)",
        help_text="Latency the part's electronics add (PHY, DSP, FEC or retimer), as published.",
    )
    mtbf_hours = _float(
        verbose_name="MTBF (hours)",
        help_text="Mean time between failures as published or inferred (with its source and "
        "grade); the expected-failures estimate reads 8,760 / MTBF failures per part-year.",
    )
    rated_with_patch_panels = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Patch panels the maker's reach already assumes (NVIDIA: 2); empty = unknown.",
    )

    class Meta(CatalogPart.Meta):
        verbose_name = "transceiver"


class CableAssembly(CatalogPart):
    """A copper or active cable, straight or breakout (DAC, LACC/ACC, AEC, AOC)."""

    CATEGORY = "cable"
    CATEGORY_LABEL = "Cables"
    SPEC_FIELDS = schema.SPEC_FIELDS["cable"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "speed_gbps", ("end_a_form_factor", "end_b_form_factor")
    MEDIA_FIELD, REACH_FIELD = "cable_type", "max_length_m"

    cable_type = _choice(vocab.CABLE_TYPES)
    topology = _choice(vocab.TOPOLOGIES)
    speed_gbps = _int(verbose_name="speed (Gb/s)")
    leg_speed_gbps = _int(verbose_name="speed per leg (Gb/s)")
    legs = models.PositiveSmallIntegerField(null=True, blank=True)
    end_a_form_factor = _choice(vocab.FORM_FACTORS)
    end_a_top = _choice(vocab.TOPS)
    end_a_ports_per_module = models.PositiveSmallIntegerField(null=True, blank=True)
    end_b_form_factor = _choice(vocab.FORM_FACTORS)
    end_b_top = _choice(vocab.TOPS)
    end_b_ports_per_module = models.PositiveSmallIntegerField(null=True, blank=True)
    lanes_per_leg = models.PositiveSmallIntegerField(null=True, blank=True)
    lane_rate_gbps = _int()
    modulation = _choice(vocab.MODULATIONS)
    protocols = models.JSONField(default=list, blank=True)
    latency_ns = _float(
        verbose_name="added latency (ns)",
        help_text="Latency the part's electronics add (PHY, DSP, FEC or retimer), as published.",
    )
    propagation_ns_per_m = _float(
        verbose_name="propagation delay (ns/m)",
        help_text="Signal propagation delay per metre of cable, as published.",
    )
    mtbf_hours = _float(
        verbose_name="MTBF (hours)",
        help_text="Mean time between failures as published or inferred (with its source and "
        "grade); the expected-failures estimate reads 8,760 / MTBF failures per part-year.",
    )
    lengths_m = models.JSONField(default=list, blank=True)
    length_parts = models.JSONField(
        default=list,
        blank=True,
        help_text="The orderable part number of each length sold: a list of "
        "{length_m, part_number}, one per length of lengths_m.",
    )
    max_length_m = _float()
    power_end_a_w = _float(help_text="Power of the A (head) end.")
    power_end_b_w = _float(help_text="Power of each B (leg) end.")

    class Meta(CatalogPart.Meta):
        verbose_name = "cable assembly"
        verbose_name_plural = "cable assemblies"


class FiberCable(CatalogPart):
    """A passive fiber: patch cord, trunk or splitter."""

    CATEGORY = "fiber"
    CATEGORY_LABEL = "Fibers"
    SPEC_FIELDS = schema.SPEC_FIELDS["fiber"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "", ()
    MEDIA_FIELD, REACH_FIELD = "fiber_type", "max_length_m"

    fiber_type = models.CharField(
        max_length=8, blank=True, choices=[("mmf", "Multimode"), ("smf", "Single-mode")]
    )
    fiber_grade = _choice(vocab.FIBER_GRADES)
    topology = _choice(vocab.FIBER_TOPOLOGIES)
    connector_a = _choice(vocab.CONNECTORS)
    connector_b = _choice(vocab.CONNECTORS)
    fiber_count = models.PositiveSmallIntegerField(null=True, blank=True)
    polarity = models.CharField(max_length=20, blank=True)
    propagation_ns_per_m = _float(
        verbose_name="propagation delay (ns/m)",
        help_text="Signal propagation delay per metre of cable, as published.",
    )
    lengths_m = models.JSONField(default=list, blank=True)
    length_parts = models.JSONField(
        default=list,
        blank=True,
        help_text="The orderable part number of each length sold: a list of "
        "{length_m, part_number}, one per length of lengths_m.",
    )
    max_length_m = _float()
    for_pmd = models.JSONField(default=list, blank=True)

    class Meta(CatalogPart.Meta):
        verbose_name = "fiber"


class RackType(CatalogPart):
    """A rack: height, power and cooling limits."""

    CATEGORY = "rack"
    CATEGORY_LABEL = "Racks"
    SPEC_FIELDS = schema.SPEC_FIELDS["rack"]
    SPEED_FIELD, FORM_FACTOR_FIELDS = "", ()
    MEDIA_FIELD, REACH_FIELD = "", ""

    rack_units = _int()
    power_kw = _float()
    cooling_kw = _float()
    cooling = _choice(vocab.COOLING)
    width_mm = _float()
    depth_mm = _float()

    class Meta(CatalogPart.Meta):
        verbose_name = "rack type"


CATEGORY_MODELS: dict[str, type[CatalogPart]] = {
    model.CATEGORY: model
    for model in (
        SwitchModel,
        NICModel,
        ServerModel,
        Transceiver,
        CableAssembly,
        FiberCable,
        RackType,
    )
}
