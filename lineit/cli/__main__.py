"""``python -m lineit.cli`` is ``lineit``."""

import sys

from .main import main

sys.exit(main())
