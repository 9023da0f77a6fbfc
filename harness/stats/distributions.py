"""The normal and Student distributions, as far as the harness reads them."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval

# two-sided 95 % Student t quantiles (the 0.975 quantile) by degrees of freedom
_T975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    12: 2.179,
    15: 2.131,
    20: 2.086,
    30: 2.042,
    60: 2.000,
    120: 1.980,
}


def normal_cdf(z: float) -> float:
    """Φ(z), the standard normal CDF."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def t975(df: float) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom.

    A df between two listed ones takes the lower one's quantile (the wider band);
    above 120, the normal 1.96 (the table's three digits). df below 1 is treated as 1.
    """
    if df > 120:
        return 1.96
    return _T975[max(d for d in _T975 if d <= max(df, 1.0))]
