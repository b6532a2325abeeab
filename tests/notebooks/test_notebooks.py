"""Every notebook in notebooks/ runs top to bottom on the embedded model."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.integration
@pytest.mark.notebook
@pytest.mark.full
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the notebook drew no plot"
    assert any("ok" in o.get("text", "") for o in outputs if o.output_type == "stream")


def test_there_is_a_notebook_per_method_and_one_for_benchmarks() -> None:
    assert {
        "self_reflection.ipynb",
        "learn_to_refuse.ipynb",
        "factual_evidence.ipynb",
        "verification.ipynb",
        "benchmark.ipynb",
        "grounded.ipynb",
    } <= {
        p.name for p in NOTEBOOKS
    }
