"""Trace converters behind one interface: bytes in, trace plus notes out.

:data:`CONVERTERS` is the registry (``masrl trace convert --from`` lists it): each
entry names a format, says what it reads, detects it from the parsed JSON values
and converts bytes into a :class:`~masrl.trace.convert.common.Conversion`. Adding a
format is one module with ``detect(values) -> bool`` and ``convert(data, file,
trace_id=None) -> Conversion`` plus one line here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from ..formats import FORMATS
from .common import Conversion, ConvertError, read_json_values

__all__ = ["CONVERTERS", "Conversion", "ConvertError", "Converter", "convert", "detect_format"]


@dataclass(frozen=True)
class Converter:
    """One registered input format (see :data:`masrl.trace.formats.FORMATS`)."""

    name: str
    reads: str
    detect: Callable[[list], bool]
    convert: Callable[..., Conversion]


def _load(name: str, reads: str, module: str) -> Converter:
    mod = importlib.import_module(module)
    return Converter(name, reads, mod.detect, mod.convert)


CONVERTERS: dict[str, Converter] = {name: _load(name, reads, module) for name, reads, module in FORMATS}


def detect_format(data: bytes, file: str) -> str:
    """The name of the registered format the bytes are in.

    Raises:
        ConvertError: not JSON, already an orchestration trace, or no format matches
            (the message lists every registered format).
    """
    values = read_json_values(data, file)
    first = values[0]
    if isinstance(first, dict) and "events" in first and "edges" in first:
        raise ConvertError(f"{file}: already an orchestration trace (it has 'events' and 'edges'); nothing to convert")
    for name, converter in CONVERTERS.items():
        if converter.detect(values):
            return name
    known = "; ".join(f"{c.name}: {c.reads}" for c in CONVERTERS.values())
    raise ConvertError(f"{file}: cannot tell the format; give --from FORMAT ({known})")


def convert(data: bytes, file: str, fmt: str | None = None, trace_id: str | None = None) -> Conversion:
    """Convert ``data`` from format ``fmt`` (detected when None) into a trace.

    Raises:
        ConvertError: an unknown format name, or the converter's own errors.
    """
    if fmt is None:
        fmt = detect_format(data, file)
    converter = CONVERTERS.get(fmt)
    if converter is None:
        raise ConvertError(f"unknown format '{fmt}'; known: {', '.join(CONVERTERS)}")
    try:
        return converter.convert(data, file, trace_id=trace_id)
    except ConvertError as err:
        if str(err).startswith(f"{file}: "):
            raise
        raise ConvertError(f"{file}: {err}") from None  # every refusal names its file
