"""`harness simulate`: an OpenAI-compatible server with exact timing and fault knobs.

Python API: :class:`SimConfig` (all knobs), :class:`SimServer` (in the caller's
event loop), :class:`SimProcess` (a separate process), :class:`LogEntry` (one
request of the log). See docs/simulate.md.
"""

from harness.simulate.config import SimConfig, make_config
from harness.simulate.log import LogEntry
from harness.simulate.process import SimProcess
from harness.simulate.server import SimServer

__all__ = ["LogEntry", "SimConfig", "SimProcess", "SimServer", "make_config"]
