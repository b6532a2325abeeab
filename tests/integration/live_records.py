"""Read a results file another process is still appending to."""

import json
from pathlib import Path
from typing import Any


def whole_records(path: Path) -> list[dict[str, Any]]:
    """Return the records of the file's complete lines; a line still being written is left out.

    A run appends while a test polls its file, so the text read may end inside a record (CI
    once read a bench line cut at its 4,092nd character): only text up to the last newline is
    whole. The tool itself drops such a tail on resume (`ResultsFile` repairs it).
    """
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    whole = text[: text.rfind("\n") + 1]
    return [json.loads(line) for line in whole.splitlines() if line.strip()]
