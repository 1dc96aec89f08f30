"""The texts a suggestion compares, counted once per pool of tagged records.

A record to suggest is compared with every tagged record in full (title, abstract, one-liner,
notes, venue) and with the taxonomy's words for every value: its label and definition, and its
label alone (:mod:`.definitions`). The TF-IDF is fitted on the tagged records' full texts, their
*stub* texts (what a record has before it is tagged: :data:`.text.STUB_TEXT_FIELDS`), the
definitions and the record itself: the stubs make the weights those of the words titles use, the
only text a new record has; the labels are compared but not fitted (their words are the
definitions' too).

The same texts serve three comparisons, so they are counted once (:class:`.model.Counts`) and
kept per pool of tagged records and vocabulary for the process (:func:`pool`):

* :meth:`Pool.suggestions`: a record against the pool, as ``masrl suggest`` compares it;
* :meth:`Pool.held_out`: every tagged record as a stub against the others, each under the fit
  ``masrl suggest`` would make for it, never its own full text: what the settings are chosen
  with (:class:`.tuning.Chooser`) and what the leave-one-out of :mod:`.evaluate` measures.
"""

from __future__ import annotations

import numpy as np

from ...core.memo import MISSING, Memo, content_key
from ...corpus.taxonomy import Taxonomy
from . import definitions as dfn
from . import model, text

#: The pools of the process by their tagged records and vocabulary.
_POOLS = Memo(16)


class Pool:
    """The counted texts of a pool of tagged records and of a vocabulary's words.

    Attributes:
        size: how many tagged records (the first columns of every comparison, in order).
        texts, label_texts: ``(field, value) -> text`` of the definitions and of the labels.
        columns, labels: ``(field, value) ->`` the column of its definition, of its label, in
            every comparison (after the records: the definitions, then the labels).
    """

    def __init__(self, records: list[dict], tax: Taxonomy):
        self.texts = dfn.texts(tax)
        self.label_texts = dfn.labels(tax)
        self.size = n = len(records)
        m = len(self.texts)
        self.columns = {pair: n + k for k, pair in enumerate(self.texts)}
        self.labels = {pair: n + m + k for k, pair in enumerate(self.label_texts)}
        # rows: the records in full, the definitions, the labels, the records as stubs
        self.counts = model.Counts([text.record_text(r, tax.abstract_field) for r in records]
                                   + list(self.texts.values()) + list(self.label_texts.values())
                                   + [text.record_text(r, tax.abstract_field, stub=True) for r in records])
        self._compared = list(range(n + 2 * m))
        self._stubs = list(range(n + 2 * m, 2 * n + 2 * m))
        self._fitted = list(range(n + m)) + self._stubs  # records, definitions, stubs

    def suggestions(self, record_text: str) -> model.Index:
        """One query, the text of the record to suggest, against the pool's records, definitions
        and labels, under the TF-IDF fitted on the pool and that text."""
        counts = self.counts.extend([record_text])
        return counts.index(self._fitted + [counts.size - 1], [counts.size - 1], self._compared)

    def held_out(self) -> np.ndarray:
        """``(records, records + definitions + labels)``: row ``i`` is record ``i`` as a stub against
        every record (its own column: 0), definition and label, under the TF-IDF ``masrl suggest``
        would fit for it: the other records in full and as stubs, the definitions and the stub."""
        out = self.counts.leaving_one(self._fitted, list(range(self.size)), self._stubs, self._compared)
        out[np.arange(self.size), np.arange(self.size)] = 0.0
        return out


def pool(records: list[dict], tax: Taxonomy) -> Pool:
    """The :class:`Pool` of the tagged ``records`` (:func:`.propose.tagged_records`, in that
    order) and the vocabulary, counted once per process."""
    key = content_key(tax.data, records)
    found = _POOLS.get(key)
    if found is MISSING:
        found = Pool(records, tax)
        _POOLS.put(key, found)
    return found
