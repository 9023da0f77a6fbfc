"""The AICAS VLM profile: the organisers' in-process benchmark reproduced call for call.

Modules: ``runner_script`` (runs in the participant's Python: stdlib, torch,
transformers, datasets only), ``run`` (starts it, turns its records into
reports), ``report`` (``vlm.json``), ``analysis`` (official means, scores,
flags), ``accuracy``, ``stats``, ``flags``, ``render``, ``over_http`` (HTTP mode).
"""
