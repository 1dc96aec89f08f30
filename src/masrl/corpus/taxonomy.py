"""Read-only view of ``corpus/taxonomy.yaml``: fields, their ordered values, and the survey's declarations.

Every order used by a table, crosstab or figure comes from here (the order of values in the
file). What is survey-specific is data of the taxonomy: its controlled and free fields, its
tables, figures, README list, site columns, screening roles, audit defaults, identity and the
fixed sentences of its reports (:mod:`masrl.corpus.declarations` reads them). A taxonomy of an
older format is read as the current one (:func:`masrl.corpus.migrate.migrate`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .migrate import migrate

#: The one screening stage of a survey that declares no stage field (``screening.stages``).
SINGLE_STAGE = "screening"
#: The field of a paper's abstract in a taxonomy that names none (``screening.abstract``): masrl's
#: own field of retained records, one line of text, as before surveys declared it.
DEFAULT_ABSTRACT = "abstract"


#: The options of ``masrl exclude`` itself; a field of excluded records must not take one of them.
EXCLUDE_OPTIONS = ("--key", "--title", "--author", "--year", "--arxiv", "--doi", "--openreview", "--url", "--reason",
                   "--date", "--force", "--dry-run", "--root", "--quiet", "--verbose", "--version", "--help", "--set")


@dataclass(frozen=True)
class Field:
    """One controlled field.

    Attributes:
        name: field name in records.
        applies_to: ``"retained"`` or ``"excluded"``.
        multi: True when the field holds a list of values.
        values: the allowed codes, in taxonomy order.
        spec: the raw mapping of the field in taxonomy.yaml.
    """

    name: str
    applies_to: str
    multi: bool
    values: tuple[str, ...]
    spec: dict

    @property
    def label(self) -> str:
        """Human label of the field (its ``label``, else its name)."""
        return str(self.spec.get("label", self.name))

    def value_spec(self, code: str) -> dict:
        """The mapping of one value (label, definition, source, editorial extras)."""
        spec = (self.spec.get("values") or {}).get(code)
        return spec if isinstance(spec, dict) else {}

    def value_label(self, code: str) -> str:
        """Human label of one value (its ``label``, else the code)."""
        return str(self.value_spec(code).get("label", code))

    @property
    def labels(self) -> dict[str, str]:
        """``{code: label}`` of every value, in taxonomy order (a "did you mean" maps a label to its code)."""
        return {code: self.value_label(code) for code in self.values}

    @property
    def required_when(self) -> dict | None:
        """``{field: [values]}``: the field is present iff the record matches, else None."""
        return self.spec.get("required_when")

    @property
    def required(self) -> bool:
        """Whether every record (of its kind, matching ``required_when`` if given) must carry it
        (taxonomy ``required``, default true)."""
        return self.spec.get("required", True) is not False

    @property
    def always(self) -> bool:
        """Whether every record of its kind must carry it: required, with no ``required_when``."""
        return self.required and not self.required_when

    @property
    def suggested(self) -> bool:
        """Whether ``masrl suggest`` may propose its values from the records already tagged
        (taxonomy ``suggest``, default true; false for a fact about the record itself that no
        other record's tags can tell, such as whether its metadata was verified)."""
        return self.spec.get("suggest", True) is not False

    @property
    def show_code(self) -> bool:
        """Whether reports show the code beside the label (``A1 first value``; taxonomy ``show_code``)."""
        return self.spec.get("show_code") is True

    @property
    def ordered(self) -> bool:
        """Whether the values are steps in order, each followed by the next (taxonomy ``ordered``):
        the chain figure joins its boxes with arrows only then."""
        return self.spec.get("ordered") is True


@dataclass(frozen=True)
class FreeField:
    """A field of records that is not controlled vocabulary (``free_fields`` of the taxonomy).

    Attributes:
        name: field name in records; ``applies_to``: ``retained`` or ``excluded``.
        type: ``text`` (one line), ``multiline`` (line breaks allowed), ``list`` (of one-line
            texts) or ``mapping`` (checked by its own JSON Schema, ``schema``).
        spec: the raw mapping.
    """

    name: str
    applies_to: str
    type: str
    spec: dict

    @property
    def label(self) -> str:
        """Human label (its ``label``, else its name)."""
        return str(self.spec.get("label", self.name))

    @property
    def required(self) -> bool:
        """Whether every record of its kind must carry it (taxonomy ``required``, default false)."""
        return self.spec.get("required") is True

    @property
    def text_keys(self) -> tuple[str, ...]:
        """Names under which this field holds free text (the field itself for text fields;
        the keys listed under ``text`` for a mapping)."""
        if self.type == "mapping":
            return tuple(str(k) for k in self.spec.get("text") or [])
        return (self.name,)


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


class Taxonomy:
    """The controlled vocabulary and the survey's declarations.

    Args:
        data: the mapping of ``corpus/taxonomy.yaml`` (or of a frozen snapshot's vocabulary),
            in the current format or an older one (read as the current one); malformed parts
            are ignored here (``masrl validate`` reports them).
    """

    def __init__(self, data: dict):
        self.data = migrate(data) if isinstance(data, dict) else {}
        fields = self.data.get("fields")
        self.fields: dict[str, Field] = {}
        for name, spec in (fields.items() if isinstance(fields, dict) else []):
            if not isinstance(spec, dict):
                continue
            values = spec.get("values")
            codes = tuple(str(v) for v in values) if isinstance(values, dict) else ()
            self.fields[str(name)] = Field(str(name), str(spec.get("applies_to", "retained")), bool(spec.get("multi")), codes, spec)
        self.free_fields: dict[str, FreeField] = {}
        for name, spec in _mapping(self.data.get("free_fields")).items():
            if isinstance(spec, dict):
                self.free_fields[str(name)] = FreeField(str(name), str(spec.get("applies_to", "retained")),
                                                        str(spec.get("type", "text")), spec)

    def of(self, applies_to: str) -> list[Field]:
        """The controlled fields of retained (``"retained"``) or excluded records, in file order."""
        return [f for f in self.fields.values() if f.applies_to == applies_to]

    def free_of(self, applies_to: str) -> list[FreeField]:
        """The free fields of retained or excluded records, in file order."""
        return [f for f in self.free_fields.values() if f.applies_to == applies_to]

    def values(self, name: str) -> tuple[str, ...]:
        """Allowed codes of field ``name`` in taxonomy order (``()`` if unknown)."""
        field = self.fields.get(name)
        return field.values if field else ()

    def labels(self, name: str) -> dict[str, str]:
        """``{code: label}`` of field ``name`` (``{}`` if unknown)."""
        field = self.fields.get(name)
        return field.labels if field else {}

    def label(self, name: str, code: str) -> str:
        """The label of value ``code`` of field ``name`` (the code itself when either is unknown)."""
        field = self.fields.get(name)
        return field.value_label(code) if field else code

    @property
    def format_version(self) -> int | None:
        """The format of the taxonomy as read (older formats are read as the current one)."""
        value = self.data.get("format_version")
        return value if isinstance(value, int) else None

    @property
    def not_applicable(self) -> str | None:
        """The code that means "not applicable" in every field that has it (taxonomy
        ``not_applicable``), or None."""
        value = self.data.get("not_applicable")
        return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None

    def na_label(self, name: str) -> str:
        """The label of field ``name``'s not-applicable value (``not applicable``); the code when
        the field has no label for it."""
        return self.label(name, self.not_applicable or "")

    @property
    def sparse_threshold(self) -> int:
        """A cell is sparse when its count is > 0 and <= this (taxonomy ``sparse_threshold``, default 2)."""
        value = self.data.get("sparse_threshold", 2)
        return value if isinstance(value, int) else 2

    @property
    def gap_skips(self) -> tuple[set[str], set[str]]:
        """(fields, values) the gap analysis leaves out (taxonomy ``gap_analysis``; default: no
        field, the not-applicable value)."""
        spec = _mapping(self.data.get("gap_analysis"))
        default = [self.not_applicable] if self.not_applicable else []
        return set(spec.get("skip_fields") or []), set(spec.get("skip_values") or default)

    @property
    def gap_analysis(self) -> dict:
        """The taxonomy's ``gap_analysis`` mapping (``{}`` if absent): skips, named gaps,
        the tables whose axes combine and the tables left out, each with its reason; sections."""
        return _mapping(self.data.get("gap_analysis"))

    @property
    def year_minimum(self) -> int:
        """Earliest allowed publication year (taxonomy ``year_minimum``, default 1950)."""
        value = self.data.get("year_minimum", 1950)
        return value if isinstance(value, int) else 1950

    @property
    def identifier_schemes(self) -> dict[str, dict]:
        """Scheme name -> {label, definition, pattern, resolver?, list?}."""
        return {k: v for k, v in _mapping(self.data.get("identifier_schemes")).items() if isinstance(v, dict)}

    def landing_id(self, url: str) -> tuple[str, str] | None:
        """``(scheme, id)`` when ``url`` is the resolver page of an id of a scheme the taxonomy declares (its
        ``resolver`` with ``{id}`` standing for a value of its ``pattern``: ``https://pubmed.ncbi.nlm.nih.gov/{id}/``),
        else None; a closing slash and ``http``/``https`` do not matter."""
        import re
        from urllib.parse import unquote

        plain = re.sub(r"(?i)^https?://", "", url.strip()).rstrip("/")
        for scheme, spec in sorted(self.identifier_schemes.items()):
            resolver, pattern = spec.get("resolver"), spec.get("pattern")
            if not (isinstance(resolver, str) and isinstance(pattern, str) and resolver.count("{id}") == 1):
                continue
            head, tail = re.sub(r"(?i)^https?://", "", resolver).split("{id}")
            if plain.startswith(head) and plain.endswith(tail.rstrip("/")):
                value = unquote(plain[len(head):len(plain) - len(tail.rstrip("/"))])
                try:
                    if value and re.fullmatch(pattern, value):
                        return scheme, value
                except re.error:
                    continue  # a pattern that is no regular expression is named by the taxonomy's checks
        return None

    @property
    def crosstabs(self) -> list[tuple[str, str]]:
        """The (rows, columns) field pairs of the crosstab tables."""
        pairs = self.data.get("crosstabs")
        return [tuple(p) for p in pairs if isinstance(p, list) and len(p) == 2] if isinstance(pairs, list) else []

    def declared(self, key: str) -> dict:
        """A top-level declaration mapping (``readme``, ``site``, ``screening``, ``audit``,
        ``survey``, ``sentences``, ``record_order``); ``{}`` when absent or malformed."""
        return _mapping(self.data.get(key))

    def declared_list(self, key: str) -> list[dict]:
        """A top-level list of declarations (``tables``, ``figures``): its mappings, in order."""
        items = self.data.get(key)
        return [d for d in items if isinstance(d, dict)] if isinstance(items, list) else []

    def sentence(self, name: str, default: str = "") -> str:
        """One fixed sentence of the reports (taxonomy ``sentences``), or ``default``."""
        value = self.declared("sentences").get(name)
        return str(value) if isinstance(value, str) else default

    def role(self, name: str) -> str | None:
        """The field that plays a screening role (taxonomy ``screening``: ``stages``, ``reasons``,
        ``found_in``, ``found_by``, ``included_by``, ``inclusion``), or None when the survey declares none (or an unknown field)."""
        value = self.declared("screening").get(name)
        return value if isinstance(value, str) and value in self.fields else None

    @property
    def abstract_field(self) -> str:
        """The field of retained records that holds a paper's abstract: the free text field that the
        taxonomy's ``screening.abstract`` names, else :data:`DEFAULT_ABSTRACT` (a taxonomy that names
        none keeps masrl's own field of that name; ``masrl validate`` checks a name given)."""
        value = self.declared("screening").get("abstract")
        return value if isinstance(value, str) and value else DEFAULT_ABSTRACT

    @property
    def abstract_declared(self) -> bool:
        """Whether the abstract's field is one of the taxonomy's free fields (else masrl's own)."""
        return self.abstract_field in self.free_fields

    def exclusion_options(self) -> list[tuple[str, str]]:
        """``(option, field)`` of every field of excluded records (controlled ones, then free ones, in
        taxonomy order): ``masrl exclude`` asks for each as ``--`` and its name with ``_`` as ``-``
        (``reason_kind`` -> ``--reason-kind``)."""
        names = [f.name for f in self.of("excluded")] + [f.name for f in self.free_of("excluded")]
        return [("--" + name.replace("_", "-"), name) for name in names]

    @property
    def traces(self) -> bool:
        """Whether the survey has orchestration traces (taxonomy ``traces: true``): claims may
        check the packaged example traces and the build writes ``reports/traces.md``."""
        return self.data.get("traces") is True
