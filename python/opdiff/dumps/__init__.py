"""Ascend dump files and golden .npy folders."""
