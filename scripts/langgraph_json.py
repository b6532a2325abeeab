"""Write langgraph.json's graph list from the method registry (other keys are kept).

    .venv/bin/python scripts/langgraph_json.py [langgraph.json]

Run it after adding a method to `graphs/registry.py`; a unit test fails while the file is
stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from veriloop.graphs.registry import langgraph_config

if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "langgraph.json")
    current = json.loads(target.read_text()) if target.exists() else None
    target.write_text(json.dumps(langgraph_config(current), indent=2, ensure_ascii=False) + "\n")
    print(
        f"{target}: {len(current['graphs']) if current else 0} -> "
        f"{len(langgraph_config(current)['graphs'])} graphs"
    )
