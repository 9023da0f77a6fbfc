"""SPACE.toml's ``[serve]``: how a candidate is started and where it answers, checked when
the file is read (a URL or a command the readiness wait could never succeed on is refused
then, not after ``ready_timeout_s`` in every trial)."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.client.urls import drop_path_hint


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Serve(Strict):
    """How a candidate is started: ``command`` (``{port}`` by harness, ``{NAME}`` by each
    parameter), its ``env`` (values may use parameters), and the ``url`` it answers on; or
    ``image`` (run as ``gate --image`` runs it; harness/tune/launch/container.py) with ``env`` and
    ``args`` templates, through the engine at ``docker_host``."""

    command: str | None = Field(None, min_length=1)
    image: str | None = Field(None, min_length=1)
    args: str = ""  # image only: the container's command (CMD), split like a shell would
    docker_host: str | None = None  # image only (default: DOCKER_HOST, else Docker's socket)
    env: dict[str, str] = Field(default_factory=dict)
    url: str = "http://127.0.0.1:{port}"
    ready_timeout_s: float = Field(600.0, gt=0)
    stop_grace_s: float = Field(10.0, ge=0)

    @model_validator(mode="after")
    def _one_way(self) -> Serve:
        if (self.command is None) == (self.image is None):
            raise ValueError("give command or image, not both")
        if self.image is None:
            extra = [k for k in ("args", "docker_host") if k in self.model_fields_set]
            if extra:
                raise ValueError(f"{extra[0]} goes with image, not command")
        elif "url" in self.model_fields_set:
            raise ValueError("url goes with command: an image is reached at its container")
        if self.image is None:
            self._check_url()
            uses_port = [t for t in (self.command or "", *self.env.values()) if "{port}" in t]
            if not uses_port:
                raise ValueError(
                    "command: no {port}: harness gives each candidate a free port, and a "
                    "server on a fixed port would be measured in its place; put {port} where "
                    "the server takes its port (e.g. --port {port}) or in env"
                )
        return self

    def _check_url(self) -> None:
        """A URL the readiness wait could never succeed on is refused here, not after
        ``ready_timeout_s`` in every trial."""
        scheme = urlsplit(self.url).scheme
        if scheme == "https":
            raise ValueError(
                f"url {self.url!r}: harness reaches the candidate it starts over plain HTTP "
                "(a TLS handshake against a plain server can never succeed); use http://"
            )
        if scheme != "http":
            raise ValueError(
                f"url {self.url!r}: not an http:// URL (e.g. http://127.0.0.1:{{port}})"
            )
        hint = drop_path_hint(self.url, "serve.url")
        if hint is not None:
            raise ValueError(
                f"url {self.url!r} has a path: harness adds every route itself (/ping, "
                f"/v1/completions); {hint}"
            )
