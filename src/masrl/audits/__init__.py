"""Second-reader audits as data: the sample, the blind sheet, rounds, agreement, adjudication, and the
record edits an adjudication makes (pure). The steps of ``masrl audit`` that run them are
:mod:`masrl.review.auditing`; the checks of audit folders are :mod:`masrl.checks.audits`.

An audit lives in one folder ``corpus/audits/<audit_id>/``::

    audit.yaml                     the sample: population, fields, seed, strata, instructions,
                                   and every sampled record with its values at sampling time
    sheet/sheet.csv                the blind sheet for the second reader (item, identifier,
                                   title, link, one empty column per field, note)
    sheet/allowed-values.csv       field, value, label, definition of every allowed value
    sheet/instructions.md          the instructions and the allowed values, for the reader
    rounds/round-<n>-<reader>.yaml one imported sheet (a reading): never overwritten
    adjudication-round-<n>.yaml    every disagreement of round n, its resolved value and who resolved it

The values the corpus held at sampling time are the first reader ("original");
each imported sheet is a further reader of its round. A *tags* audit reads
controlled fields of retained records; a *screening* audit asks for the
screening decision (include/exclude) and, for an exclusion, the stage and the
exclusion-reason class.

The survey's own spot-check (``corpus/audits/spotcheck-2026-05-03.yaml``) is a
single-file audit in the earlier format; it is read as round 1 of a tags audit
with the same published values (:func:`masrl.audits.model.audits_of`).

May import: :mod:`masrl.render`, :mod:`masrl.analyses`, :mod:`masrl.corpus`, :mod:`masrl.bib`,
:mod:`masrl.core`.
"""
