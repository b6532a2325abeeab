"""Ask each question of a file with the grounded default; write answers and cited sources."""

import sys

import veriloop


def main(path: str) -> None:
    """Write, per question of `path`, the answer (or the refusal) and its sources."""
    method = veriloop.method("grounded")
    for line in open(path, encoding="utf-8"):
        question = line.strip()
        if not question:
            continue
        result = method.invoke({"question": question})
        sys.stdout.write("=" * 80 + f"\nQ: {question}\n")
        sys.stdout.write(f"{result.get('refusal') or result.get('answer')}\n")
        for source in result.get("sources") or []:
            shown = {k: source.get(k) for k in ("number", "id", "title", "url") if k in source}
            sys.stdout.write(f"  src: {shown}\n")


if __name__ == "__main__":
    main(sys.argv[1])
