import sys

from dreamdeck.cli.main import main

sys.exit(main())
