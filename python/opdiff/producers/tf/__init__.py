"""The TensorFlow producer: golden runs of a frozen graph (opdiff dump-tf)."""
