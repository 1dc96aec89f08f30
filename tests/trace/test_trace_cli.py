"""``masrl trace`` through the main CLI: exit codes, stderr, no traceback."""

from __future__ import annotations

import json

import pytest
from conftest import DATA, SURVEY_BYTES, survey_trace

from masrl.cli import main


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.json"
    good.write_bytes(SURVEY_BYTES)
    bad = tmp_path / "bad.json"
    trace = survey_trace()
    trace["events"][3]["t"] = -1
    trace["edges"].append({"src": "e5", "dst": "e9", "type": "causal"})
    bad.write_text(json.dumps(trace))
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\x00\xff{")
    return good, bad, broken


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_validate_ok(capsys, files):
    good, _, _ = files
    assert run(capsys, "trace", "validate", str(good)) == (0, "1 trace file valid\n", "")


def test_validate_reports_all_errors_sorted(capsys, files):
    good, bad, broken = files
    code, out, err = run(capsys, "trace", "validate", str(bad), str(good), str(broken))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"{bad}: $.edges[8].dst: edge e5->e9 (causal): dst 'e9' is not an event id",
        f"{bad}: $.events[3].t: event e4: t must be a number >= 0, got -1",
        f"{broken}:1: not UTF-8 text: byte 0xff at offset 1 is invalid",
        "3 errors in 2 files; 1 of 3 files valid.",
    ]


def test_validate_missing_file_is_a_user_error(capsys, files, tmp_path):
    good, _, _ = files
    code, out, err = run(capsys, "trace", "validate", str(good), str(tmp_path / "nope.json"))
    assert code == 1 and err == f"masrl: error: {tmp_path / 'nope.json'}: no such file\n"


def test_every_path_that_is_no_trace_file_is_named_at_once(capsys, files, tmp_path):
    good, _, _ = files
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "l1.json").symlink_to("l2.json")
    (tmp_path / "l2.json").symlink_to("l1.json")
    (tmp_path / "d.json").symlink_to("nowhere.json")
    names = [tmp_path / n for n in ("l1.json", "dir.json", "d.json", "none.json")]
    code, out, err = run(capsys, "trace", "validate", str(good), *map(str, names))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"{names[0]}: a link to nothing or a loop of links (Too many levels of symbolic links)",
        f"{names[1]}: a folder, not a file (`masrl trace summarize` reads folders)",
        f"{names[2]}: a link to nothing or a loop of links (No such file or directory)",
        f"{names[3]}: no such file",
        "masrl: error: 4 errors in 4 files; nothing was read."]


