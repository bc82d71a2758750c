"""Benchmarks that print ratios against a limit or a peer."""
