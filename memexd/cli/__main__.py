"""``python -m memexd.cli``: the command line, as the ``memexd`` script runs it."""

from memexd.cli import main

raise SystemExit(main())
