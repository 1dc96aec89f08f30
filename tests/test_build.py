"""`masrl build` and `masrl build --check`: determinism, staleness, exactly-affected cells, claim failures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def files_under(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "reports").rglob("*")) if p.is_file()}


def test_committed_reports_are_current(repo, cli):
    run = cli("build", "--root", repo, "--check")
    assert run.code == 0, run.err
    assert run.out.startswith("ok: all ") and run.out.endswith(" generated files are current\n")


def test_check_writes_nothing_and_lists_stale_files(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "category", "framework")
    before = files_under(survey)
    run = cli("build", "--root", survey, "--check")
    assert run.code == 1
    assert "stale: reports/STATS.md" in run.err.splitlines()
    assert "stale: reports/tables/category.csv" in run.err.splitlines()
    assert "stale: reports/figures/category_counts.png" in run.err.splitlines()
    assert "stale: reports/figures/topology_counts.png" not in run.err.splitlines()
    assert run.err.splitlines()[-1].startswith("masrl build --check: ") and run.err.endswith("out of date; run `masrl build` and commit the result\n")
    assert files_under(survey) == before


def test_missing_and_orphaned_files_are_reported(survey, cli):
    (survey / "reports/gaps.json").unlink()
    (survey / "reports/tables/old_table.csv").write_text("x\n")
    run = cli("build", "--root", survey, "--check")
    assert run.code == 1
    assert "missing: reports/gaps.json" in run.err.splitlines()
    assert "orphaned (no longer generated): reports/tables/old_table.csv" in run.err.splitlines()
    assert cli("build", "--root", survey).code == 0
    assert not (survey / "reports/tables/old_table.csv").exists()
    assert cli("build", "--root", survey, "--check").code == 0


def test_one_retag_changes_exactly_the_affected_cells(survey, cli, set_field):
    before = files_under(survey)
    set_field(survey / "corpus/papers/c3.yaml", "scenario", "math")
    run = cli("build", "--root", survey)
    assert run.code == 0, run.err
    after = files_under(survey)
    changed = sorted(k for k in after if after[k] != before.get(k))
    assert changed == ["reports/STATS.md", "reports/tables/scenario.csv",
                       "reports/tables/scenario.md", "reports/tex/numbers.tex", "reports/tex/scenario.tex"]
    old = before["reports/tables/scenario.csv"].decode().splitlines()
    new = after["reports/tables/scenario.csv"].decode().splitlines()
    assert [(a, b) for a, b in zip(old, new) if a != b] == [("general,general,45", "general,general,44"), ("math,math,9", "math,math,10")]
    numbers = [(a, b) for a, b in zip(before["reports/tex/numbers.tex"].decode().splitlines(),
                                      after["reports/tex/numbers.tex"].decode().splitlines()) if a != b]
    assert numbers == [("\\newcommand{\\NumScenarioGeneral}{45}", "\\newcommand{\\NumScenarioGeneral}{44}"),
                       ("\\newcommand{\\NumScenarioMath}{9}", "\\newcommand{\\NumScenarioMath}{10}")]
    assert cli("build", "--root", survey, "--check").code == 0


def test_build_is_byte_identical_across_runs_with_every_figure_redrawn(survey, cli):
    first = files_under(survey)
    assert cli("build", "--root", survey, "--rerender-figures").code == 0
    second = files_under(survey)
    assert cli("build", "--root", survey, "--rerender-figures").code == 0
    assert files_under(survey) == second
    assert second == first  # and equal to what is committed


def test_invalid_records_stop_the_build_and_nothing_is_written(survey, cli, set_field):
    set_field(survey / "corpus/papers/marft.yaml", "reward_type", "hybird")
    before = files_under(survey)
    run = cli("build", "--root", survey)
    assert run.code == 1
    assert run.err.splitlines()[-1] == "masrl: error: 1 error in 1 file; nothing was written (fix the records, then build again)."
    assert files_under(survey) == before


def test_a_broken_current_claim_fails_the_build_naming_the_claim(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "credit_mechanism", "broad")
    run = cli("build", "--root", survey)
    assert run.code == 1
    assert ("masrl: error: claim 'message-credit-sparse' (Message-level credit is sparse.) no longer holds: records with "
            "strict explicit message credit: stated {c3}, computed 0 {}. Revisit the text of the claim in "
            "corpus/claims.yaml (and the survey), or the tags.") in run.err.splitlines()
    assert "| [message-credit-sparse](#message-credit-sparse) | current | **FAILS** |" in (survey / "reports/claims.md").read_text()


@pytest.mark.parametrize("command", [["validate"], ["build", "--check"]])
def test_validate_and_check_do_not_import_matplotlib(repo, command):
    code = ("import sys; from masrl.cli import main; rc = main(%r); "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'; sys.exit(rc)") % (command + ["--root", str(repo)])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_help_of_every_command(cli, capsys):
    for args in (["--help"], ["validate", "--help"], ["build", "--help"], ["add", "--help"], ["exclude", "--help"],
                 ["diff", "--help"], ["trace", "--help"]):
        with pytest.raises(SystemExit) as exit_info:
            cli(*args)
        assert exit_info.value.code == 0
        assert "usage: masrl" in capsys.readouterr().out


def test_python_dash_m(repo):
    done = subprocess.run([sys.executable, "-m", "masrl", "validate", "--root", str(repo)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("ok: 84 retained")
