"""The text model: TF-IDF vectors and the cosine similarity of every query to every document.

scikit-learn's ``TfidfVectorizer`` is fitted twice on the same texts (documents and queries
together: the weights use only text, never a tag): once on words (unigrams and bigrams,
scikit-learn's English stop-word list left out) and once on character 3- to 5-grams within
words (so that ``agent`` and ``agents``, ``orchestrator`` and ``orchestration`` meet). The
similarity of a query to a document is the mean of the two cosines, in [0, 1]. Both use
sublinear term frequency (1 + log tf), as for short texts of a few repeated words. The words
two texts share come from the word vectors, so the evidence names the words that drove it.

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
    from sklearn.feature_extraction.text import TfidfVectorizer

    words = np.array([], dtype=object)
    if not documents or not queries:
        empty = np.zeros((len(queries), len(documents)))
        return Index(empty, words, None, None)
    texts = list(documents) + list(queries)
    similarity = np.zeros((len(queries), len(documents)))
    word_rows = None
    for options in (WORD_OPTIONS, CHAR_OPTIONS):
        vectorizer = TfidfVectorizer(**options)
        try:
            matrix = vectorizer.fit_transform(texts)
        except ValueError:  # no feature at all (every text empty or only stop words)
            continue
        docs, qs = matrix[: len(documents)], matrix[len(documents):]
        similarity += (qs @ docs.T).toarray() / 2
        if options is WORD_OPTIONS:
            words = vectorizer.get_feature_names_out()
            word_rows = (qs.tocsr(), docs.tocsr())
    similarity = np.clip(similarity, 0.0, 1.0)
    if word_rows is None:
        from scipy.sparse import csr_matrix

        word_rows = (csr_matrix((len(queries), 0)), csr_matrix((len(documents), 0)))
    return Index(similarity, words, word_rows[0], word_rows[1])
