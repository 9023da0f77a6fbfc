"""What each contest's grader sends, below the kinds: the one definition of its requests
(their bodies, prompts, session and the reading of their answers), imported by the kind that
reproduces the grader (throughput, latency) and by the audit that sends as it does.

- :mod:`harness.graders.paris`: GPU MODE Paris's throughput sweep (its chat body, random-token
  prompts, aiohttp session, and its reading of an answer);
- :mod:`harness.graders.qwen`: Efficient Qwen's latency grader (its prompt body; its urllib
  client is harness/client/urllib_client.py).
"""
