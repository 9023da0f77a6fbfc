"""Benchmark data on local disk: the folder layout, fetching it once, and NLTK's punkt_tab."""
