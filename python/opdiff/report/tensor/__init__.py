"""Writers of a tensor comparison (Report): the reference-compatible CSV, JSON, HTML, xlsx, console, notebook."""
