"""masrl trace summarize: many traces -> Parquet rows, a report, the same on Dask."""

from __future__ import annotations

import io
import json
import os

import pandas as pd
import pytest
from conftest import survey_trace

from masrl.cli import main
from masrl.trace.summarize import (
    COLUMNS,
    expand_inputs,
    frame,
    parquet_bytes,
    run_dask,
    run_local,
)


def labelled(step, policy, reward):
    trace = survey_trace()
    trace["labels"] = {"step": step, "policy": policy}
    trace["rewards"] = {"team": reward}
    trace["reward_credit_units"] = {"team": "team"}
    return trace


@pytest.fixture
def runs(tmp_path):
    folder = tmp_path / "runs"
    (folder / "a").mkdir(parents=True)
    for step in (1, 2):
        lines = [json.dumps(labelled(step, p, r)) for p, r in (("A", 0.5 * step), ("B", 1.0 * step))]
        (folder / "a" / f"step{step}.jsonl").write_text("\n".join(lines) + "\n\n")
    (folder / "single.json").write_text(json.dumps(survey_trace()))
    broken = survey_trace()
    broken["events"][0]["t"] = -1
    (folder / "broken.json").write_text(json.dumps(broken))
    (folder / "notes.txt").write_text("not a trace")
    return folder


def test_expand_inputs(runs):
    files, problems = expand_inputs([str(runs), str(runs / "a" / "*.jsonl"), str(runs / "nope.json"), str(runs / "z*.json")])
    names = [f.replace(str(runs) + "/", "") for f in files]
    assert names == ["a/step1.jsonl", "a/step2.jsonl", "broken.json", "single.json"]
    assert problems == [f"{runs}/nope.json: no such file or folder", f"{runs}/z*.json: no file matches this pattern"]


def test_a_trace_file_of_a_folder_that_cannot_be_read_is_named_not_skipped(runs, tmp_path, capsys):
    """A link to nothing and a loop of links named *.json in a folder given to summarize: each named (they had been
    skipped without a word, though the same link named on the command line was an error); a folder named *.json is
    a folder, whose files count."""
    (runs / "dangling.json").symlink_to("nowhere.json")
    (runs / "l1.json").symlink_to("l2.json")
    (runs / "l2.json").symlink_to("l1.json")
    (runs / "more.json").mkdir()
    files, problems = expand_inputs([str(runs)])
    assert [f.replace(str(runs) + "/", "") for f in files] == ["a/step1.jsonl", "a/step2.jsonl", "broken.json", "single.json"]
    assert problems == [f"{runs}/dangling.json: a link to nothing or a loop of links (No such file or directory)",
                        f"{runs}/l1.json: a link to nothing or a loop of links (Too many levels of symbolic links)",
                        f"{runs}/l2.json: a link to nothing or a loop of links (Too many levels of symbolic links)"]
    out = tmp_path / "r.parquet"
    assert main(["trace", "summarize", str(runs), "--out", str(out)]) == 1 and not out.exists()
    assert capsys.readouterr().err.splitlines() == [*problems, "masrl: error: 3 inputs cannot be read; nothing was summarised"]


def test_a_file_reached_twice_is_one_file(runs, monkeypatch):
    """Named again with another spelling, or linked from inside the folder: one file, one row (by its first
    name in sorted order); a name that is neither a file nor a folder is said to be so."""
    os.symlink(runs / "single.json", runs / "a" / "link.json")
    os.mkfifo(runs / "pipe")
    monkeypatch.chdir(runs.parent)
    files, problems = expand_inputs(["runs", "./runs/single.json", "runs/a/../single.json", "runs/pipe"])
    assert files == ["./runs/single.json", "runs/a/step1.jsonl", "runs/a/step2.jsonl", "runs/broken.json"]
    assert problems == ["runs/pipe: not a file or folder (a trace is a .json or .jsonl file)"]
    df, _invalid = frame(run_local(files, {}, workers=1))
    assert df["trace"].tolist() == ["./runs/single.json", "runs/a/step1.jsonl:1", "runs/a/step1.jsonl:2",
                                    "runs/a/step2.jsonl:1", "runs/a/step2.jsonl:2"]


