"""Compare benchmark results with the recorded baseline, or record a new baseline.

    .venv/bin/python benchmarks/check_baselines.py build/bench/step.json ...
    .venv/bin/python benchmarks/check_baselines.py --record build/bench/run1 build/bench/run2 ...

Results files are what step.py, conv.py and instrument_overhead.py write with ``--json``
(a directory stands for the ``*.json`` files in it). Every recorded figure is one where
lower is better (gluonedu's time ÷ a peer's, or what watching adds to a bare step).

Checking prints a table of every baseline figure beside the new one and exits 1 when one
has regressed: new > ``--tolerance`` (1.25) × baseline. Improvements beyond the same
factor are reported, not failed; a figure whose peer did not run (MXNet or PyTorch not
found) or whose script's results were not given is reported as skipped.

Recording takes two or more runs (each a directory of results files) and writes the
baseline: each figure's mean over the runs where the runs agree within ``--variation``
(15%: max/min); figures that vary more are listed apart, unchecked.
"""
import argparse
import glob
import json
import os
import statistics
import sys

BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'baselines.json')
TOLERANCE = 1.25    # a figure regresses when new > TOLERANCE x baseline
VARIATION = 0.15    # a figure is checked only if its recorded runs agree within this


class BaselineError(ValueError):
    """A baseline or results file that cannot be read as one."""


def _read_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as exc:
        raise BaselineError('cannot read the %s %s: %s' % (what, path, exc.strerror)) from None
    except json.JSONDecodeError as exc:
        raise BaselineError('the %s %s is not JSON (%s); re-record it with `make '
                            'bench-baseline`' % (what, path, exc)) from None


def _figures(data, path, what):
    """``data['ratios']``, checked to map names to positive numbers."""
    ratios = data.get('ratios') if isinstance(data, dict) else None
    if not isinstance(ratios, dict):
        raise BaselineError('the %s %s has no "ratios" table (names to numbers); re-record '
                            'it with `make bench-baseline`' % (what, path))
    for name, value in ratios.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BaselineError('the %s %s gives %r for %s, not a number; re-record it with '
                                '`make bench-baseline`' % (what, path, value, name))
    return ratios


def load_baseline(path=BASELINE):
    """The baseline's figures {name: value}; BaselineError if the file is malformed."""
    data = _read_json(path, 'baseline')
    ratios = _figures(data, path, 'baseline')
    for name, value in ratios.items():
        if value <= 0:
            raise BaselineError('the baseline %s gives %r for %s: a baseline figure must be '
                                'positive; re-record it with `make bench-baseline`'
                                % (path, value, name))
    return ratios


def load_results(paths):
    """The figures of one run's results files: (scripts, {name: value}, {name: why missing})."""
    return _run_figures(_documents(paths))


def _documents(paths):
    """The results files' contents, each checked to hold a table of figures."""
    documents = []
    for path in _expand(paths):
        data = _read_json(path, 'results file')
        _figures(data, path, 'results file')
        data.setdefault('script', os.path.splitext(os.path.basename(path))[0])
        documents.append(data)
    return documents


def _run_figures(documents):
    scripts, ratios, missing = set(), {}, {}
    for data in documents:
        ratios.update(data['ratios'])
        missing.update(data.get('missing') or {})
        scripts.add(data['script'])
    return scripts, ratios, missing


