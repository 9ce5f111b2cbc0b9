"""Analyses and benchmark tools built on runs: error taxonomy, count overlay, loop videos."""
