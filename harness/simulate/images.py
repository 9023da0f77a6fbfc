"""Image content parts of chat messages, checked the way an OpenAI-compatible VLM server does.

``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``: the
data URL must carry an image MIME type and valid base64; http(s) URLs are
refused (the simulator fetches nothing). An accepted image becomes Qwen3-VL's
vision block in the rendered prompt, so prompt lengths count it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import Any

VISION_BLOCK = "<|vision_start|><|image_pad|><|vision_end|>"


class ImagePartError(ValueError):
    """A malformed image part: the caller answers 400."""


@dataclass(frozen=True)
class ImagePart:
    mime: str
    nbytes: int
    sha256: str


def parse_image_part(part: dict[str, Any]) -> ImagePart:
    spec = part.get("image_url")
    url = spec.get("url") if isinstance(spec, dict) else spec
    if not isinstance(url, str):
        raise ImagePartError("image_url.url must be a string")
    if not url.startswith("data:"):
        raise ImagePartError("only data: URLs are accepted (the simulator fetches nothing)")
    header, sep, payload = url[5:].partition(",")
    mime, _, encoding = header.partition(";")
    if not sep or encoding != "base64" or not mime.startswith("image/"):
        raise ImagePartError("image_url must be a data:image/...;base64,... URL")
    try:
        raw = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ImagePartError("image_url data is not valid base64") from None
    if not raw:
        raise ImagePartError("image_url data is empty")
    return ImagePart(mime=mime, nbytes=len(raw), sha256=hashlib.sha256(raw).hexdigest())
