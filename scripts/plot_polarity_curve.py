"""Draw the polarity training run's dev-part accuracy against pairs seen.

    .venv/bin/python scripts/plot_polarity_curve.py runs/polarity_v2/curve.jsonl

Reads the curve `benchmarks/train_polarity_judge.py` appends at every evaluation and writes
docs/benchmarks/polarity_curve.png (balanced accuracy, entailed vs the rest, per dev part,
and the selection score) and docs/benchmarks/polarity_curve.md (the same numbers as a
table, with the run's step, pairs seen and hours so far).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend is chosen first)

OUT = Path("docs/benchmarks")


def main() -> None:
    """Read the curve, write the plot and the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curve", type=Path)
    parser.add_argument("--machine", default="2 CPU cores", help="where the run trained")
    args = parser.parse_args()
    points = [json.loads(line) for line in args.curve.read_text().splitlines() if line.strip()]
    if not points:
        raise SystemExit(f"{args.curve} holds no evaluation yet")
    names = sorted(points[0]["sets"])
    figure, axis = plt.subplots(figsize=(7, 4))
    seen = [p["pairs_seen"] for p in points]
    for name in names:
        axis.plot(
            seen, [p["sets"][name]["balanced_accuracy"] for p in points], marker="o", label=name
        )
    axis.plot(seen, [p["selection"] for p in points], "k--", label="selection (mean)")
    axis.set_xlabel("pair presentations")
    axis.set_ylabel("balanced accuracy (entailed vs rest)")
    axis.set_title("Polarity judge: dev parts (never reported) vs pairs seen")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    figure.tight_layout()
    OUT.mkdir(parents=True, exist_ok=True)
    figure.savefig(OUT / "polarity_curve.png", dpi=120)
    header = (
        "| step | pairs seen | hours | loss (last 50) | " + " | ".join(names) + " | selection |"
    )
    lines = [
        "# Polarity judge training: the curve",
        "",
        f"Written by `scripts/plot_polarity_curve.py {args.curve} --machine '{args.machine}'` "
        "from the run of "
        f"`benchmarks/train_polarity_judge.py` ({args.machine}). Balanced accuracy (entailed vs "
        "the rest at P >= 0.5) on the dev parts that choose the checkpoint; they are never "
        "reported as results. Contradictions caught in parentheses.",
        "",
        header,
        "|" + "---|" * (len(names) + 5),
    ]
    for p in points:
        cells = [
            f"{p['sets'][n]['balanced_accuracy']:.3f}"
            + (
                f" ({p['sets'][n]['contradictions_caught']:.2f})"
                if p["sets"][n].get("contradictions_caught") is not None
                else ""
            )
            for n in names
        ]
        lines.append(
            f"| {p['step']} | {p['pairs_seen']} | {p['seconds'] / 3600:.2f} | "
            f"{p['loss_last_50']:.3f} | " + " | ".join(cells) + f" | {p['selection']:.3f} |"
        )
    lines += ["", "![curve](polarity_curve.png)", ""]
    (OUT / "polarity_curve.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
