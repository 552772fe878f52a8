"""Benchmarks: ``python3 benchmarks/run.py`` (see README.md here); generated transcripts
come from ``benchmarks.generate``."""
