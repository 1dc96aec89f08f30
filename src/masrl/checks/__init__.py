"""Every validation rule of a survey's inputs: the taxonomy, records, rules across records
(:mod:`.pool`), the claim ledger (:mod:`.claims`), releases and snapshots (:mod:`.releases`),
audit folders (:mod:`.audits`), the characters of every text and portable names (:mod:`.portable`),
names derived from the vocabulary, and warnings about text YAML cut short (:mod:`.textwarn`). :func:`masrl.checks.validate.validate` runs them all and
returns every problem at once; nothing here raises for bad user data or writes.

May import: :mod:`masrl.audits`, :mod:`masrl.trace` (the packaged example names),
:mod:`masrl.render`, :mod:`masrl.analyses`, :mod:`masrl.corpus`, :mod:`masrl.bib`, :mod:`masrl.core`.
"""