def test_rows_labels_and_invalid(runs):
    files, _ = expand_inputs([str(runs)])
    df, invalid = frame(run_local(files, {"run": "exp7"}, workers=1))
    assert list(df.columns) == [*COLUMNS, "run", "step", "policy"]
    assert [t.replace(str(runs) + "/", "") for t in df["trace"]] == ["a/step1.jsonl:1", "a/step1.jsonl:2", "a/step2.jsonl:1", "a/step2.jsonl:2", "single.json"]
    assert df["step"].tolist()[:4] == [1.0, 1.0, 2.0, 2.0] and pd.isna(df["step"].iloc[4])
    assert df["policy"].tolist()[:4] == ["A", "B", "A", "B"]
    assert set(df["run"]) == {"exp7"}
    first = df.iloc[0]
    assert (first["events"], first["critical_path_steps"], first["protocol_overhead"]) == (8, 7, 0.75)
    assert (first["reward_team"], first["reward_unmapped"], first["reward_total"]) == (0.5, 0.0, 0.5)
    assert (first["decision_O1"], first["decision_untagged"], first["events_spawn"]) == (0, 1, 2)
    assert first["tokens"] == 12000 and first["tokens_per_reward"] == 24000
    assert len(invalid) == 1 and invalid[0][0].endswith("broken.json")
    assert invalid[0][1] == [f"{runs}/broken.json: $.events[0].t: event e1: t must be a number >= 0, got -1"]


def test_local_processes_equal_one_process(runs):
    files, _ = expand_inputs([str(runs)])
    one = parquet_bytes(frame(run_local(files, {}, workers=1))[0])
    from masrl.trace import summarize

    old = summarize.BATCH_FILES
    summarize.BATCH_FILES = 1  # one file per task: several processes really run
    try:
        many = parquet_bytes(frame(run_local(files, {}, workers=2))[0])
    finally:
        summarize.BATCH_FILES = old
    assert many == one


