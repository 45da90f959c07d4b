"""Model Explorer's view of a comparison: node-data files (``--report model-explorer``), keyed by the
graph id and the node ids that opdiff.viewer's adapter gives the compared model's graph."""
