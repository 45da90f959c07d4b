"""Writers and views of results, one sub-package a result family: tensor/ (Report: the
reference-compatible CSV, JSON, HTML, xlsx, console, notebook), statistics/ (StatisticsReport),
runs/ (RunsSummary) and single_op/ (SingleOpDetail); formats.py holds the table of them."""
