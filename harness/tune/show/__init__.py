"""A tune shown: the console and the tune page (harness/tune/__init__.py: the rooms)."""
