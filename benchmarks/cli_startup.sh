#!/usr/bin/env bash
# CLI start-up (issue 32): `veriloop --help` and an input error, each beside importing the
# model stack (what every command paid before imports were made lazy), timed from outside
# by farm-bench (median of 10 pairs). Writes docs/benchmarks/cli_startup.md.
#   bash benchmarks/cli_startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/benchmarks/cli_startup.md
stack='.venv/bin/python -c "import veriloop.cli, veriloop.graphs.grounded, veriloop.models.backends"'
{
  echo "# CLI start-up"
  echo
  echo "Command: \`bash benchmarks/cli_startup.sh\` ($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD),"
  echo "$(nproc) cores). A: the command; B: importing the CLI and the model stack, what every command"
  echo "paid before the imports were made lazy. Medians of 10 runs, A and B in turn; quote the median."
  for a in ".venv/bin/veriloop --help" ".venv/bin/veriloop ask ' '" ".venv/bin/veriloop verify /no/such.json"; do
    echo
    echo "## \`${a#.venv/bin/}\`"
    echo
    echo '```'
    # shellcheck disable=SC2086
    farm-bench -n 10 --timeout 300 --vs "sh -c '$stack'" -- sh -c "exec $a >/dev/null 2>&1" 2>&1 \
      | grep -E "^(A|B|A/B) (wall|cpu)|^[0-9]{4}-"
    echo '```'
  done
} > "$out"
echo "wrote $out"
