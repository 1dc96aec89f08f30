"""The tests' copies of a tree (tests/trees.py): hard links to a private copy, repaired after a test
that writes through one."""

from __future__ import annotations

import os

from trees import LinkedTree, linked_copy


def _source(tmp_path):
    source = tmp_path / "source"
    for rel, text in {"corpus/papers/a.yaml": "key: a\n", "corpus/taxonomy.yaml": "fields: {}\n",
                      "exclusions/E001.yaml": "record_id: E001\n", "reports/STATS.md": "# stats\n", "README.md": "# r\n"}.items():
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        (source / rel).write_text(text)
    return source


def test_records_and_reports_are_linked_and_the_other_inputs_are_the_copys_own(tmp_path):
    source = _source(tmp_path)
    linked = LinkedTree(source, tmp_path / "private")
    copy = linked.link_into(tmp_path / "copy")
    nlinks = {rel: os.stat(copy / rel).st_nlink for rel in
              ("corpus/papers/a.yaml", "exclusions/E001.yaml", "reports/STATS.md", "corpus/taxonomy.yaml", "README.md")}
    assert nlinks == {"corpus/papers/a.yaml": 2, "exclusions/E001.yaml": 2, "reports/STATS.md": 2,
                      "corpus/taxonomy.yaml": 1, "README.md": 1}
    assert (copy / "corpus/taxonomy.yaml").read_text() == "fields: {}\n"


def test_a_write_or_chmod_through_a_link_is_repaired_for_the_next_copy(tmp_path):
    source = _source(tmp_path)
    linked = LinkedTree(source, tmp_path / "private")
    copies = linked_copy(source, tmp_path / "first", linked)
    first = next(copies)
    (first / "corpus/papers/a.yaml").write_text("key: changed\n")  # in place, through the link
    os.chmod(first / "reports/STATS.md", 0o400)
    assert next(copies, None) is None  # the teardown: the private copy is repaired
    second = linked.link_into(tmp_path / "second")
    assert (second / "corpus/papers/a.yaml").read_text() == "key: a\n"
    assert os.stat(second / "reports/STATS.md").st_mode & 0o777 != 0o400
    assert (first / "corpus/papers/a.yaml").read_text() == "key: changed\n"  # the first test's copy kept its write
    assert linked.check() == []
