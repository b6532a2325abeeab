"""Measure claim-support judges on held-out pairs: balanced accuracy, AUROC, ECE, speed.

One record per (judge, set, pair) goes to `judgements.jsonl` as it is made, so a long
measurement resumes where it stopped; `summarise` turns the records into the table of
docs/benchmarks/support_judges.md. Intervals are seeded percentile bootstraps over items
(both answers of a HaluEval item, or both abstracts of a PubMedQA item, move together).
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veriloop.errors import InvalidInputError
from veriloop.evaluation.judge_data.support_sets import LabelledPair
from veriloop.nodes.judges import SupportJudge

BINS = 10


def sample_by_item(pairs: list[LabelledPair], max_items: int, seed: int = 0) -> list[LabelledPair]:
    """Keep every pair of `max_items` items chosen with a seeded shuffle (0: all)."""
    items = sorted({pair.item for pair in pairs})
    if max_items <= 0 or max_items >= len(items):
        return pairs
    random.Random(seed).shuffle(items)
    kept = set(items[:max_items])
    return [pair for pair in pairs if pair.item in kept]


PairKey = tuple[str, str, str, bool]
"""(judge, set, item, supported): one pair's identity in a records file.

Not the pair's position: positions differ between samples of different sizes, so a run
with `--max-items 300` resuming a file written with `--max-items 50` must match pairs by
what they are."""


def pair_key(judge: str, set_name: str, item: object, supported: object) -> PairKey:
    """Return a pair's identity, the same whether read from a record or a `LabelledPair`."""
    return (judge, set_name, str(item), bool(supported))


def record_key(record: dict[str, Any]) -> PairKey:
    """Return the identity of the pair a record judged."""
    return pair_key(record["judge"], record["set"], record["item"], record["supported"])


def measure(
    judge_name: str,
    judge: SupportJudge,
    set_name: str,
    pairs: Sequence[LabelledPair],
    path: Path,
    *,
    batch: int = 8,
    progress: Callable[[int], None] | None = None,
    identity: str | None = None,
) -> None:
    """Judge every pair not yet in `path`, appending one record per pair.

    Records are matched by judge *name*, so a name reused for other weights would resume
    from the old judge's records. With `identity` (a fingerprint of the judge's weights),
    each record carries it and records of the same name made by another identity stop
    the run instead.

    Raises:
        InvalidInputError: `path` holds records of `judge_name` from another identity.
    """
    records = read_records(path)
    if identity is not None:
        other = {r.get("identity") for r in records if r["judge"] == judge_name} - {identity}
        if other:
            raise InvalidInputError(
                f"{path} holds records of judge {judge_name!r} made by other weights "
                f"({', '.join(sorted(str(o) for o in other))}, not {identity}); measure "
                "under another name, or rename or delete those records"
            )
    done = {record_key(record) for record in records}
    todo = [
        (i, p)
        for i, p in enumerate(pairs)
        if pair_key(judge_name, set_name, p.item, p.supported) not in done
    ]
    with path.open("a", encoding="utf-8") as out:
        for start in range(0, len(todo), batch):
            chunk = todo[start : start + batch]
            started = time.perf_counter()
            verdicts, _ = judge.judge([p.query for _, p in chunk])
            seconds = (time.perf_counter() - started) / len(chunk)
            for (index, pair), verdict in zip(chunk, verdicts, strict=True):
                record = {
                    "judge": judge_name,
                    "set": set_name,
                    "index": index,
                    "item": pair.item,
                    "supported": pair.supported,
                    "probability": verdict["probability"],
                    "scores": verdict["scores"],
                    "error": verdict["error"],
                    "seconds": round(seconds, 4),
                }
                if identity is not None:
                    record["identity"] = identity
                if pair.label is not None:
                    record["label"] = pair.label
                if "verdict" in verdict:  # a three-way judge: what it called the claim
                    record["verdict"] = verdict["verdict"]
                    record["p_contradicted"] = verdict.get("p_contradicted")
                if verdict.get("mismatches"):
                    record["mismatches"] = [m["kind"] for m in verdict["mismatches"]]
                out.write(json.dumps(record) + "\n")
            out.flush()
            if progress:
                progress(len(chunk))


def balanced_accuracy(probabilities: Sequence[float], supported: Sequence[bool]) -> float:
    """Return the mean of the recalls of both classes at threshold 0.5 (of those present)."""
    p = np.asarray(probabilities) >= 0.5
    y = np.asarray(supported, dtype=bool)
    recalls = [
        float((p[mask] == want).mean()) for mask, want in ((y, True), (~y, False)) if mask.any()
    ]
    return sum(recalls) / len(recalls) if recalls else float("nan")


