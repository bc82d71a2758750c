"""Scripts that build and fit the local judge's shipped parameter files (ragtest_core/params/)."""
