"""``python -m slurmlab``: the same as the ``slurmlab`` command."""

from slurmlab.cli import main

raise SystemExit(main())
