"""Writers of many runs (RunsSummary): the summary JSON, its HTML heat map, the console table."""
