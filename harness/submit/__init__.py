"""Submitting an image: the organiser API client, resumable single/multipart uploads, preflight checks."""