def auroc(probabilities: Sequence[float], supported: Sequence[bool]) -> float | None:
    """Return the area under the ROC curve, or None with a single class."""
    from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]

    if len(set(supported)) < 2:
        return None
    return float(roc_auc_score(np.asarray(supported, dtype=int), np.asarray(probabilities)))


def expected_calibration_error(probabilities: Sequence[float], supported: Sequence[bool]) -> float:
    """Return the ECE over `BINS` equal-width probability bins."""
    p = np.asarray(probabilities, dtype=float)
    y = np.asarray(supported, dtype=float)
    edges = np.linspace(0.0, 1.0, BINS + 1)
    total = 0.0
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        mask = (p >= low) & ((p < high) if high < 1.0 else (p <= high))
        if mask.any():
            total += mask.mean() * abs(p[mask].mean() - y[mask].mean())
    return float(total)


def _by_item_bootstrap(
    records: list[dict[str, Any]],
    statistic: Callable[[list[float], list[bool]], float | None],
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float] | None:
    return _records_bootstrap(
        records,
        lambda chosen: statistic(
            [r["probability"] for r in chosen], [r["supported"] for r in chosen]
        ),
        resamples,
        seed,
    )


VERDICT_CLASS = {"supported": 0, "unsupported": 1, "contradicted": 2}
"""A claim verdict as a three-way class (`nodes.judges.THREE_WAY` order)."""


def three_way_accuracy(records: Sequence[dict[str, Any]]) -> float | None:
    """Return the share of records whose verdict is their gold class (None: none to score).

    Scored: records with a three-way gold `label`; a record without a verdict (an
    unusable one, or a support-only judge's) is wrong.
    """
    scored = [r for r in records if r.get("label") is not None]
    if not scored:
        return None
    return float(
        np.mean([VERDICT_CLASS.get(r.get("verdict") or "", -1) == r["label"] for r in scored])
    )


def verdict_rate(records: Sequence[dict[str, Any]], gold: int, verdict: str) -> float | None:
    """Return the share of records of gold class `gold` that the judge called `verdict`."""
    chosen = [r for r in records if r.get("label") == gold]
    if not chosen:
        return None
    return float(np.mean([r.get("verdict") == verdict for r in chosen]))


