"""Update rounds of the living review: re-run the protocol's search since the last release,
remove what is already retained, excluded or queued, and turn the screener's decisions into records.

* :mod:`.protocol`: the search protocol (``corpus/protocol.yaml``) as typed data;
* :mod:`.sources`: one module per searched source (arXiv, Crossref), the only network code here;
* :mod:`.dedupe`: every record found is either a new candidate or a duplicate, with the rule;
* :mod:`.rank`: the order in which the screener sees the candidates;
* :mod:`.model`: a round's files (``round.yaml``, ``queue.csv``, ``duplicates.csv``) and reading them back;
* :mod:`.search`: one search round, from the window to the files to write;
* :mod:`.apply`: the decisions of a round as retained stubs and exclusion records;
* :mod:`.stopping`: when to stop screening a ranked queue (the test ``masrl update show`` states);
* :mod:`.status`: the ranked queue of one round and what is left to do.

Nothing here writes: the command hands the planned files to :mod:`masrl.build.write`.
"""
