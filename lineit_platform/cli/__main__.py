"""``python -m lineit_platform.cli`` is ``lineit``."""

import sys

from .main import main

sys.exit(main())
