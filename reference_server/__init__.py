"""The reference server: vLLM's own OpenAI server with our recipes, chat template and
thinking middleware. See ``reference_server/README.md``.

Modules: ``recipes`` (typed recipes → command line), ``__main__`` (the launcher),
``launch`` (``ServerProcess``: start/stop from Python), ``thinking`` (ASGI middleware),
``build_test_model`` (the small CPU model from PyPI). Nothing heavy is imported here:
vLLM loads ``reference_server.thinking`` inside its server process.
"""
