"""Pure analyses: typed frames -> tables (counts, crosstabs, reward families, credit units,
sub-decisions), gaps, the claim checker, PRISMA flow, agreement coefficients, comparisons
with a release. No file access, no rendering.

May import: :mod:`masrl.corpus`, :mod:`masrl.bib`, :mod:`masrl.core`.
"""
