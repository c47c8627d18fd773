"""Write the measured run time of every curriculum notebook into the teacher's guide.

    python scripts/notebook_times.py [--times build/notebook-times] [--guide notebooks/README.md]

``make test`` runs every notebook from the top in a fresh kernel
(tests/test_exercise_mutants.py) and leaves, per notebook, the seconds its lesson cells
and its exercise cells took in ``build/notebook-times/<stem>.json``. This script puts
them in the guide's table between the lines ``<!-- run-times: begin -->`` and
``<!-- run-times: end -->``, with the machine they were measured on, and fails naming
any curriculum notebook without a measurement.
"""
import argparse
import json
import os
import platform
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'scripts'))

import assignments  # noqa: E402

BEGIN, END = '<!-- run-times: begin -->', '<!-- run-times: end -->'


def table(times, machine):
    """The markdown table: one row per notebook, and the total."""
    rows = ['| notebook | lesson cells (s) | exercise cells (s) |', '|---|---:|---:|']
    total = [0.0, 0.0]
    for stem, t in times.items():
        rows.append('| %s | %.0f | %.0f |' % (stem, t['lesson'], t['exercises']))
        total[0] += t['lesson']
        total[1] += t['exercises']
    rows.append('| all %d | %.0f | %.0f |' % (len(times), *total))
    return ('Measured by `make test` (each notebook run from the top in a fresh kernel, '
            'beside the other tests) on %s; written by `scripts/notebook_times.py`.\n\n'
            % machine + '\n'.join(rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--times', type=Path, default=REPO / 'build' / 'notebook-times')
    parser.add_argument('--guide', type=Path, default=REPO / 'notebooks' / 'README.md')
    args = parser.parse_args(argv)
    stems = [p.stem for p in assignments.curriculum_notebooks()]
    missing = [s for s in stems if not (args.times / (s + '.json')).exists()]
    if missing:
        sys.exit('no measured time for %s in %s: run `make test` first'
                 % (', '.join(missing), args.times))
    times = {s: json.loads((args.times / (s + '.json')).read_text()) for s in stems}
    machine = '%d cores (%s)' % (os.cpu_count(), platform.processor() or platform.machine())
    guide = args.guide.read_text(encoding='utf-8')
    pattern = re.compile(re.escape(BEGIN) + '.*?' + re.escape(END), re.S)
    if not pattern.search(guide):
        sys.exit('%s has no %s ... %s block' % (args.guide, BEGIN, END))
    guide = pattern.sub(lambda _: BEGIN + '\n' + table(times, machine) + '\n' + END, guide)
    args.guide.write_text(guide, encoding='utf-8')
    print('run times of %d notebooks written to %s' % (len(times), args.guide))


if __name__ == '__main__':
    main()
