"""Renderers: tables and results -> bytes of one format each (Markdown, CSV, LaTeX, JSON,
HTML of the catalogue site, figures as SVG/PDF/PNG), with one escaper per format
(:mod:`.escape`). A renderer computes no number of its own.

May import: :mod:`masrl.analyses`, :mod:`masrl.corpus`, :mod:`masrl.bib`, :mod:`masrl.core`.
"""
