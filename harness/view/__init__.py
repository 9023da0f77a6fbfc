"""View models and their renderers (docs/report.md, "Views").

- :mod:`model`   — Section, Table, Text, Figure: what a report shows, as plain data
- :mod:`chart`   — plot specifications (bars, boxes, dots, lines) as plain data
- :mod:`fmt`     — the number formats; a missing value is a dash
- :mod:`console` — sections on a rich console
- :mod:`draw`    — a chart spec drawn to PNG with matplotlib (report.html, throughput.png)

The HTML renderer is ``harness/report/html.py``. This package imports no
measurement package: each one builds its own sections in ``<package>/views.py``.
"""
