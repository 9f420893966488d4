"""The explanation as one JSON document (schema_version 1, sorted keys)."""

from __future__ import annotations

import json

from ..explain import Explanation, to_dict


def render(ex: Explanation) -> str:
    return json.dumps(to_dict(ex), sort_keys=True, ensure_ascii=False, indent=1)
