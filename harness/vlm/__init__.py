"""The AICAS VLM profile: the organisers' in-process benchmark reproduced call for call.

Modules: ``config`` (``VlmOverrides``, the one record of the flags, and the typed configs
built from the profile), ``core`` (``measure_vlm``, ``measure_vlm_http``, ``import_vlm``:
report assembly, flags, saving), ``run`` (the runner's child process and its records),
``runner_script`` + ``runner_system`` (run in the participant's Python: stdlib, torch,
transformers, datasets only), ``report`` (``vlm.json``), ``analysis`` (official means,
scores, flags), ``accuracy``, ``stats``, ``flags``, ``views`` (sections) and ``render``
(console), ``over_http`` (HTTP mode), ``gate_rules``, ``kind`` (the registry's record).
"""
