import sys

from streamlint.cli import main

sys.exit(main())
