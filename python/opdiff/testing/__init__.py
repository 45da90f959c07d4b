"""Helpers that build test inputs (models, dumps) with the project's own writers."""
