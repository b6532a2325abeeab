"""Re-score committed results folders with the veriloop first on sys.path; compare reports.

A refactoring must not change a committed number. Run this once with the old code and once
with the new, then compare the two output folders (and the committed reports):

    git worktree add /tmp/old <commit>
    PYTHONPATH=/tmp/old .venv/bin/python scripts/rescore_results.py /tmp/rescore/old
    .venv/bin/python scripts/rescore_results.py /tmp/rescore/new --compare /tmp/rescore/old

Only folders whose reports need no model are re-scored (multiple-choice reports, the
detection study and the M-Eval validation study): the free-text reports score answers with
the model and its cache.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
from pathlib import Path

FOLDERS = {
    "medqa_test_n30_goldkb": "answer",
    "commonsenseqa_dev_n30_goldkb": "answer",
    "truthfulqa_mc_n30_option_judge": "answer",
    "halueval_fv_train25_test25": "detection",
    "medqa_meval_n15": "validation",
}
COMPARED = ("report.md", "summary.json")


def rescore(results: Path, out: Path) -> None:
    """Copy each folder's manifest and results to `out` and write its report there."""
    import veriloop
    from veriloop.evaluation import validation_bench
    from veriloop.evaluation.detection import write_detection_report
    from veriloop.evaluation.report import write_report

    print(f"code: {Path(veriloop.__file__).parent}")
    writers = {
        "answer": write_report,
        "detection": write_detection_report,
        "validation": validation_bench.write_report,
    }
    for name, kind in FOLDERS.items():
        folder = out / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for file in ("manifest.json", "results.jsonl"):
            shutil.copy(results / name / file, folder / file)
        writers[kind](folder)


def compare(out: Path, others: list[Path]) -> bool:
    """Print, per folder and file, whether `out` matches each of `others`; True if all do."""
    same = True
    for name in FOLDERS:
        for file in COMPARED:
            for other in others:
                equal = filecmp.cmp(out / name / file, other / name / file, shallow=False)
                same &= equal
                print(f"{'same' if equal else 'DIFFERENT'}  {name}/{file}  vs {other}")
    return same


def main() -> int:
    """Re-score, then compare with the committed reports and any --compare folders."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="Where to write the re-scored folders.")
    parser.add_argument("--results", type=Path, default=Path("docs/results"))
    parser.add_argument("--compare", type=Path, action="append", default=[])
    args = parser.parse_args()
    rescore(args.results, args.out)
    return 0 if compare(args.out, [args.results, *args.compare]) else 1


if __name__ == "__main__":
    sys.exit(main())
