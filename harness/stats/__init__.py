"""One home for the statistics every kind, the audit and tune share: pure functions over
plain numbers, no I/O, no clocks (docs/architecture.md, "Pure modules").

- :mod:`harness.stats.binomial`: the binomial distribution (its CDF at 1/2, tails, pmf).
- :mod:`harness.stats.tails`: what a sample can claim about a tail percentile (LoadGen's
  early-stopping rule: the estimate, the fixed bound and their sample floors).
- :mod:`harness.stats.median_sequence`, :mod:`harness.stats.quantile_sequence`: confidence
  sequences (order-statistic intervals valid under optional stopping: ``--until-ci``,
  tune's tail race).
- :mod:`harness.stats.intervals`: Wilson's interval (one z), the bootstrap intervals of a
  median and of a mean speedup, a rate's standard error.
- :mod:`harness.stats.robust`: median-or-None, the MAD σ, the two Hodges–Lehmann
  estimators, and the audit's named limits.
- :mod:`harness.stats.distributions`: the normal CDF and Student's t quantile.
- :mod:`harness.stats.summary`: ``Dist``, the one summary of a distribution in every
  report, and the grader's speedup score.

Nothing is re-exported here: import from the module that defines it.
"""
