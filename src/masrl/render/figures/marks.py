"""Constants every figure shares, in a module of their own so that the drawing
modules (which import matplotlib) and the registry (which must not) both import them."""

#: File formats written for every figure.
FORMATS = ("svg", "pdf", "png")

#: The mark of a gap (an empty cell, an uncovered unit or sub-decision) in every figure.
GAP_SYMBOL = "×"

#: Years drawn one bar each by a figure of kind ``years``; earlier years share one bar.
YEARS_SHOWN = 10
