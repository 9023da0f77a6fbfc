"""The server manifest: what ran, recorded in every run folder as ``manifest.json``.

``model`` (the records), ``canonical`` (values normalised, secrets redacted, the
``config_id``), ``sources`` (what the server's answers and a launch say, pure),
``diff`` (what changed between two manifests, pure), ``take`` (the GETs) and
``record`` (taking and saving it into a run folder). docs/manifest.md.
"""
