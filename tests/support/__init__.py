"""Helpers the tests share (reference implementations, data builders, child-process environments);
tests import them as ``tests.support.NAME``."""
