"""Tests of the bundled sample corpus (publishers/sample)."""
