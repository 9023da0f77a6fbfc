"""Serving engines: one record each (names, units, routes, quirks), a registry, readers.
docs/engines.md."""
