"""harness: evaluation harness and submission gatekeeper for LLM inference competitions."""

__version__ = "0.1.0"