def test_metrics_json_and_md(capsys, files):
    good, _, _ = files
    code, out, err = run(capsys, "trace", "metrics", str(good), "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data[str(good)]["critical_path_steps"] == 7
    assert out == json.dumps(data, sort_keys=True, indent=2) + "\n"
    code, out, err = run(capsys, "trace", "metrics", str(good))
    assert code == 0 and out.startswith("# Orchestration trace metrics\n")


def test_metrics_of_an_invalid_file(capsys, files):
    good, bad, _ = files
    code, out, err = run(capsys, "trace", "metrics", str(good), str(bad))
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == "2 errors in 1 file; no metrics were printed."


def test_convert(capsys, tmp_path):
    out_file = tmp_path / "out.json"
    src = DATA / "otel_nested.json"
    code, out, err = run(capsys, "trace", "convert", "--from", "otel", str(src), "-o", str(out_file))
    assert code == 0 and out == ""
    assert err.splitlines()[0] == f"{src}: converted 9 of 11 spans into 13 events and 13 edges; 2 unmapped; 430 tokens counted; 1 model-call spans of leaf agents folded into their agent's return or stop (60 tokens)"
    assert f"{src}: unmapped span 'HTTP GET' (h1): no gen_ai.operation.name; its children are kept" in err
    assert run(capsys, "trace", "validate", str(out_file))[0] == 0
    code, out, _ = run(capsys, "trace", "convert", "--from", "otel", str(src))
    assert code == 0 and json.loads(out) == json.loads(out_file.read_text())


def test_json_on_stdout_escapes_what_would_act_on_the_terminal(capsys, tmp_path):
    # U+009B is a C1 control (CSI, as ESC [ is), U+202E reorders what follows, U+E0041 is an invisible tag
    log = {"question_ID": "q\u009b2J", "history": [{"role": "Orch\u202e (-> W)", "content": "a"},
                                                   {"role": "W\U000e0041", "content": "b"}]}
    src = tmp_path / "ml.json"
    src.write_text(json.dumps(log))
    out_file = tmp_path / "t.json"
    assert run(capsys, "trace", "convert", str(src), "-o", str(out_file))[0] == 0
    code, out, _ = run(capsys, "trace", "convert", str(src))
    assert code == 0 and not any(ch in out for ch in "\u009b\u202e\U000e0041")
    trace = json.loads(out)
    assert trace == json.loads(out_file.read_text())  # the same values
    # run 45: names hold the characters escaped (written out), not the characters
    assert (trace["trace_id"], sorted({e["agent"] for e in trace["events"]})) == ("q\\x9b2J", ["Orch\\u202e", "W\\U000e0041"])
    code, out, _ = run(capsys, "trace", "metrics", "--format", "json", str(out_file))
    assert code == 0 and not any(ch in out for ch in "\u009b\u202e\U000e0041") and '"trace_id": "q\\\\x9b2J"' in out


def test_validate_and_metrics_read_json_lines_as_summarize_does(capsys, tmp_path):
    trace = survey_trace()
    broken = {**trace, "events": trace["events"][:1]}
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(json.dumps({**trace, "trace_id": f"t{i}"}) for i in range(3)) + "\n\n")
    code, out, err = run(capsys, "trace", "validate", str(runs))
    assert (code, out, err) == (0, "3 traces in 1 file valid\n", "")
    code, out, err = run(capsys, "trace", "validate", str(runs), f"{tmp_path}/./runs.jsonl")  # one file, named twice
    assert (code, out, err) == (0, "3 traces in 1 file valid\n", "")
    code, out, _ = run(capsys, "trace", "metrics", "--format", "json", str(runs))
    assert code == 0 and sorted(json.loads(out)) == [f"{runs}:{n}" for n in (1, 2, 3)]
    assert {v["trace_id"] for v in json.loads(out).values()} == {"t0", "t1", "t2"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(trace) + "\n{not json\n" + json.dumps(broken) + "\n")
    code, out, err = run(capsys, "trace", "validate", str(bad))
    lines = err.splitlines()
    assert code == 1 and lines[0].startswith(f"{bad}:2: not valid JSON: ") and lines[1].startswith(f"{bad}:3: $.edges[0]")
    assert lines[-1].endswith("in 1 file; 1 of 3 traces valid.")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n \n")
    code, _, err = run(capsys, "trace", "metrics", str(empty))
    assert code == 1 and err == f"masrl: error: {empty}: no trace in this file (a .jsonl file holds one trace per line)\n"


def test_convert_errors(capsys, tmp_path):
    code, out, err = run(capsys, "trace", "convert", "--from", "otel", str(DATA / "otel_two_traces.json"))
    assert code == 1 and err.startswith("masrl: error: ") and "--trace-id" in err
    bad = tmp_path / "x.json"
    bad.write_text("{")
    code, _, err = run(capsys, "trace", "convert", "--from", "otel", str(bad))
    assert code == 1 and err == f"masrl: error: {bad}: not valid JSON: Expecting property name enclosed in double quotes (line 1, column 2)\n"


