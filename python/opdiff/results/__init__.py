"""The result model: rows and their identity, the scenario, the verdicts, the findings, and the
results that hold them (Report, StatisticsReport, RunsSummary, SingleOpDetail). It imports no
writer: report/ reads these through the protocols of results.protocol."""
