"""Theirs of a round id both branches added, under the next free id (masrl.review.update.merge): the id is followed
where it names the round, never where the same text is a date."""

from __future__ import annotations

from masrl.review.update.merge import follow, next_free, rename_theirs, round_of

META = ("# Update round 2027-01-15: the search of the protocol's query families\n# then `masrl update apply 2027-01-15`.\n"
        "format_version: 1\nround: '2027-01-15'\nwindow:\n  since: '2027-01-10'\n  until: '2027-01-15'\n"
        "started: '2027-01-15T12:00:00Z'\n")


def test_the_round_id_is_followed_and_the_days_are_kept():
    moved = follow(META, "2027-01-15", "2027-01-15-2")
    assert moved == META.replace("round 2027-01-15:", "round 2027-01-15-2:").replace(
        "apply 2027-01-15`", "apply 2027-01-15-2`").replace("round: '2027-01-15'", "round: '2027-01-15-2'")
    assert "until: '2027-01-15'" in moved and "started: '2027-01-15T12" in moved
    cell = "arxiv:1,T,retained,corpus/rounds/2027-01-15/queue.csv:3,same arxiv 1\n"
    assert follow(cell, "2027-01-15", "2027-01-15-2") == cell.replace("rounds/2027-01-15/", "rounds/2027-01-15-2/")


def test_the_next_free_id_of_the_day():
    assert next_free("2027-01-15", {"2027-01-15"}) == "2027-01-15-2"
    assert next_free("2027-01-15-2", {"2027-01-15", "2027-01-15-2", "2027-01-15-3"}) == "2027-01-15-4"
    assert [round_of(p) for p in ("corpus/rounds/2027-01-15/queue.csv", "corpus/rounds/x/queue.csv", "corpus/x.yaml")] == [
        "2027-01-15", None, None]


def test_theirs_records_and_round_follow_and_a_release_of_it_is_left_to_a_person():
    rid = "2027-01-15"
    record = f"key: a2027\nsource: masrl update apply {rid} (corpus/rounds/{rid}/queue.csv:2)\ndate_added: '{rid}'\n"
    theirs = {f"corpus/rounds/{rid}/round.yaml": META.encode(), "corpus/papers/a2027.yaml": record.encode(),
              "corpus/papers/old.yaml": b"key: old\n", "corpus/releases/v2.yaml": f"identification:\n  rounds: ['{rid}']\n".encode()}
    base = {"corpus/papers/old.yaml": b"key: old\n"}
    out = rename_theirs(rid, {rid}, base, {f"corpus/rounds/{rid}/round.yaml": b"x"}, theirs)
    assert out.new == f"{rid}-2"
    assert sorted(out.files) == ["corpus/papers/a2027.yaml", f"corpus/rounds/{rid}-2/round.yaml"]
    assert out.files["corpus/papers/a2027.yaml"].decode() == record.replace(f"apply {rid} (corpus/rounds/{rid}/",
                                                                            f"apply {rid}-2 (corpus/rounds/{rid}-2/")
    assert out.by_hand == [f"corpus/releases/v2.yaml: the branch merged in released its round {rid}, which is now "
                           f"{rid}-2 (ours keeps {rid}): release again after the merge"]

