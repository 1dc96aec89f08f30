"""The text model: TF-IDF vectors and the cosine similarity of every query to every document.

Texts are weighed twice by TF-IDF (the weights use only text, never a tag): on words (unigrams
and bigrams, scikit-learn's English stop-word list left out) and on character 3- to 5-grams
within words (so that ``agent`` and ``agents``, ``orchestrator`` and ``orchestration`` meet).
The similarity of a query to a document is the mean of the two cosines, in [0, 1]. Both use
sublinear term frequency (1 + log tf), as for short texts of a few repeated words. The words
two texts share come from the word vectors, so the evidence names the words that drove it.

scikit-learn's ``CountVectorizer`` counts the terms (tokenising, n-grams, stop words) once per
list of texts (:class:`Counts`); the TF-IDF is then fitted on any subset of them, with the
weights of scikit-learn's ``TfidfVectorizer`` (smoothed idf ``ln((1 + n) / (1 + df)) + 1``,
``1 + log tf``, unit length; a term no text of the fit has weighs nothing): the leave-one-out
measurement fits, for each record left out, what ``masrl suggest`` would fit for it, without
counting the texts again.

scikit-learn is imported here, when a model is built, never at import time: commands that do
not suggest (``masrl validate``, ``masrl build --check``) do not pay for it. Nothing is
downloaded; the stop-word list ships with scikit-learn. Same texts, same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Word features: unigrams and bigrams, English stop words left out, 1 + log tf.
WORD_OPTIONS = {"analyzer": "word", "ngram_range": (1, 2), "stop_words": "english", "sublinear_tf": True}
#: Character features: 3- to 5-grams inside word boundaries, 1 + log tf.
CHAR_OPTIONS = {"analyzer": "char_wb", "ngram_range": (3, 5), "sublinear_tf": True}


@dataclass
class Index:
    """Similarities between queries and documents.

    Attributes:
        similarity: ``(len(queries), len(documents))`` array of cosine similarities in [0, 1]
            (mean of the word and the character cosine).
        words: the word-feature names (index -> term).
        query_words: sparse ``(queries, terms)`` word TF-IDF rows.
        document_words: sparse ``(documents, terms)`` word TF-IDF rows.
    """

    similarity: np.ndarray
    words: np.ndarray
    query_words: object
    document_words: object

    def shared_words(self, query: int, document: int, limit: int = 6) -> tuple[str, ...]:
        """The word features (words and two-word phrases) of query ``query`` that document
        ``document`` has too, most weight first (product of the two TF-IDF weights; ties by
        the term), at most ``limit``; a word already shown inside a phrase is not repeated."""
        qw = _row(self.query_words, query)
        dw = _row(self.document_words, document)
        common = [t for t in qw if t in dw]
        if not common:
            return ()
        ranked = sorted(common, key=lambda t: (-round(qw[t] * dw[t], 12), self.words[t]))
        out: list[str] = []
        for term in ranked:
            text = str(self.words[term])
            if any(text in shown.split() for shown in out) or any(w in out for w in text.split()):
                continue
            out.append(text)
            if len(out) == limit:
                break
        return tuple(out)


def _row(matrix, i: int) -> dict:
    """Term index -> weight of row ``i`` of a CSR matrix (read from its arrays: ``getrow``
    builds a matrix per call, which a batch of thousands of candidates would feel)."""
    start, end = matrix.indptr[i], matrix.indptr[i + 1]
    return dict(zip(matrix.indices[start:end].tolist(), matrix.data[start:end].tolist()))


def build(documents: list[str], queries: list[str]) -> Index:
    """Fit the model on ``documents`` + ``queries`` and compare every query with every document.

    Returns an :class:`Index`; with no document or no query the similarity array is empty in
    that dimension. Texts without any feature (empty, or only stop words) are similar to nothing.
    """
    if not documents or not queries:
        return Index(np.zeros((len(queries), len(documents))), np.array([], dtype=object), None, None)
    counts = Counts(list(documents) + list(queries))
    everything = list(range(len(documents) + len(queries)))
    return counts.index(everything, everything[len(documents):], everything[:len(documents)])


class Counts:
    """The term counts of a fixed list of texts, to weigh by a TF-IDF fitted on any subset of them.

    Args:
        texts: every text any fit or comparison will use (rows 0, 1, ... in this order).
    """

    def __init__(self, texts: list[str]):
        from sklearn.feature_extraction.text import CountVectorizer

        #: the word features' names (index -> term); empty when no text has a word feature
        self.words = np.array([], dtype=object)
        #: per analyzer, words first: (sparse ``1 + log tf`` rows, sparse 0/1 presence rows)
        self.parts: list[tuple[object, object]] = []
        self._has_words = False
        #: per part: (the analyzer, term -> column)
        self._terms: list[tuple[object, dict]] = []
        self._texts = list(texts)
        self.size = len(texts)
        for options in (WORD_OPTIONS, CHAR_OPTIONS):
            counter = CountVectorizer(**{k: v for k, v in options.items() if k != "sublinear_tf"})
            try:
                counts = counter.fit_transform(texts).tocsr().astype(float)
            except ValueError:  # no feature at all (every text empty or only stop words)
                continue
            if options is WORD_OPTIONS:
                self.words, self._has_words = counter.get_feature_names_out(), True
            self._terms.append((counter.build_analyzer(), dict(counter.vocabulary_)))
            present = counts.copy()
            present.data[:] = 1.0
            counts.data = 1.0 + np.log(counts.data)
            self.parts.append((counts, present))

    def extend(self, texts: list[str]) -> Counts:
        """These counts with ``texts`` as more rows (rows ``size``, ``size + 1``, ...), counted by
        the same analyzers; their terms no earlier text has are new columns. The same numbers as
        counting every text again, for the cost of the new ones (``masrl suggest`` adds one
        record to the counts of its pool)."""
        from collections import Counter

        from scipy.sparse import csr_matrix, hstack, vstack

        if len(self.parts) < 2:  # some analyzer found nothing in the pool: count everything again
            return Counts(self._texts + list(texts))
        out = Counts.__new__(Counts)
        out.size, out._has_words, out.parts, out._terms = self.size + len(texts), self._has_words, [], []
        out._texts = self._texts + list(texts)
        for number, ((counts, present), (analyze, columns)) in enumerate(zip(self.parts, self._terms)):
            columns = dict(columns)
            rows, where, values = [], [], []
            for row, text in enumerate(texts):
                for term, count in Counter(analyze(text)).items():
                    rows.append(row)
                    where.append(columns.setdefault(term, len(columns)))
                    values.append(1.0 + np.log(count))
            width = len(columns)
            added = csr_matrix((values, (rows, where)), shape=(len(texts), width))
            widen = csr_matrix((counts.shape[0], width - counts.shape[1]))
            grown = vstack([hstack([counts, widen]), added]).tocsr()
            seen = grown.copy()
            seen.data[:] = 1.0
            out.parts.append((grown, seen))
            out._terms.append((analyze, columns))
            if number == 0:
                out.words = np.array(sorted(columns, key=columns.get), dtype=object)
        return out

    def _weighed(self, fit: list[int], rows: list[list[int]]) -> list[list]:
        """Per analyzer (words first): each list of ``rows`` weighed by the TF-IDF fitted on ``fit``."""
        out = []
        for counts, present in self.parts:
            df = np.asarray(present[fit].sum(axis=0)).ravel()
            idf = np.where(df > 0, np.log((1.0 + len(fit)) / (1.0 + df)) + 1.0, 0.0)
            out.append([_weigh(counts[r], idf) for r in rows])
        return out

    def similarity(self, fit: list[int], queries: list[int], documents: list[int]) -> np.ndarray:
        """``(len(queries), len(documents))``: the mean of the word and character cosines of the
        texts ``queries`` and ``documents`` under the TF-IDF fitted on the texts ``fit``, in [0, 1]."""
        out = np.zeros((len(queries), len(documents)))
        for q, d in self._weighed(fit, [queries, documents]):
            out += (q @ d.T).toarray() / 2
        return np.clip(out, 0.0, 1.0)

    def leaving_one(self, fit: list[int], leave: list[int], queries: list[int], documents: list[int]) -> np.ndarray:
        """``(len(leave), len(documents))``: row ``k`` is :meth:`similarity` of the text
        ``queries[k]`` to the texts ``documents`` under the TF-IDF fitted on ``fit`` without the
        text ``leave[k]`` (each of ``leave`` in ``fit``), all rows at once.

        Leaving one text out of the fit changes the idf of its terms only (the fit's size is the
        same for every ``k``), so each weighted dot product and length is its value under the idf
        of the whole fit less one, plus the change on the terms of ``leave[k]``.
        """
        from scipy.sparse import diags

        out = np.zeros((len(leave), len(documents)))
        size = len(fit) - 1
        for counts, present in self.parts:
            df = np.asarray(present[fit].sum(axis=0)).ravel()
            idf = np.where(df > 0, np.log((1.0 + size) / (1.0 + df)) + 1.0, 0.0)
            fewer = np.where(df > 1, np.log((1.0 + size) / np.maximum(df, 1.0)) + 1.0, 0.0)  # with one text fewer
            change = diags(fewer ** 2 - idf ** 2)
            gone = present[leave]  # (k, terms): the terms whose idf changes for row k
            q, d = counts[queries], counts[documents]
            squared = diags(idf ** 2)
            dot = (q @ squared @ d.T).toarray() + (q.multiply(gone) @ change @ d.T).toarray()
            d2, q2 = d.multiply(d).tocsr(), q.multiply(q).tocsr()
            d_len = np.sqrt(np.maximum(np.asarray(d2 @ (idf ** 2)).ravel()[None, :] + (gone @ change @ d2.T).toarray(), 0.0))
            q_len = np.sqrt(np.maximum(np.asarray(q2 @ (idf ** 2)).ravel()
                                       + np.asarray(q2.multiply(gone) @ (fewer ** 2 - idf ** 2)).ravel(), 0.0))
            lengths = q_len[:, None] * d_len
            out += np.divide(dot, lengths, out=np.zeros_like(dot), where=lengths > 0) / 2
        return np.clip(out, 0.0, 1.0)

    def index(self, fit: list[int], queries: list[int], documents: list[int]) -> Index:
        """The :class:`Index` of the texts ``queries`` against the texts ``documents`` under the
        TF-IDF fitted on the texts ``fit``, with the word vectors (for the words they share)."""
        from scipy.sparse import csr_matrix

        weighed = self._weighed(fit, [queries, documents])
        similarity = np.zeros((len(queries), len(documents)))
        for q, d in weighed:
            similarity += (q @ d.T).toarray() / 2
        if self._has_words:
            query_words, document_words = weighed[0]
        else:
            query_words, document_words = csr_matrix((len(queries), 0)), csr_matrix((len(documents), 0))
        return Index(np.clip(similarity, 0.0, 1.0), self.words, query_words, document_words)


def _weigh(rows, idf: np.ndarray):
    """``rows`` (sparse ``1 + log tf``) times ``idf``, each row scaled to unit length (a row with
    no weighted term stays empty), as CSR."""
    from scipy.sparse import diags

    weighted = (rows @ diags(idf)).tocsr()
    weighted.eliminate_zeros()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    return (diags(np.where(norms > 0, 1.0 / np.where(norms > 0, norms, 1.0), 0.0)) @ weighted).tocsr()