def test_help_texts(capsys):
    for argv in (["trace", "--help"], ["trace", "validate", "--help"], ["trace", "metrics", "--help"], ["trace", "convert", "--help"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: masrl trace")


def test_trace_without_subcommand_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["trace"])
    assert exit_info.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_masrl_help_does_not_import_the_trace_modules():
    import subprocess
    import sys

    code = "import sys; from masrl.cli import build_parser; build_parser(); print(sorted(m for m in sys.modules if m.startswith('masrl.trace')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['masrl.trace', 'masrl.trace.formats']"


def test_convert_detects_the_format_and_lists_formats(capsys, tmp_path):
    src = DATA / "otel_nested.json"
    code, out, err = run(capsys, "trace", "convert", str(src))
    assert code == 0 and json.loads(out)["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
    assert err.splitlines()[1] == f"{src}: read as OTLP JSON"
    code, out, _ = run(capsys, "trace", "convert", "--formats")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == [
        "openinference", "otel", "langfuse", "openai-agents", "mlflow", "message-log"]
    odd = tmp_path / "odd.json"
    odd.write_text('{"rows": []}')
    code, _, err = run(capsys, "trace", "convert", str(odd))
    assert code == 1 and err.startswith(f"masrl: error: {odd}: not an export in a format masrl trace convert reads: it is a "
                                        "JSON object with the keys rows; tried openinference (")


def test_outputs_never_replace_inputs_records_or_files_without_force(capsys, tmp_path):
    src = tmp_path / "spans.json"
    src.write_bytes((DATA / "otel_nested.json").read_bytes())
    record = tmp_path / "corpus" / "papers" / "c3.yaml"
    record.parent.mkdir(parents=True)
    record.write_text("key: c3\n")
    kept = tmp_path / "kept.json"
    kept.write_text("mine\n")
    for out, why in ((src, "is an input of this command; write the output elsewhere"),
                     (record, "is a survey record file; write the output elsewhere"),
                     (record.with_name("c4.YAML"), "is a survey record file; write the output elsewhere"),  # any case
                     (kept, "exists already; add --force to replace it"),
                     (tmp_path, "is a folder; name a file")):
        code, out_text, err = run(capsys, "trace", "convert", str(src), "-o", str(out))
        assert code == 1 and err == f"masrl: error: nothing was written: {out}: {why}\n"
    assert src.read_bytes() == (DATA / "otel_nested.json").read_bytes() and record.read_text() == "key: c3\n"
    assert kept.read_text() == "mine\n"
    assert run(capsys, "trace", "convert", str(src), "-o", str(kept), "--force")[0] == 0
    assert json.loads(kept.read_text())["events"]
    code, _, err = run(capsys, "trace", "convert", str(src), "-o", str(src), "--force")
    assert code == 1 and "is an input of this command" in err


def test_summarize_never_replaces_its_inputs(capsys, tmp_path):
    trace = tmp_path / "a.json"
    trace.write_bytes(SURVEY_BYTES)
    for args in (["--out", str(trace)], ["--out", str(tmp_path / "r.parquet"), "--report", str(trace)]):
        code, _, err = run(capsys, "trace", "summarize", str(trace), *args, "--quiet")
        assert code == 1 and f"{trace}: is an input of this command" in err
    assert trace.read_bytes() == SURVEY_BYTES
    with pytest.raises(SystemExit) as exit_:
        main(["trace", "summarize", str(trace), "--out", str(tmp_path / "r.parquet"), "--workers", "0"])
    assert exit_.value.code == 2 and "argument --workers: '0' is not a whole number of at least 1" in capsys.readouterr().err


def test_messages_stay_short_and_plain_for_huge_inputs(capsys, tmp_path):
    base = survey_trace()
    long_id = dict(base, events=[*base["events"], dict(base["events"][0], id="x" * 100_000, t=-1)])
    ring = dict(base, events=[{"id": f"e{i}", "type": "message", "agent": "a", "t": 0} for i in range(2000)],
                edges=[{"src": f"e{i}", "dst": f"e{(i + 1) % 2000}", "type": "causal"} for i in range(2000)])
    huge = dict(base, events=[dict(e, tokens=1.7e308) for e in base["events"]])
    files = {"long.json": json.dumps(long_id), "ring.json": json.dumps(ring), "huge.json": json.dumps(huge),
             "digits.json": json.dumps(base).replace('"t": 0', '"t": ' + "9" * 5001, 1)}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code, _, err = run(capsys, "trace", "validate", *(str(tmp_path / n) for n in files))
    assert code == 1 and max(len(line) for line in err.splitlines()) < 400
    assert f"{tmp_path / 'long.json'}: $.events[8].t: event {'x' * 60}...(100001 characters) t must be a number >= 0, got -1" in err
    assert (f"{tmp_path / 'ring.json'}: $.edges[1999]: edge e1999->e0 (causal): closes a cycle of spawn/causal/return edges: "
            "e0 -> e1 -> e2 -> e3 -> e4 -> ... (1991 more) -> e1996 -> e1997 -> e1998 -> e1999 -> e0") in err
    assert (f"{tmp_path / 'huge.json'}: $.events: the sum of the events' tokens overflows a double (inf); the per-event values "
            "are too large to measure") in err
    assert (f"{tmp_path / 'digits.json'}:1: $.events[0]: cannot read a value: an integer with more than 4300 digits "
            "(no count or time is that large)") in err
    code, out, err = run(capsys, "trace", "metrics", "--format", "json", str(tmp_path / "huge.json"))
    assert code == 1 and out == "" and "overflows a double" in err


def test_convert_refuses_a_lone_surrogate_by_name(capsys, tmp_path):
    src = tmp_path / "s.json"
    src.write_text((DATA / "otel_nested.json").read_text().replace('"researcher"', '"res\\ud800earcher"', 1))
    code, out, err = run(capsys, "trace", "convert", str(src))
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (f"masrl: error: {src}: a string holds a lone surrogate escape (\\ud800), which is not "
                                    "Unicode text; fix the export (nothing was written)")


@pytest.mark.parametrize(("name", "fmt"), [("any-agent-OPENAI_trace.otlp.json", "otel"),
                                           ("langfuse-openai-agents-2025-09-30.trace.json", "langfuse")])
def test_validate_names_an_export_to_convert_in_one_line(capsys, name, fmt):
    path = str(DATA / name)
    code, out, err = run(capsys, "trace", "validate", path)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"{path}: not an orchestration trace but an export in the '{fmt}' format; convert it first: "
        f"masrl trace convert {path}",
        "1 error in 1 file; 0 of 1 file valid.",
    ]


def test_validate_and_metrics_help_end_with_examples(capsys):
    for command, example in (("validate", "  masrl trace validate run1.json"), ("metrics", "  masrl trace metrics run1.json")):
        with pytest.raises(SystemExit):
            main(["trace", command, "--help"])
        lines = capsys.readouterr().out.splitlines()
        assert "examples:" in lines and example in lines[lines.index("examples:"):]


def test_a_closed_pipe_during_one_large_write_exits_141(tmp_path):
    """The process is the subject here: its stdout is a pipe that the reader closes after 10 bytes,
    while one write of about 300 KB is under way."""
    import subprocess
    import sys

    paths = []
    for k in range(200):
        path = tmp_path / f"t{k}.json"
        path.write_bytes(SURVEY_BYTES)
        paths.append(str(path))
    proc = subprocess.Popen([sys.executable, "-m", "masrl", "trace", "metrics", *paths, "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.read(10) == b'{\n  "' + str(tmp_path).encode()[:5]
    proc.stdout.close()
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and b"Traceback" not in err


def test_names_from_an_export_are_printed_without_terminal_controls(capsys, tmp_path):
    """A span's name holding ESC or a bidirectional control is printed escaped, never raw."""
    span = {"traceId": "0123456789abcdef0123456789abcdef", "kind": 1, "attributes": []}
    spans = [{**span, "spanId": "aaaaaaaaaaaaaaaa", "name": "invoke_agent boss", "startTimeUnixNano": "1000000000",
              "endTimeUnixNano": "5000000000", "attributes": [
                  {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                  {"key": "gen_ai.agent.name", "value": {"stringValue": "boss"}}]},
             {**span, "spanId": "bbbbbbbbbbbbbbbb", "parentSpanId": "aaaaaaaaaaaaaaaa", "name": "GET \x1b[2J\u202e",
              "startTimeUnixNano": "2000000000", "endTimeUnixNano": "3000000000"}]
    export = tmp_path / "t.json"
    export.write_text(json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [
        {"scope": {"name": "x"}, "spans": spans}]}]}))
    assert main(["trace", "convert", str(export), "-o", str(tmp_path / "out.json")]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err
    assert "unmapped span 'GET \\x1b[2J\\u202e' (bbbbbbbbbbbbbbbb)" in err


def test_outputs_never_replace_a_surveys_sheets_reports_or_readme_even_with_force(capsys, tmp_path):
    """In a survey (a folder above holds corpus/taxonomy.yaml), a round's queue.csv holds unapplied decisions and the
    README text around the paper list: --force replaces neither (nor anything masrl build writes)."""
    src = tmp_path / "spans.json"
    src.write_bytes((DATA / "otel_nested.json").read_bytes())
    survey = tmp_path / "survey"
    (survey / "corpus" / "rounds" / "2026-12-15").mkdir(parents=True)
    (survey / "corpus" / "taxonomy.yaml").write_text("format_version: 2\n")
    (survey / "reports").mkdir()
    targets = {survey / "corpus" / "rounds" / "2026-12-15" / "queue.csv": "in corpus/ (the records, the rounds' sheets)",
               survey / "README.md": "the README", survey / "reports" / "STATS.md": "in reports/ (what masrl build writes)",
               survey / "exclusions" / "x.json": "in exclusions/ (the exclusion log)"}
    for out, part in targets.items():
        if out.parent.is_dir():
            out.write_text("mine\n")
        code, _, err = run(capsys, "trace", "convert", str(src), "-o", str(out), "--force")
        assert code == 1 and err == f"masrl: error: nothing was written: {out}: is {part} of the survey; write the output elsewhere\n"
        assert not out.parent.is_dir() or out.read_text() == "mine\n"
    beside = survey / "traces" / "run.json"  # the survey's own folder for traces: fine
    assert run(capsys, "trace", "convert", str(src), "-o", str(beside))[0] == 0