def _records_bootstrap(
    records: list[dict[str, Any]],
    statistic: Callable[[list[dict[str, Any]]], float | None],
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[float, float] | None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[record["item"]].append(record)
    keys = list(groups)
    rng = np.random.default_rng(seed)
    values = [
        value
        for _ in range(resamples)
        if (
            value := statistic(
                [r for k in rng.choice(len(keys), size=len(keys)) for r in groups[keys[k]]]
            )
        )
        is not None
    ]
    if not values:
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def summarise(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return one row per (judge, set): counts, metrics with intervals, seconds per claim.

    Unusable verdicts (probability None) count as wrong in balanced accuracy (scored as
    0.5, then on the wrong side for supported pairs) and are reported.
    """
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        grouped[(record["judge"], record["set"])].append(record)
    rows = []
    for (judge, set_name), group in sorted(grouped.items()):
        usable = [r for r in group if r["probability"] is not None]
        filled = [
            {**r, "probability": r["probability"] if r["probability"] is not None else 0.5 - 1e-9}
            for r in group
        ]
        probabilities = [r["probability"] for r in filled]
        supported = [r["supported"] for r in filled]
        rows.append(
            {
                "judge": judge,
                "set": set_name,
                "pairs": len(group),
                "items": len({r["item"] for r in group}),
                "unusable": len(group) - len(usable),
                "balanced_accuracy": balanced_accuracy(probabilities, supported),
                "balanced_accuracy_ci": _by_item_bootstrap(filled, balanced_accuracy),
                "auroc": auroc(probabilities, supported),
                "auroc_ci": _by_item_bootstrap(filled, auroc),
                "ece": expected_calibration_error(probabilities, supported),
                "seconds_per_claim": float(np.mean([r["seconds"] for r in group])),
            }
        )
        if any("verdict" in r for r in group) and any(r.get("label") is not None for r in group):
            rows[-1] |= {
                "three_way_accuracy": three_way_accuracy(group),
                "three_way_accuracy_ci": _records_bootstrap(group, three_way_accuracy),
                "contradictions_caught": verdict_rate(group, 2, "contradicted"),
                "supported_called_contradicted": verdict_rate(group, 0, "contradicted"),
            }
    return rows


def archive_of(path: Path) -> Path:
    """Return where `compact_records` keeps the records of `path`, gzipped (`<path>.gz`)."""
    return path.with_name(path.name + ".gz")


def read_records(path: Path) -> list[dict[str, Any]]:
    """Return the records of a judgements.jsonl file and its archive, the first one per pair.

    The archive (`archive_of(path)`, written by `compact_records`) is read first, then the
    plain file that `measure` appends to. A pair judged twice (by runs that matched pairs
    by position, before `record_key`) counts once.
    """
    records: dict[PairKey, dict[str, Any]] = {}
    archive = archive_of(path)
    texts = []
    if archive.exists():
        texts.append(gzip.decompress(archive.read_bytes()).decode("utf-8"))
    if path.exists():
        texts.append(path.read_text(encoding="utf-8"))
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                record = json.loads(line)
                records.setdefault(record_key(record), record)
    return list(records.values())


def compact_records(path: Path) -> int:
    """Fold the plain records file into its gzipped archive; return the records kept.

    The archive is written whole and renamed into place before the plain file is removed,
    so a crash at any point loses no record. The archive is what a repository keeps (tens
    of megabytes of JSON lines are a few in gzip); the plain file is the working log.
    """
    records = read_records(path)
    archive = archive_of(path)
    partial = archive.with_name(archive.name + ".partial")
    body = "".join(json.dumps(record) + "\n" for record in records)
    partial.write_bytes(gzip.compress(body.encode("utf-8"), mtime=0))
    partial.replace(archive)
    path.unlink(missing_ok=True)
    return len(records)


def markdown_table(
    rows: list[dict[str, Any]], in_sample: Callable[[str, str], bool] | None = None
) -> list[str]:
    """Return the summary rows as a markdown table.

    Args:
        rows: `summarise`'s rows.
        in_sample: Called with (judge, set); where it is true the judge cell says
            "(in-sample)": the judge was trained on those very pairs.
    """

    def interval(value: float | None, ci: tuple[float, float] | None) -> str:
        if value is None:
            return "n/a"
        return f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    lines = [
        "| set | judge | pairs (items) | balanced accuracy [95% CI] | AUROC [95% CI] | ECE | "
        "unusable | s/claim |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in sorted(rows, key=lambda r: (r["set"], r["judge"])):
        lines.append(
            f"| {row['set']} | {row['judge']}"
            + (" (in-sample)" if in_sample and in_sample(row["judge"], row["set"]) else "")
            + f" | {row['pairs']} ({row['items']}) | "
            f"{interval(row['balanced_accuracy'], row['balanced_accuracy_ci'])} | "
            f"{interval(row['auroc'], row['auroc_ci'])} | {row['ece']:.3f} | "
            f"{row['unusable']} | {row['seconds_per_claim']:.3f} |"
        )
    return lines


def _difference(
    mine: dict[tuple[str, bool], float],
    theirs: dict[tuple[str, bool], float],
    keys: list[tuple[str, bool]],
) -> float:
    gold = [label for _, label in keys]
    return balanced_accuracy([mine[k] for k in keys], gold) - balanced_accuracy(
        [theirs[k] for k in keys], gold
    )


def paired_against(
    records: Iterable[dict[str, Any]],
    reference: str,
    resamples: int = 1000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Compare every judge with `reference` on the pairs both judged (same set, item, label).

    Returns, per (judge, set): the shared items and pairs, the difference in balanced
    accuracy (judge minus reference) on them, and its 95% interval from resampling items
    (both judges scored on each resample). Unusable verdicts count as in `summarise`.
    """
    by_key: dict[tuple[str, str], dict[tuple[str, bool], float]] = defaultdict(dict)
    for record in records:
        probability = record["probability"]
        value = probability if probability is not None else 0.5 - 1e-9
        by_key[(record["judge"], record["set"])][(record["item"], record["supported"])] = value
    rows = []
    rng = np.random.default_rng(seed)
    for (judge, set_name), mine in sorted(by_key.items()):
        theirs = by_key.get((reference, set_name))
        if judge == reference or not theirs:
            continue
        shared = sorted(set(mine) & set(theirs))
        if not shared:
            continue
        items = sorted({item for item, _ in shared})
        pairs_of: dict[str, list[tuple[str, bool]]] = defaultdict(list)
        for key in shared:
            pairs_of[key[0]].append(key)

        draws = [
            _difference(
                mine,
                theirs,
                [k for i in rng.choice(len(items), size=len(items)) for k in pairs_of[items[i]]],
            )
            for _ in range(resamples)
        ]
        low, high = np.nanpercentile(draws, [2.5, 97.5])
        rows.append(
            {
                "judge": judge,
                "set": set_name,
                "reference": reference,
                "items": len(items),
                "pairs": len(shared),
                "difference": _difference(mine, theirs, shared),
                "ci": (float(low), float(high)),
            }
        )
    return rows
