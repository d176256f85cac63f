"""``python -m paretostab`` → :func:`paretostab.cli.main`."""

import sys

from paretostab.cli import main

sys.exit(main())
