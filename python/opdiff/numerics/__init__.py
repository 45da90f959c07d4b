"""Numbers of a comparison: the metric schema (schema), the result types (values: Metrics, SideStats,
Note), the one module that imports the core (core: its metrics pass, dtype names, simd_info and
AllClose's default tolerances), the metrics of arrays through it (core_adapter: opdiff.metrics), the
core's results turned into them (core_results, free of numpy), how a Metrics
looks (view) and which element types the core decodes (dtypes), the overflow rule (overflow), the statistics
of one tensor as a statistics dump records them (tensor_statistics), and the rounding model both default
verdicts take their limits from (precision; statistics_limits for max, min and mean).

Kept free of imports so that a module needing one of these (the graph readers need only frozen)
does not pay for numpy.
"""
