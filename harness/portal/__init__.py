"""A local organiser API emulator (aiohttp + boto3) and a strict/flaky S3 proxy for rehearsals and tests."""
