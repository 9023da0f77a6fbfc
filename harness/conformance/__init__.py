"""API conformance: the named checks ``harness check`` runs against a server (docs/check.md).

Modules: ``context`` (``CheckConfig``), ``model`` (``CheckReport``, ``Check``, ``Result``),
``registry`` (the named checks, ``select``), ``runner`` (``run_checks``), ``core``. This
package imports none of them, so reading ``check.json`` never loads the HTTP client."""
