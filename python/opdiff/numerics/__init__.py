"""Metric values and the per-tensor statistics they are computed from."""
