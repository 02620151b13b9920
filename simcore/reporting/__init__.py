"""What every study shares to report its results: the figures' style, the
cumulative-wait statistic, published numbers, the reproduction report, the
Markdown tables' writer and the workloads table. Imports the engine and the
workloads only."""
