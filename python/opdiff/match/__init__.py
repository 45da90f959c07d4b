"""Matching: scenario planning (which comparison two folders and the rules describe) and the op
plans that pair each NPU tensor with its partner."""
