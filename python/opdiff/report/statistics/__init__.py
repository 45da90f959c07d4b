"""Writers of a statistics comparison (StatisticsReport): CSV, JSON, HTML, console."""
