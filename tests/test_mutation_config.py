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


def test_the_fork_server_preloads_third_party_modules_only(repo):
    """A masrl or test module imported before the mutant is set would run its import-time code unmutated."""
    import importlib.util

    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert (config["process_isolation"], config["forkserver_warmup"]) == ("forkserver", "import")
    lines = (repo / config["preload_modules_file"]).read_text().splitlines()
    names = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert "pandas" in names and "msgspec" in names
    assert [n for n in names if n.split(".")[0] in {"masrl", "tests", "conftest", "memo"}] == []
    assert [n for n in names if importlib.util.find_spec(n) is None] == []


def test_the_report_reads_the_listed_equivalent_mutants(repo):
    import importlib.util

    spec = importlib.util.spec_from_file_location("mutation_report", repo / "scripts/mutation_report.py")
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    listed = report.equivalent(repo / "docs/mutation.md")
    assert "masrl.corpus.yamlio.x_dump_record__mutmut_20" in listed
    assert "masrl.trace.index.xǁIdIndexǁ__init____mutmut_46" in listed
    assert all(n.startswith("masrl.") and "__mutmut_" in n for n in listed)
