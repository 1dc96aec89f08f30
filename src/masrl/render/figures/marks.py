"""Constants every figure shares, in a module of their own so that the drawing
modules (which import matplotlib) and the registry (which must not) both import them."""

#: File formats written for every figure.
FORMATS = ("svg", "pdf", "png")

#: The mark of a gap (an empty cell, an uncovered unit or sub-decision) in every figure.
GAP_SYMBOL = "×"

#: Years drawn one bar each by a figure of kind ``years``; earlier years share one bar.
YEARS_SHOWN = 10

#: The font files of every figure, by (weight, style), named by their path in matplotlib's own data
#: folder (``mpl-data/fonts/ttf``, which the locked matplotlib wheel bundles): DejaVu Sans, regular,
#: bold, oblique and bold oblique. masrl never searches for a font: the user's font cache
#: (``~/.cache/matplotlib``, ``MPLCONFIGDIR``), system fonts of the same name and matplotlibrc
#: never decide a figure's bytes (:func:`masrl.render.figures.style.style_context`).
FONT_FILES = {
    ("normal", "normal"): "DejaVuSans.ttf",
    ("bold", "normal"): "DejaVuSans-Bold.ttf",
    ("normal", "oblique"): "DejaVuSans-Oblique.ttf",
    ("bold", "oblique"): "DejaVuSans-BoldOblique.ttf",
}
#: matplotlib's last-resort font (boxes for characters the house font lacks), also by path.
LAST_RESORT_FONT = "LastResortHE-Regular.ttf"
#: Where the font files are, inside matplotlib's package folder.
FONT_FOLDER = ("mpl-data", "fonts", "ttf")
