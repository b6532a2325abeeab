"""`veriloop verify --engine ray` on a real local Ray cluster (issue 39).

The cluster is started as a user would (`ray start --head` on loopback, two CPUs: two
checking actors); the rows are built from the bundled MedQuAD answers (a copied sentence,
and the same sentence with its meaning inverted). Checked:

- the results file is the single-process run's, byte for byte;
- a checking worker SIGKILLed mid-run: the run finishes, nothing lost or doubled;
- the driver SIGKILLed mid-run: the same command again checks only what is left.

`ray stop --force` (the cluster's teardown, and the docs page's last command) stops every
Ray on the machine: two runs of this module at once on one machine break each other.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from veriloop.knowledge.medquad import MEDQUAD_FILE
from veriloop.models.loopback import free_port

pytestmark = [pytest.mark.integration, pytest.mark.full]
ROWS = 2000
# A throwaway cluster on this machine: no usage stats, and no token (Ray 2.60 starts
# clusters with token authentication; a real cluster's driver sets RAY_AUTH_TOKEN).
QUIET = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled", "PYTHONWARNINGS": "ignore"}


def medquad_rows(count: int) -> list[dict[str, object]]:
    """Return `count` rows: a MedQuAD answer's first sentence, or that sentence inverted."""
    rows: list[dict[str, object]] = []
    with gzip.open(MEDQUAD_FILE, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            answer = json.loads(line)["answer"]
            first = answer.split(". ")[0].strip().rstrip(".") + "."
            if len(first.split()) < 6 or " is " not in first:
                continue
            claim = first if number % 2 else first.replace(" is ", " is not ", 1)
            rows.append({"id": f"mq-{number}", "answer": claim, "sources": [answer[:1200]]})
            if len(rows) == count:
                break
    return rows


def results_of(folder: Path) -> list[dict[str, object]]:
    """Return a run's records in file order."""
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def lines_in(path: Path) -> int:
    """Return how many records a results file holds so far."""
    return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0


def verify(rows: Path, out: Path, *extra: str) -> list[str]:
    """Return the `veriloop verify` command line for this environment."""
    return [
        str(Path(sys.executable).parent / "veriloop"),
        "verify",
        str(rows),
        "--out",
        str(out),
        *extra,
    ]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start a two-CPU Ray head on loopback (as `ray start` does); yield its address."""
    pytest.importorskip("ray", reason="install the extra: pip install 'veriloop[ray]'")
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent))
    assert ray_cli, "ray[data] is installed but its `ray` command is not beside python"
    port = free_port()
    temp = tmp_path_factory.mktemp("ray")
    env = {**os.environ, **QUIET}
    start = [
        ray_cli, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
        "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
        f"--temp-dir={temp}",
    ]  # fmt: skip
    subprocess.run(start, check=True, env=env, capture_output=True, timeout=180)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([ray_cli, "stop", "--force"], env=env, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def rows_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Write the rows as Parquet (the format a million-row log is kept in)."""
    import pandas as pd

    path = tmp_path_factory.mktemp("rows") / "rows.parquet"
    pd.DataFrame(medquad_rows(ROWS)).to_parquet(path)
    return path


@pytest.fixture(scope="module")
def single_process(rows_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Check the rows without Ray: the results every Ray run must equal."""
    out = tmp_path_factory.mktemp("single") / "run"
    env = {**os.environ, **QUIET}
    subprocess.run(verify(rows_file, out), check=True, capture_output=True, env=env, timeout=1800)
    return out


def ray_run_until(
    rows: Path, out: Path, cluster: str, written: int
) -> tuple[subprocess.Popen[bytes], list[str]]:
    """Start `verify --engine ray` on the cluster; return once `written` rows are on disk."""
    command = verify(rows, out, "--engine", "ray", "--address", cluster, "--workers", "2")
    env = {**os.environ, **QUIET}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 600
    while lines_in(out / "results.jsonl") < written and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1].decode()[-3000:]
        time.sleep(0.2)
    return process, command


def test_two_workers_write_the_single_process_results_and_survive_a_killed_worker(
    cluster: str, rows_file: Path, single_process: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    process, _ = ray_run_until(rows_file, out, cluster, written=64)
    killed = checking_workers()
    assert killed, "no checking actor process found to kill"
    os.kill(killed[0], signal.SIGKILL)
    _, err = process.communicate(timeout=1800)
    assert process.returncode == 0, err.decode()[-3000:]
    assert (out / "results.jsonl").read_bytes() == (single_process / "results.jsonl").read_bytes()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "ray (2 workers)" in report


def test_a_killed_driver_is_finished_by_the_same_command(
    cluster: str, rows_file: Path, single_process: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    process, command = ray_run_until(rows_file, out, cluster, written=ROWS // 3)
    process.kill()
    process.wait(timeout=60)
    written = lines_in(out / "results.jsonl")
    assert 0 < written < ROWS
    env = {**os.environ, **QUIET}
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"{written} already done" in " ".join(again.stderr.split())
    mine, theirs = results_of(out), results_of(single_process)
    assert [r["id"] for r in mine] == [r["id"] for r in theirs]  # each row once, in order
    for row, expected in zip(mine, theirs, strict=True):
        assert row["fingerprint"] == expected["fingerprint"]
        assert row["verdict"] == expected["verdict"]
        assert [c["verdict"] for c in row["claims"]] == [c["verdict"] for c in expected["claims"]]


def checking_workers() -> list[int]:
    """Return the pids of the processes running a checking actor (Ray names them)."""
    listed = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    return [
        int(line.split(None, 1)[0])
        for line in listed.splitlines()
        if "ChunkChecker" in line and "ps -eo" not in line
    ]


def test_the_ray_page_runs_as_written(rows_file: Path, tmp_path: Path) -> None:
    """docs/integrations/ray.md's commands, as a user pastes them, on a small rows.parquet."""
    pytest.importorskip("ray", reason="install the extra: pip install 'veriloop[ray]'")
    import pandas as pd

    page = (Path(__file__).resolve().parents[2] / "docs" / "integrations" / "ray.md").read_text()
    block = page.split("```bash\n", 1)[1].split("```", 1)[0]
    assert "--engine ray" in block and "ray start --head" in block
    pd.read_parquet(rows_file).head(40).to_parquet(tmp_path / "rows.parquet")
    script = tmp_path / "page.sh"
    script.write_text("set -euo pipefail\n" + block.replace("pip install", "true # pip install"))
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, **QUIET, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    results = (tmp_path / "runs" / "check" / "results.jsonl").read_text().splitlines()
    assert len(results) == 40  # the second command found every row done
    assert "40 already done" in " ".join(done.stderr.split())
