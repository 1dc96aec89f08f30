"""Figure -> SVG, PDF and PNG bytes, identical on every run.

The figure is laid out once (its layout engine runs on the first draw and is
then switched off), so each format only renders it. What matplotlib would
vary is fixed: SVG ids are salted with a constant (``svg.hashsalt``) and the
SVG date is dropped; the PDF creation date is dropped and the producer fixed;
the PNG software tag is dropped.
"""

from __future__ import annotations

import io

from matplotlib import image as mpl_image
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .marks import FORMATS

_METADATA = {
    "svg": {"Date": None, "Creator": "masrl"},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": "masrl", "Creator": "masrl"},
    "png": {"Software": None},
}


def figure_bytes(fig) -> dict[str, bytes]:
    """``{"svg": ..., "pdf": ..., "png": ...}`` for ``fig``.

    One Agg draw lays the figure out and gives the PNG's pixels; the layout
    engine is then removed, so the SVG and PDF renders reuse that layout
    instead of laying the figure out again.
    """
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    fig.set_layout_engine(None)
    png = io.BytesIO()
    # What savefig(format="png") writes, from the pixels already drawn.
    mpl_image.imsave(png, canvas.buffer_rgba(), format="png", origin="upper", dpi=fig.dpi, metadata=_METADATA["png"])
    out = {}
    for fmt in FORMATS:
        if fmt == "png":
            out[fmt] = png.getvalue()
            continue
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, metadata=_METADATA[fmt])
        out[fmt] = buffer.getvalue()
    return out