def test_dask_local_cluster_writes_the_same_parquet(runs, monkeypatch):
    distributed = pytest.importorskip("distributed", reason="the dask extra is part of .[test]; skipped only without it")
    files, _ = expand_inputs([str(runs)])
    local = parquet_bytes(frame(run_local(files, {"run": "x"}, workers=1))[0])
    from masrl.trace import summarize

    monkeypatch.setattr(summarize, "BATCH_FILES", 1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster:
        through_dask = parquet_bytes(frame(run_dask(files, {"run": "x"}, cluster.scheduler_address))[0])
    assert through_dask == local
    assert pd.read_parquet(__import__("io").BytesIO(through_dask))["run"].tolist() == ["x"] * 5


def test_cli_writes_parquet_report_and_figures(runs, tmp_path, capsys):
    out = tmp_path / "out" / "run.parquet"
    code = main(["trace", "summarize", str(runs), "--out", str(out), "--by", "policy", "--label", "run=r1", "--quiet"])
    captured = capsys.readouterr()
    assert code == 1  # one invalid trace: listed, skipped, the rest written
    assert captured.err.splitlines() == [
        f"{runs}/broken.json: $.events[0].t: event e1: t must be a number >= 0, got -1",
        f"5 traces from 4 files summarised into {out}; 1 trace skipped (why: above)",
    ]
    df = pd.read_parquet(out)
    assert len(df) == 5 and set(df["run"]) == {"r1"}
    report = (tmp_path / "out" / "run.md").read_text()
    assert "5 traces summarised from 4 files; 1 skipped (invalid, or too large to summarise)." in report
    assert "| critical path (steps) | 5 | 7 | 7 | 7 | 7 | 7 |" in report
    assert "| metric | A (n=2) | B (n=2) | (no policy) (n=1) |" in report
    assert "| reward | 0.75 (0.75) | 1.5 (1.5) | 1.4 (1.4) |" in report
    assert "| 1 | A | 1 | 7 | 1.143 | 3 | 0.75 | 12000 | 0.5 |" in report
    assert "![Medians of the headline metrics by step](run.figures/trends.png)" in report
    # intraword underscores stay; the dollar (math) and the brackets (links) are escaped
    assert f"- {runs}/broken.json: \\$.events\\[0\\].t: event e1: t must be a number >= 0, got -1" in report
    for name in ("distributions", "trends"):
        assert (tmp_path / "out" / "run.figures" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    # without figures: the same report but its two figure links (and the blank lines before them), no figure folder
    bare = tmp_path / "bare" / "run.parquet"
    assert main(["trace", "summarize", str(runs), "--out", str(bare), "--by", "policy", "--label", "run=r1", "--no-figures",
                 "--quiet"]) == 1
    assert not (tmp_path / "bare" / "run.figures").exists()
    assert (tmp_path / "bare" / "run.md").read_text() == report.replace(
        "\n\n![Distributions of the headline metrics](run.figures/distributions.png)", "").replace(
        "\n\n![Medians of the headline metrics by step](run.figures/trends.png)", "")


def test_cli_bad_arguments(tmp_path, capsys):
    assert main(["trace", "summarize", str(tmp_path / "none"), "--out", str(tmp_path / "x.parquet")]) == 1
    assert capsys.readouterr().err == f"masrl: error: {tmp_path}/none: no such file or folder\n"
    (tmp_path / "t.json").write_text(json.dumps(survey_trace()))
    assert main(["trace", "summarize", str(tmp_path / "t.json"), "--out", str(tmp_path / "x.parquet"), "--label", "oops"]) == 1
    assert capsys.readouterr().err == "masrl: error: --label 'oops': expected KEY=VALUE, e.g. --label step=120\n"
    assert main(["trace", "summarize", str(tmp_path / "t.json"), "--out", str(tmp_path / "x.parquet"), "--by", "team", "--quiet"]) == 1
    assert capsys.readouterr().err == "masrl: error: --by team: no trace has this label; labels found: run, step, policy\n"
    # a step that is not a finite number is the command line's mistake, not every trace's; all of them at once
    assert main(["trace", "summarize", str(tmp_path / "t.json"), "--out", str(tmp_path / "x.parquet"), "--label", "step=nan",
                 "--label", "step=1e400", "--label", "bad", "--quiet"]) == 1
    assert capsys.readouterr().err == (
        "masrl: error: --label 'step=nan': a numeric step is a finite number within ±2**53 (such as 120); --label "
        "'step=1e400': a numeric step is a finite number within ±2**53 (such as 120); --label 'bad': expected "
        "KEY=VALUE, e.g. --label step=120\n")
    assert not (tmp_path / "x.parquet").exists()


def test_by_names_a_label_whatever_its_name(tmp_path, capsys):
    """--by takes the name a label has in the traces and in 'labels found' (its column is label_<name>)."""
    (tmp_path / "t.json").write_text(json.dumps(survey_trace()))
    for label, by in (("label_x=1", "label_x"), ("team=a", "team"), ("team=a", "label_team")):
        out = tmp_path / f"{by}.parquet"
        assert main(["trace", "summarize", str(tmp_path / "t.json"), "--out", str(out), "--label", label, "--by", by,
                     "--no-figures", "--quiet"]) == 0, capsys.readouterr().err
        assert f"| metric | {label.split('=')[1]} (n=1) |" in out.with_suffix(".md").read_text()


def test_report_escapes_labels(tmp_path, capsys):
    trace = labelled(1, "[x](javascript:alert(1)) <b>|", 1.0)
    (tmp_path / "t.json").write_text(json.dumps(trace))
    assert main(["trace", "summarize", str(tmp_path / "t.json"), "--out", str(tmp_path / "r.parquet"), "--by", "policy", "--quiet"]) == 0
    report = (tmp_path / "r.md").read_text()
    assert "| metric | \\[x\\](javascript:alert(1)) \\<b>\\| (n=1) |" in report
    assert "<b>" not in report.replace("\\<b>", "") and "[x](" not in report


# -- one odd trace never loses the batch ---------------------------------------------------


def _summarize(tmp_path, traces: dict, *args):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, text in traces.items():
        (folder / name).write_text(text if isinstance(text, str) else json.dumps(text))
    out = tmp_path / "run.parquet"
    code = main(["trace", "summarize", str(folder), "--out", str(out), "--quiet", *args])
    return code, folder, out


def test_by_a_label_some_traces_lack_groups_them_as_none(tmp_path, capsys):
    """--by policy with a step label on every trace but policy on only one: the trends table has a
    (no policy) group instead of a traceback (pandas' NA in a group key)."""
    code, _folder, out = _summarize(tmp_path, {"a.json": labelled(1, None, 0.5) | {"labels": {"step": 1}},
                                               "b.json": labelled(2, "A", 1.0)}, "--by", "policy", "--no-figures")
    assert code == 0 and capsys.readouterr().err == ""
    report = out.with_suffix(".md").read_text()
    assert "| metric | A (n=1) | (no policy) (n=1) |" in report
    assert "| 1 | (no policy) | 1 | 7 | 1.143 | 3 | 0.75 | 12000 | 0.5 |" in report
    assert "| 2 | A | 1 | 7 | 1.143 | 3 | 0.75 | 12000 | 1 |" in report


@pytest.mark.parametrize(("step", "valid"), [(2**53, True), (-(2**53), True), (2**53 + 1, False), (1e308, False)])
def test_a_step_beyond_2_53_is_listed_and_skipped(tmp_path, capsys, step, valid):
    code, folder, out = _summarize(tmp_path, {"a.json": labelled(step, "A", 0.5), "b.json": labelled(2, "A", 1.0)},
                                   *(("--no-figures",) if valid else ()))
    err = capsys.readouterr().err.splitlines()
    if valid:
        assert code == 0 and len(pd.read_parquet(out)) == 2
        return
    assert code == 1
    assert err == [
        f"{folder}/a.json: $.labels.step: {step!r} is beyond 2**53 in magnitude, too large to summarise (statistics "
        "and figures work in doubles); the trace is skipped",
        f"2 traces from 2 files summarised into {out}".replace("2 traces", "1 trace") + "; 1 trace skipped (why: above)",
    ]
    assert pd.read_parquet(out)["step"].tolist() == [2.0]
    assert out.with_name("run.figures").joinpath("trends.png").read_bytes().startswith(b"\x89PNG")


def test_a_lone_surrogate_in_a_label_is_listed_and_skipped(tmp_path, capsys):
    odd = json.dumps(labelled(1, "POLICY", 0.5)).replace("POLICY", "\\ud800")
    code, folder, out = _summarize(tmp_path, {"a.json": odd, "b.json": labelled(2, "A", 1.0)})
    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{folder}/a.json: $.labels.policy: the text holds a lone surrogate (\\ud800), which is no Unicode character: "
        "write the character itself",
        f"1 trace from 2 files summarised into {out}; 1 trace skipped (why: above)",
    ]
    assert pd.read_parquet(out)["policy"].tolist() == ["A"]
    assert "lone surrogate" in out.with_suffix(".md").read_text()


def test_a_trace_with_a_lone_surrogate_is_invalid_and_nothing_is_written_when_none_is_valid(tmp_path, capsys):
    odd = json.dumps(labelled(1, "POLICY", 0.5)).replace("POLICY", "\\ud800").replace('"trace_id": "', '"trace_id": "\\udc00')
    (tmp_path / "a.json").write_text(odd)
    assert main(["trace", "validate", str(tmp_path / "a.json")]) == 1
    assert capsys.readouterr().err.splitlines()[:2] == [
        f"{tmp_path / 'a.json'}: $.labels.policy: the text holds a lone surrogate (\\ud800), which is no Unicode character: "
        "write the character itself",
        f"{tmp_path / 'a.json'}: $.trace_id: the text holds a lone surrogate (\\udc00), which is no Unicode character: "
        "write the character itself"]
    pair = json.dumps(labelled(1, "POLICY", 0.5)).replace("POLICY", "\\ud83d\\ude00")  # an escaped pair: one character
    (tmp_path / "b.json").write_text(pair)
    assert main(["trace", "validate", str(tmp_path / "b.json")]) == 0
    capsys.readouterr()
    assert main(["trace", "summarize", str(tmp_path / "a.json"), "--out", str(tmp_path / "s.parquet")]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == ("masrl: error: no trace to summarise: 1 trace skipped, each for "
                                                         "the reason above; nothing was written")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


@pytest.mark.parametrize("how", ["same path", "symbolic link", "hard link", "dot segments"])
def test_the_report_and_the_parquet_must_be_two_files(tmp_path, capsys, how):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(survey_trace()))
    out = tmp_path / "run.parquet"
    report = {"same path": out, "symbolic link": tmp_path / "link.md", "hard link": tmp_path / "hard.md",
              "dot segments": tmp_path / "x" / ".." / "run.parquet"}[how]
    if how == "symbolic link":
        report.symlink_to(out)
    if how == "hard link":
        out.write_bytes(b"old")
        report.hardlink_to(out)
    force = ["--force"] if how == "hard link" else []
    code = main(["trace", "summarize", str(trace), "--out", str(out), "--report", str(report), *force])
    assert code == 1
    assert capsys.readouterr().err == (f"masrl: error: nothing was written: {report}: is the same file as the output "
                                       f"{out}; give each output its own file\n")
    assert not out.exists() or out.read_bytes() == b"old"


@pytest.mark.parametrize("args, message", [
    (["--out", ""], "--out '': does not name a file"),
    (["--out", "/"], "--out '/': does not name a file"),
    (["--out", "{tmp}/zz/.."], "--out '{tmp}/zz/..': does not name a file"),
    (["--out", "{tmp}/a.parquet", "--report", ""], "--report '': does not name a file"),
    (["--out", "{tmp}/x.md"], "--out {tmp}/x.md: the Markdown report is written beside the Parquet file, as --out with .md, "
                              "which is this same path; give --out the .parquet suffix, or --report another file (or --no-report)"),
    (["--out", "{tmp}/loopA", "--no-report", "--force"], "nothing was written: {tmp}/loopA: cannot be written: Symlink loop from '{tmp}/loopA'"),
    (["--out", "{tmp}/d.parquet"], "nothing was written: {tmp}/d.figures/distributions.png: cannot be written: {tmp}/d.figures is a "
                                   "file, not a folder"),
    (["--out", "{tmp}/s.parquet", "--report", "{tmp}/link.md", "--force"],
     "nothing was written: {tmp}/link.md: is a symbolic link; masrl writes only regular files: name another path (or remove the link)"),
    (["--out", "{tmp}/dangling.parquet", "--force"],
     "nothing was written: {tmp}/dangling.parquet: is a symbolic link; masrl writes only regular files: name another path (or "
     "remove the link)"),
], ids=["empty", "root", "dot-dot", "empty-report", "md-out", "link-loop", "file-for-folder", "linked-report", "dangling-link"])
def test_an_output_path_that_cannot_be_a_file_is_refused_and_nothing_is_written(tmp_path, capsys, args, message):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(survey_trace()))
    (tmp_path / "loopA").symlink_to(tmp_path / "loopB")
    (tmp_path / "loopB").symlink_to(tmp_path / "loopA")
    (tmp_path / "d.figures").write_text("a file where the figures' folder goes")
    (tmp_path / "real.md").write_text("mine")
    (tmp_path / "link.md").symlink_to(tmp_path / "real.md")
    (tmp_path / "dangling.parquet").symlink_to(tmp_path / "nowhere")
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(["trace", "summarize", str(trace), *[a.format(tmp=tmp_path) for a in args], "--quiet"])
    assert (code, capsys.readouterr().err) == (1, f"masrl: error: {message.format(tmp=tmp_path)}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == before and (tmp_path / "real.md").read_text() == "mine"


def test_a_figure_is_the_png_savefig_writes_without_the_software_tag():
    from matplotlib.figure import Figure

    from masrl.render.figures.style import style_context
    from masrl.trace.summary_report import _png

    with style_context():
        fig = Figure(figsize=(4, 3))
        fig.subplots().hist([1.0, 2.0, 2.0, 3.5], bins=20)
        fig.tight_layout()
        written = io.BytesIO()
        fig.savefig(written, format="png", metadata={"Software": None})
        assert _png(fig) == written.getvalue()
    assert b"Software" not in written.getvalue()


def test_batches_are_large_for_one_worker_and_enough_for_many():
    from masrl.trace import summarize

    files = [f"t{k}.json" for k in range(2000)]
    assert [len(b) for b in summarize.batches(files)] == [256] * 7 + [208]
    assert [len(b) for b in summarize.batches(files, 2)] == [250] * 8
    assert len(summarize.batches(files, 16)) == 63 and sum(map(len, summarize.batches(files, 16))) == 2000
    assert [len(b) for b in summarize.batches(files[:10], 4)] == [1] * 10
    assert summarize.batches([], 4) == []


def test_a_trace_file_is_read_whole_and_one_that_cannot_be_read_is_one_problem(tmp_path):
    """A file larger than one read of the operating system is read to its end; a folder or a missing file
    named as a trace is one problem naming it, and the other traces are measured."""
    from masrl.trace.summarize import Rows, summarize_batch
    from masrl.trace.synth import swarm_for_events

    big = tmp_path / "big.json"
    big.write_text(json.dumps(swarm_for_events(3000)))
    assert big.stat().st_size > 4 << 16
    (tmp_path / "folder.json").mkdir()
    found = summarize_batch([str(big), str(tmp_path / "folder.json"), str(tmp_path / "gone.json")], {})
    rows = [item for item in found if isinstance(item, Rows)]
    assert [len(r.keys) for r in rows] == [1] and list(rows[0].columns["events"]) == [3000]
    assert [(item[0], item[3]) for item in found if not isinstance(item, Rows)] == [
        (str(tmp_path / "folder.json"), [f"{tmp_path / 'folder.json'}: cannot read: Is a directory"]),
        (str(tmp_path / "gone.json"), [f"{tmp_path / 'gone.json'}: cannot read: No such file or directory"])]


@pytest.mark.parametrize("label", ["x\x1b]0;pwn\x07", "a\u202eb", "[x](y)\x1b[2J"])
def test_report_writes_a_control_or_bidi_character_of_a_label_as_its_escape(tmp_path, capsys, label):
    """A label that sets the terminal's title (OSC), clears it or reorders text reaches the Markdown report only
    as its escape, in the groups' header and in the trends table."""
    (tmp_path / "t.json").write_text(json.dumps(labelled(1, label, 1.0)))
    assert main(["trace", "summarize", str(tmp_path / "t.json"), "--out", str(tmp_path / "r.parquet"), "--by", "policy",
                 "--quiet"]) == 0
    report = (tmp_path / "r.md").read_text()
    shown = {"x\x1b]0;pwn\x07": r"x\\x1b\]0;pwn\\x07", "a\u202eb": r"a\\u202eb",
             "[x](y)\x1b[2J": r"\[x\](y)\\x1b\[2J"}[label]  # Markdown for the text x\x1b]0;pwn\x07 and so on
    assert f"| metric | {shown} (n=1) |" in report
    assert f"| 1 | {shown} | 1 |" in report
    assert not {"\x1b", "\x07", "\u202e"} & set(report)


def test_by_step_the_trends_have_one_step_column(tmp_path, capsys):
    for k, step in enumerate((1, 2)):
        (tmp_path / f"t{k}.json").write_text(json.dumps(labelled(step, "A", 1.0)))
    assert main(["trace", "summarize", str(tmp_path / "t0.json"), str(tmp_path / "t1.json"), "--out",
                 str(tmp_path / "r.parquet"), "--by", "step", "--no-figures", "--quiet"]) == 0
    report = (tmp_path / "r.md").read_text()
    assert "Median per step.\n" in report and "Median per step and step" not in report
    assert "\n| step | traces | " in report and "| step | step |" not in report


def _trends(report: str) -> list[str]:
    """The step cells of the trends table, in order."""
    table = report.split("## Trends by step", 1)[1].split("\n## ", 1)[0]
    return [line.split(" | ")[0].removeprefix("| ") for line in table.splitlines() if line.startswith("| ")][1:]


@pytest.mark.parametrize("steps", [(1, 2, 10, 9), ("1", "2", "10", "9")])
def test_steps_are_in_their_order_as_numbers_also_when_written_as_text(tmp_path, capsys, steps):
    """Langfuse's metadata and OpenTelemetry's string attributes carry the step as text ("10"): the trends were
    listed 1, 10, 2, 9 and no trend figure was drawn; --by step headed its groups 1.0, 10.0, 2.0, 9.0."""
    text = isinstance(steps[0], str)  # the figure of the text steps is drawn; the numbers' needs no second look
    code, _folder, out = _summarize(tmp_path, {f"t{k}.json": labelled(step, "A", 1.0) for k, step in enumerate(steps)},
                                    "--by", "step", *(() if text else ("--no-figures",)))
    assert code == 0, capsys.readouterr().err
    report = out.with_suffix(".md").read_text()
    assert _trends(report) == ["1", "2", "9", "10"], report
    assert "| metric | 1 (n=1) | 2 (n=1) | 9 (n=1) | 10 (n=1) |" in report
    assert (tmp_path / "run.figures" / "trends.png").is_file() == text and "not a number" not in report
    assert pd.read_parquet(out)["step"].tolist() == [1.0, 2.0, 10.0, 9.0]


def test_mixed_steps_list_numbers_in_their_order_however_written_then_the_texts(tmp_path, capsys):
    """' 7 ' was read as 7 when every step was a number, and sorted among the texts (after '10') when one was not."""
    traces = {f"t{k}.json": labelled(step, "A", 1.0) for k, step in enumerate(["1", "10", "NaN", " 7 ", "+5", "1e400"])}
    code, _folder, out = _summarize(tmp_path, traces, "--no-figures")
    assert code == 0, capsys.readouterr().err
    assert _trends(out.with_suffix(".md").read_text()) == ["1", "+5", "7", "10", "1e400", "NaN"]


def test_text_steps_beside_json_numbers_keep_their_order_and_the_odd_one_is_blamed(tmp_path, capsys):
    """Beside a step written as the number 3, the texts were written as JSON ('"10"'): they sorted as texts and '"10"'
    was named as no number. Groups that differ only by blanks at an end had the same heading ('B', ' B', 'B ')."""
    traces = {f"t{k}.json": labelled(step, policy, 1.0)
              for k, (step, policy) in enumerate([("10", "B"), ("9", " B"), ("abc", "B "), (3, "B")])}
    code, _folder, out = _summarize(tmp_path, traces, "--by", "policy", "--no-figures")
    assert code == 0, capsys.readouterr().err
    report = out.with_suffix(".md").read_text()
    assert _trends(report) == ["3", '"9"', '"10"', '"abc"'] and "The step label '\"abc\"' is not a number" in report
    header = next(line for line in report.splitlines() if line.startswith("| metric | ") and "(n=" in line)
    assert header == "| metric | ' B' (n=1) | B (n=2) | 'B ' (n=1) |", header


@pytest.mark.parametrize("odd", ["warmup", "1e400", "9007199254740993"])
def test_a_step_that_is_no_number_is_named_and_the_others_keep_their_order(tmp_path, capsys, odd):
    """'1e400' ended the run with a StopIteration; '9007199254740993' was summarised as step 9007199254740992."""
    traces = {f"t{k}.json": labelled(step, "A", 1.0) for k, step in enumerate(("1", "2", "10", "9", odd))}
    code, _folder, out = _summarize(tmp_path, traces, *(() if odd == "warmup" else ("--no-figures",)))
    assert code == 0, capsys.readouterr().err
    report = out.with_suffix(".md").read_text()
    assert _trends(report) == ["1", "2", "9", "10", odd] if odd == "warmup" else _trends(report)[-1] == odd, report
    assert (f"Median per step. The step label '{odd}' is not a number a step may be (a finite number within ±2^53), so the "
            "steps are listed as texts (numbers first, in their order) and no trend is drawn.\n") in report
    assert not (tmp_path / "run.figures" / "trends.png").exists()


def test_every_group_has_a_heading_of_its_own(tmp_path, capsys):
    """A policy written '(none)', a missing one, 'x\\ny' and 'x y': four groups, four headings."""
    for k, policy in enumerate(["(none)", None, "x\ny", "x y"]):
        trace = labelled(1, policy, 1.0)
        if policy is None:
            del trace["labels"]["policy"]
        (tmp_path / f"t{k}.json").write_text(json.dumps(trace))
    assert main(["trace", "summarize", str(tmp_path), "--out", str(tmp_path / "r.parquet"), "--by", "policy",
                 "--no-figures", "--quiet"]) == 0, capsys.readouterr().err
    header = next(line for line in (tmp_path / "r.md").read_text().splitlines() if line.startswith("| metric | ")
                  and "(n=" in line)
    assert header == "| metric | (none) (n=1) | x\\\\ny (n=1) | x y (n=1) | (no policy) (n=1) |"


def test_label_values_that_differ_in_json_are_different_groups_and_equal_numbers_one(tmp_path, capsys):
    """policy true, "True", 1, 1.0 and "1": four groups (1 and 1.0 are one JSON number), each read as its JSON
    text; the Parquet column holds the same texts, in the plain and the batch path alike."""
    import pyarrow.parquet as pq

    for k, policy in enumerate([True, "True", 1, 1.0, "1"]):
        (tmp_path / f"t{k}.json").write_text(json.dumps(labelled(1, policy, 1.0)))
    assert main(["trace", "summarize", str(tmp_path), "--out", str(tmp_path / "r.parquet"), "--by", "policy",
                 "--no-figures", "--quiet"]) == 0, capsys.readouterr().err
    header = next(line for line in (tmp_path / "r.md").read_text().splitlines() if line.startswith("| metric | ")
                  and "(n=" in line)
    assert header == '| metric | 1 (n=2) | "1" (n=1) | true (n=1) | "True" (n=1) |'  # a number first, as written first
    assert pq.read_table(tmp_path / "r.parquet").column("policy").to_pylist() == ["true", '"True"', "1", "1", '"1"']


def test_a_valid_trace_too_large_to_summarise_is_said_skipped_not_invalid(tmp_path, capsys):
    big = survey_trace()
    big["costs"]["tokens"] = 2**63
    (tmp_path / "big.json").write_text(json.dumps(big))
    assert main(["trace", "validate", str(tmp_path / "big.json")]) == 0
    capsys.readouterr()
    assert main(["trace", "summarize", str(tmp_path / "big.json"), "--out", str(tmp_path / "s.parquet")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"{tmp_path / 'big.json'}: tokens: 9223372036854775808 is beyond 2**53 in magnitude, too large to "
                      "summarise (statistics and figures work in doubles); the trace is skipped")
    assert err[-1] == "masrl: error: no trace to summarise: 1 trace skipped, each for the reason above; nothing was written"
    assert "invalid" not in "\n".join(err)


def test_the_trends_table_names_each_group_as_the_group_table_does(tmp_path, capsys):
    """A policy literally '(no policy)' beside traces without one, and 'a\\nb' beside 'a\\\\nb': the group table numbered
    the second of each, the trends table showed two rows of one name with different numbers; and the traces without the
    label took the number, though the manual groups them under '(no policy)'."""
    traces = {}
    for k, (policy, step) in enumerate([("(no policy)", 1), (None, 1), ("a\nb", 2), ("a\\nb", 2)]):
        trace = labelled(step, policy, float(k))
        if policy is None:
            del trace["labels"]["policy"]
        traces[f"t{k}.json"] = trace
    code, _folder, out = _summarize(tmp_path, traces, "--by", "policy", "--no-figures")
    assert code == 0, capsys.readouterr().err
    report = out.with_suffix(".md").read_text()
    header = next(line for line in report.splitlines() if line.startswith("| metric | ") and "(n=" in line)
    assert header == "| metric | (no policy) \\[2\\] (n=1) | a\\\\nb (n=1) | a\\\\nb \\[2\\] (n=1) | (no policy) (n=1) |"
    table = report.split("## Trends by step", 1)[1].split("\n## ", 1)[0]
    rows = [line.split(" | ")[:2] for line in table.splitlines() if line.startswith("| ") and not line.startswith("| step")]
    assert rows == [["| 1", "(no policy) \\[2\\]"], ["| 1", "(no policy)"], ["| 2", "a\\\\nb"], ["| 2", "a\\\\nb \\[2\\]"]]


def test_the_legend_of_many_groups_fits_under_the_plots_and_leaves_their_labels_clear():
    """With eight policy names the legend was cut at both edges ('…line') and drawn over the 'step' axis labels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from masrl.trace.summary_report import _legend

    names = ["grpo-baseline", "ppo-lr3e-5", "grpo-with-orchestrator-credit", "reinforce++", "dpo-offline", "rloo-k4",
             "grpo-team-reward-shaped", "ppo-critic-shared"]
    fig = Figure(figsize=(7.0, 4.6))
    axes = fig.subplots(2, 3).ravel()
    for ax in axes:
        for k, name in enumerate(names):
            ax.plot([0, 1, 2], [k, k + 1, k], label=name)
        ax.set_xlabel("step")
    bottom = _legend(fig, axes[0], 4.6)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    legend = fig.legends[0].get_window_extent(renderer)
    page = fig.bbox
    assert page.x0 <= legend.x0 and legend.x1 <= page.x1 and page.y0 <= legend.y0
    assert all(not legend.overlaps(t.get_window_extent(renderer)) for ax in axes
               for t in [ax.xaxis.label, *ax.get_xticklabels()] if t.get_text() and t.get_visible())
    assert [t.get_text().replace("\n", "") for t in fig.legends[0].get_texts()] == names  # wrapped, never cut


def test_groups_beyond_the_eight_colours_are_drawn_apart():
    """The ninth group was drawn in the first group's colour and marker: two policies alike in the figure."""
    from masrl.trace.summary_report import _look

    assert len({_look(k) for k in range(32)}) == 32 and _look(8)[0] == _look(0)[0] and _look(8)[1:] != _look(0)[1:]


def test_labels_cut_to_the_same_text_keep_their_ends():
    """Two policies differing only at their ends were cut to one legend text; two bar labels likewise."""
    from masrl.render.figures.style import tick_labels

    long = "grpo-with-kl-penalty-0.01-and-entropy-bonus-schedule-linear-"
    a, b = tick_labels([long + "A", long + "B"], 1.2, 9, 2)
    assert a != b and a.endswith("A") and b.endswith("B") and "…" in a
    assert tick_labels(["short", "short two"], 1.2, 9, 2) == ["short", "short two"]


def test_labels_that_differ_only_in_their_middle_are_numbered_apart():
    from masrl.render.figures.style import tick_labels

    head, tail = "runs/2026-05-01/ppo-orchestrator-gpt4o-2024-08-06-temperature-0.7-", "-seed1-final-checkpoint-step-1000"
    labels = tick_labels([head + "lr3e-5" + tail, head + "lr1e-5" + tail, head + "lr3e-5" + tail], 1.2, 9, 2)
    assert labels[0] == labels[2] and labels[0] != labels[1] and labels[1].endswith("[2]") and labels[0].endswith("[1]")