def _expand(paths):
    """Files as given; a directory: the ``*.json`` files in it."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(glob.glob(os.path.join(path, '*.json')))
            if not found:
                raise BaselineError('no results files (*.json) in %s' % path)
            files.extend(found)
        else:
            files.append(path)
    return files


def compare(baseline, scripts, ratios, missing, tolerance=TOLERANCE):
    """One row per baseline figure: (name, baseline, new or None, status), status one of
    'ok', 'improved', 'REGRESSED' or 'skipped: <why>'."""
    rows = []
    for name, base in sorted(baseline.items()):
        new = ratios.get(name)
        if name.split('|')[0] not in scripts:
            status = 'skipped: its script was not run'
        elif new is None:
            status = 'skipped: %s' % missing.get(name, 'not measured in this run')
        elif new > tolerance * base:
            status = 'REGRESSED'
        elif new < base / tolerance:
            status = 'improved'
        else:
            status = 'ok'
        rows.append((name, base, new, status))
    return rows


def format_table(rows, tolerance=TOLERANCE):
    width = max([len(row[0]) for row in rows] + [6])
    lines = ['%-*s %10s %10s %8s  %s' % (width, 'figure', 'baseline', 'new', 'new/base',
                                          'status (lower is better; fails above %.2fx)'
                                          % tolerance)]
    lines.append('-' * len(lines[0]))
    for name, base, new, status in rows:
        change = '%7.2fx' % (new / base) if new is not None else '%8s' % '-'
        new_text = '%10.4g' % new if new is not None else '%10s' % '-'
        lines.append('%-*s %10.4g %s %s  %s' % (width, name, base, new_text, change, status))
    return '\n'.join(lines)


def check(baseline_path, result_paths, tolerance=TOLERANCE, out=None):
    """Print the comparison (to ``out``, default stdout); return the names of the figures
    that regressed."""
    out = out or sys.stdout
    rows = compare(load_baseline(baseline_path), *load_results(result_paths),
                   tolerance=tolerance)
    print(format_table(rows, tolerance), file=out)
    regressed = [row[0] for row in rows if row[3] == 'REGRESSED']
    counts = {}
    for row in rows:
        status = row[3].split(':')[0]
        counts[status] = counts.get(status, 0) + 1
    print('\n%d figures: %s' % (len(rows), ', '.join('%d %s' % (n, s)
                                                     for s, n in sorted(counts.items()))),
          file=out)
    if regressed:
        print('regressed by more than %.0f%%: %s' % (100 * (tolerance - 1),
                                                      ', '.join(regressed)), file=out)
    return regressed


def record(runs, variation=VARIATION, command=None, note=None):
    """The baseline from two or more runs (each a list of results paths): figures that
    vary by at most ``variation`` (max/min - 1) between runs are kept, as their mean."""
    if len(runs) < 2:
        raise BaselineError('recording needs two runs or more, to know which figures are '
                            'stable; give two directories of results files')
    metadata = [_documents(paths) for paths in runs]
    loaded = [_run_figures(documents) for documents in metadata]
    checked, unstable = {}, {}
    for name in sorted(set.union(*(set(r[1]) for r in loaded))):
        values = [r[1].get(name) for r in loaded]
        if (None not in values and min(values) > 0 and
                max(values) / min(values) - 1 <= variation):
            checked[name] = round(statistics.mean(values), 4)
        else:   # it varied, was not positive, or some run did not measure it (None)
            unstable[name] = [None if v is None else round(v, 4) for v in values]
    missing = {}
    for r in loaded:
        missing.update((name, why) for name, why in r[2].items()
                       if name not in checked and name not in unstable)
    first = metadata[0][0]
    dates = sorted(d['date'] for run in metadata for d in run if d.get('date'))
    return {
        'measured': {'from': min(dates), 'to': max(dates)} if dates else None,
        'machine': first.get('machine'),
        'command': command,
        'note': note,
        'scripts': {d['script']: {'command': d.get('command'), 'settings': d.get('settings')}
                    for d in metadata[0]},
        'load_average': {'run %d' % (i + 1): {d['script']: d.get('load_average') for d in run}
                         for i, run in enumerate(metadata)},
        'how': ('each figure is the mean of %d runs; lower is better; a figure is checked '
                'only where its runs agreed within %d%% (max/min), the rest are listed in '
                '"unstable" with each run\'s value; "missing" lists figures no run could '
                'measure, with the reason' % (len(runs), round(100 * variation))),
        'tolerance': TOLERANCE,
        'ratios': checked,
        'unstable': unstable,
        'missing': dict(sorted(missing.items())),
    }


def _split_runs(paths):
    """Runs from the command line: each directory is a run."""
    for path in paths:
        if not os.path.isdir(path):
            raise BaselineError('--record takes one directory per run; %s is not a '
                                'directory' % path)
    return [[path] for path in paths]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('results', nargs='+', help='results files or directories of them')
    parser.add_argument('--baseline', default=BASELINE)
    parser.add_argument('--tolerance', type=float, default=TOLERANCE)
    parser.add_argument('--record', action='store_true',
                        help='write the baseline from the runs given (one directory each)')
    parser.add_argument('--variation', type=float, default=VARIATION)
    parser.add_argument('--command', help='the command that made the runs, for the record')
    parser.add_argument('--note', help='how the machine was at the time, for the record')
    args = parser.parse_args(argv)
    try:
        if args.record:
            baseline = record(_split_runs(args.results), args.variation, args.command,
                              args.note or None)
            with open(args.baseline, 'w') as f:
                json.dump(baseline, f, indent=1)
                f.write('\n')
            print('%s: %d figures checked, %d unstable (left unchecked), %d not measured'
                  % (args.baseline, len(baseline['ratios']), len(baseline['unstable']),
                     len(baseline['missing'])))
            return 0
        return 1 if check(args.baseline, args.results, args.tolerance) else 0
    except BaselineError as exc:
        print('check_baselines: %s' % exc, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
