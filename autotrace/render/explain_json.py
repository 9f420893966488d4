"""The explanation as one JSON document (schema_version 1, sorted keys)."""

from __future__ import annotations

from ..explain import Explanation, to_dict
from . import jsontext


def render(ex: Explanation) -> str:
    """``json.dumps(to_dict(ex), sort_keys=True, ensure_ascii=False, indent=1)``."""
    return jsontext.dumps(to_dict(ex))
