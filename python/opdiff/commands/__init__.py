"""Sub-commands of the `opdiff` CLI, one module each."""
