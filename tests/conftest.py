"""Shared fixtures live in tests/fixtures/<part>.py, one module per real part."""

pytest_plugins = [
    "tests.fixtures.simulator",
    "tests.fixtures.reference_server",
    "tests.fixtures.reference_gate",
    "tests.fixtures.llama_server",
    "tests.fixtures.s3",
    "tests.fixtures.podman",
    "tests.fixtures.recording",
    "tests.fixtures.postgres",
    "tests.fixtures.tiny_vlm",
    "tests.fixtures.submit_runs",
    "tests.fixtures.workers",
    "pytester",  # tests/unit/test_workers.py runs small suites on two workers
]
