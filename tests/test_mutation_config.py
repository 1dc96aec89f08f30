"""The mutation-testing configuration stays runnable: every module it mutates and every test it
selects exists (mutmut stops with a collection error otherwise, after minutes of set-up)."""

from __future__ import annotations

import tomllib


def test_every_mutated_module_and_selected_test_exists(repo):
    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["mutmut"]
    missing = [p for p in config["pytest_add_cli_args_test_selection"] if not (repo / p.split("::")[0]).exists()]
    assert missing == []
    assert [g for g in config["only_mutate"] if not list(repo.glob(g))] == []
    for core in ("corpus/releases.py", "corpus/population.py", "corpus/yamlio.py", "bib/bibexport.py", "trace/typed.py"):
        assert f"src/masrl/{core}" in config["only_mutate"], core
