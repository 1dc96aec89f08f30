"""The files of a new survey (package data): a commented taxonomy with two example fields, one
table, one figure; a claim ledger with one claim; a README with the paper-list markers; a
placeholder search protocol. :func:`masrl.review.initialize.new_survey` fills in the title."""
