from opdiff.cli import entry

raise SystemExit(entry())
