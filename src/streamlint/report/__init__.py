"""Formatters: pure functions from one report to text, each format in its own module."""
