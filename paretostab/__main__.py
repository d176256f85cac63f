"""``python -m paretostab`` → :func:`paretostab._cli.main`."""

import sys

from paretostab._cli import main

sys.exit(main())
