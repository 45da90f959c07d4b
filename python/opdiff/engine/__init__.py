"""Running a comparison: the tensor and statistics engines (plans to rows through the core), the
orchestration of one comparison (opdiff.compare), and the analyses that read tensors (overflow
scan, single-op detail, two-file compare)."""
