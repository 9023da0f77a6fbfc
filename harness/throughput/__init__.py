"""``harness throughput``: the GPU MODE Paris concurrency sweep and its weighted score."""
