#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineit_platform.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # A bad setting (an environment variable) is one line naming it, not a traceback.
        print(f"{os.path.basename(sys.argv[0])}: bad configuration: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
