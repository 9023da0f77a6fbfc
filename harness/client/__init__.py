"""The async HTTP client every measurement uses: one shared aiohttp session per run
(``http.py``), its per-request records (``records.py``) and the failure map (``failure.py``).

Import the module you need: this package imports none of them, so reading a report's
records never loads aiohttp."""
