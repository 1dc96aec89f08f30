"""Files -> records -> frame: the survey's inputs as data.

Reads the survey root (working tree or a git revision) into bytes, parses them with
the strict YAML loader into a :class:`~masrl.corpus.load.Corpus`, and gives the
vocabulary (:mod:`.taxonomy`), record field orders (:mod:`.records`), the JSON Schemas
derived from the taxonomy (:mod:`.schema`), releases and their snapshots, the
populations a report is computed on (pool, releases) and the typed frames.
:mod:`.load` is the only reader of the survey's files. May import: :mod:`masrl.bib`,
:mod:`masrl.core`.
"""
