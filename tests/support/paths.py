"""Folders the tests read, found from this file so that they hold wherever a test module sits."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
DATA = TESTS / "data"  # small real samples and recorded values, shared by several areas
