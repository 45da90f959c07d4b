"""`opdiff compare`: the command (command.py), one run's end (finish.py, statistics.py), many runs
(runs.py), --isolate (isolate.py) and the parsing of its flags (options.py)."""

from opdiff.commands.compare.command import register as register
