"""``python -m masrl`` is the same as the ``masrl`` command."""

import sys

from .cli import main

sys.exit(main())
