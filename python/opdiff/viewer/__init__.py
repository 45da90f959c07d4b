"""opdiff's Model Explorer extension (the optional extra ``opdiff[view]``): Model Explorer loads it as
any extension, by the package name (``model-explorer --extensions=opdiff.viewer``), as
``opdiff.viewer.main``, whose adapter turns .om files, atc JSON fusion rules and GE graph dumps into
Model Explorer graphs. ``opdiff view`` (serve.py) starts Model Explorer with the graph and the node
data that ``opdiff compare --report model-explorer`` wrote.

Only main.py, graph.py and serve.py's `serve` import model_explorer; the rest of opdiff never does.
"""

ADAPTER_ID = "opdiff_adapter"
"""The adapter's id in Model Explorer (its metadata id; ``opdiff view`` names it for each model)."""

EXTENSION_MODULE = "opdiff.viewer"
"""What Model Explorer is given as the extension (it imports ``{EXTENSION_MODULE}.main``)."""
