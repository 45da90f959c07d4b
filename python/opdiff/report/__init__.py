"""Report writers: one row schema, many formats (the CSV keeps the reference tool's columns)."""
