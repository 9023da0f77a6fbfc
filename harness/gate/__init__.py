"""The gatekeeper's verdict: pure rules over the reports of a run folder."""
