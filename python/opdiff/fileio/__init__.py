"""File writing that every layer shares: outputs appear whole or not at all."""
