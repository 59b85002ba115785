"""`python -m games.chopsticks ...`: the analysts' command line (see cli.py)."""

import sys

from games.chopsticks.cli import main

sys.exit(main())
