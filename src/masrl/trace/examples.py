"""The shipped example traces (package data ``masrl/trace/examples/*.json``).

``survey_example.json`` is the survey's own example trace, byte for byte
(artifact github.com/xxzcc/awesome-llm-mas-rl, ``example_trace.json``); the others
are this project's illustrative traces, written by :mod:`masrl.trace.synth`.
This is the only module of :mod:`masrl.trace` that reads package data.
"""

from __future__ import annotations

from importlib import resources


def load_examples() -> dict[str, bytes]:
    """Every shipped example: file stem -> raw JSON bytes, sorted by name."""
    folder = resources.files("masrl.trace").joinpath("examples")
    found = {
        entry.name[: -len(".json")]: entry.read_bytes()
        for entry in folder.iterdir()
        if entry.name.endswith(".json") and entry.is_file()
    }
    return dict(sorted(found.items()))
