"""Figure -> SVG, PDF and PNG bytes, identical on every run.

What matplotlib would vary is fixed: SVG ids are salted with a constant
(``svg.hashsalt``) and the SVG date is dropped; the PDF creation date is
dropped and the producer fixed; the PNG software tag is dropped.
"""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg


from . import FORMATS

_METADATA = {
    "svg": {"Date": None, "Creator": "masrl"},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": "masrl", "Creator": "masrl"},
    "png": {"Software": None},
}


def figure_bytes(fig) -> dict[str, bytes]:
    """``{"svg": ..., "pdf": ..., "png": ...}`` for ``fig`` (drawn on an Agg canvas)."""
    FigureCanvasAgg(fig)
    out = {}
    for fmt in FORMATS:
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, metadata=_METADATA[fmt])
        out[fmt] = buffer.getvalue()
    return out
