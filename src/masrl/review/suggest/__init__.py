"""Suggestions from the records already judged: tags for a record's untagged controlled fields,
and a screening rank for candidate papers, each with its evidence and a measured accuracy.

* :mod:`.text`: the text of a record the model reads (title, abstract, one-liner, notes, venue;
  for screening, title and abstract);
* :mod:`.model`: TF-IDF vectors (scikit-learn, imported only when a model is built) and
  cosine similarities, with the words two texts share;
* :mod:`.structure`: the vocabulary's structure from the taxonomy (set fields,
  ``required_when``, ``na_iff``, values that imply another field's value);
* :mod:`.definitions`: each value's label and definition in the taxonomy, as texts that vote;
* :mod:`.pool`: the texts of the tagged records and of the taxonomy's words, counted once per
  pool, compared as ``masrl suggest`` and the leave-one-out measurement compare them;
* :mod:`.tuning`: each field's setting (how much its values' definitions or labels weigh,
  whether neighbours far apart in publication years count less), chosen by leave-one-out;
* :mod:`.propose`: values from the nearest tagged records and the definitions, best first, with evidence;
* :mod:`.fields`: the suggestions of one record of a corpus (``masrl suggest KEY``);
* :mod:`.apply`: applied values written into the record with their ``tag_provenance``;
* :mod:`.evaluate`: nested leave-one-out top-1 accuracy, top-3 recall and the leave-one-out
  majority baseline per field; WSS@95 and recall at 50% for screening (``scripts/bench_suggest.py``);
* :mod:`.screening`: :func:`.screening.rank_candidates` for update rounds and ``masrl add --dry-run``;
* :mod:`.show`: text and JSON.

Nothing here writes a file or touches the network; no model weights or data are downloaded.
"""
