"""Fuzzing the two readers of contributors' files: the YAML loader and the BibTeX importer.

The only accepted outcomes are a result or one-line errors, never a traceback.
Runs at the "ci" hypothesis profile by default; for a long run by hand:

    MASRL_HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q tests/test_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from masrl.bib import bibtex
from masrl.checks.validate import validate
from masrl.cli import main
from masrl.corpus.load import parse_tree, read_tree
from masrl.corpus.yamlio import parse

#: The frozen test survey's taxonomy (tests/data/survey).
TAXONOMY = Path(__file__).resolve().parent / "data/survey/corpus/taxonomy.yaml"



def one_line(problems, file: str) -> None:
    for problem in problems:
        text = str(problem)
        assert "\n" not in text and "\r" not in text, text
        assert text.startswith(file), text
        assert "Traceback" not in text


# ---------------------------------------------------------------- YAML
YAML_BITS = ["key: value\n", "title: ", "- ", "  ", "\t", ": ", "\n", "[", "]", "{", "}", ",", "&a ", "*a", "!!python/object:os.system ",
             "!!str ", "!!binary ", "'", '"', "#", "---\n", "...\n", "|\n", ">-\n", "? ", "%YAML 1.1\n", "%TAG ! tag:x,2000:\n",
             "yes", "no", "~", "null", "2510.10", "0x1F", "1e3", ".inf", "2026-04-26", "<<: *a\n", "\\", "\u2028", "\x85",
             "\ufeff", "\x00", "é", "😀", "year: 2026\n", "authors:\n  - Doe, J\n", "key: k\nkey: k\n"]
YAML_TEXT = st.lists(st.one_of(st.sampled_from(YAML_BITS), st.text(max_size=5)), max_size=25).map("".join)


@settings(max_examples=examples(300))
@given(st.one_of(YAML_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=200)))
def test_fuzz_yaml_loader(data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    doc, problems = parse(data, "corpus/papers/x.yaml")
    one_line(problems, "corpus/papers/x.yaml")
    if doc is None:
        assert problems  # a file that cannot be read is always explained


_TAXONOMY = TAXONOMY.read_bytes()
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10, 3000), st.text(max_size=12),
              st.sampled_from(["untagged", "NA", "yes", "rl_method", "2603.06859", "https://x.org/", "c3", "E001"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
_FIELDS = ["key", "title", "authors", "first_author", "affiliation", "year", "venue", "url", "identifiers", "category",
           "is_rl", "reward_type", "credit_granularity", "credit_mechanism", "orchestration_form", "subdecisions",
           "inclusion_criterion", "one_liner", "notes", "bibtex_key", "bibtex", "provenance", "tag_provenance",
           "deployment_envelope", "eval_measures", "record_id", "screening_label", "stage", "date_screened", "if_retained",
           "former_record"]


@settings(max_examples=examples(150))
@given(record=st.dictionaries(st.sampled_from(_FIELDS), _VALUES, max_size=12),
       folder=st.sampled_from(["corpus/papers/", "exclusions/", "corpus/audits/"]))
def test_fuzz_records_through_the_validator(record, folder):
    """Records of the right shape with wrong types and values anywhere: only problems, one line each."""
    text = yaml.safe_dump(record, allow_unicode=True)
    name = folder + ("E001.yaml" if folder == "exclusions/" else "x.yaml")
    corpus = parse_tree({"corpus/taxonomy.yaml": _TAXONOMY, "corpus/claims.yaml": b"claims: []\n", name: text.encode()})
    problems = validate(corpus)
    for problem in problems:
        assert "\n" not in str(problem) and "\r" not in str(problem), str(problem)


# ---------------------------------------------------------------- BibTeX
BIB_BITS = ["@article{", "@inproceedings{", "@misc{", "@string{", "@comment{", "@preamble{", "x,", "key2025,", " title = ",
            " author = ", " year = ", " journal = ", " eprint = ", " doi = ", " url = ", "{", "}", '"', ",", "#", "=",
            "\n", "2025", "20x5", "Doe, Jane and Smith, John", "and", "others", "{\\\"u}", "\\'e", "$x^2$", "%", "\\",
            "arXiv preprint arXiv:2601.00001", "10.1000/xyz", "https://arxiv.org/abs/2601.00001", "TODO", "...", "é", "\x00"]
BIB_TEXT = st.lists(st.one_of(st.sampled_from(BIB_BITS), st.text(max_size=4)), max_size=30).map("".join)


@settings(max_examples=examples(300))
@given(BIB_TEXT)
def test_fuzz_bibtex_parser(text):
    parsed = bibtex.parse(text, "new.bib")
    one_line(parsed.problems, "new.bib")
    assert isinstance(parsed.entries, list)


_ROOT: dict[str, Path] = {}


def _tiny_root(tmp_path_factory) -> Path:
    """A survey root with the real taxonomy, an empty claim ledger and a README, no records."""
    if "root" not in _ROOT:
        root = tmp_path_factory.mktemp("tiny")
        (root / "corpus/papers").mkdir(parents=True)
        (root / "exclusions").mkdir()
        shutil.copy(TAXONOMY, root / "corpus/taxonomy.yaml")
        (root / "corpus/claims.yaml").write_text("claims: []\n")
        (root / "README.md").write_text("# x\n<!-- masrl:papers:start -->\n<!-- masrl:papers:end -->\n")
        _ROOT["root"] = root
    return _ROOT["root"]


@settings(max_examples=examples(60))
@given(text=BIB_TEXT)
def test_fuzz_add_bibtex_command(tmp_path_factory, text):
    """``masrl add --bibtex FILE --dry-run``: exit 0 with stubs, or exit 1 with one-line errors."""
    root = _tiny_root(tmp_path_factory)
    bib = root / "new.bib"
    bib.write_text(text, encoding="utf-8", errors="surrogatepass")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["add", "--root", str(root), "--bibtex", str(bib), "--dry-run"])
    assert code in (0, 1), (code, err.getvalue())
    assert "Traceback" not in err.getvalue()
    lines = err.getvalue().splitlines()
    if code == 1:
        assert lines and lines[-1].startswith("masrl: error: ")
    assert sorted(read_tree(root)) == ["README.md", "corpus/claims.yaml", "corpus/taxonomy.yaml"]  # --dry-run wrote nothing
