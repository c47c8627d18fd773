"""The :class:`Recorder`: every event of a training run as one tidy table.

A Recorder subscribes to the instrumentation bus (:data:`gluonedu.instrument.events.BUS`)
and turns each :class:`~gluonedu.instrument.events.Event` into rows, **one row per
(event, value)**, with these stable columns:

===========  ======  =================================================================
column       type    meaning
===========  ======  =================================================================
``step``     int     the Trainer's step count when it happened (0 before the first step)
``event``    str     the event kind (table below)
``source``   str     who emitted it: 'trainer', 'optimizer', 'kvstore', 'scheduler',
                     'loss_scaler', or 'user' for rows a training loop logs itself
``param``    str     the parameter's name (for kvstore rows: the store key — see
                     *Filtering by trainer*); None for step-wide events and metrics
``context``  str     the device, e.g. 'cpu(0)', where it applies; else None
``name``     str     which quantity (table below)
``value``    float   the number
===========  ======  =================================================================

Event kinds and the ``name`` of each row they produce:

==============  ===============================================================  ====
event           name                                                             per
==============  ===============================================================  ====
``step_begin``  ``batch_size``, ``rescale``                                      step
``step_end``    ``batch_size``, ``rescale``                                      step
``lr``          ``lr`` — effective: scheduler × lr_mult                          param
``wd``          ``wd`` — effective: wd × wd_mult                                 param
``norm``        ``weight``, ``grad``, ``update`` — L2 norms (only with norms=)   param
``state_norm``  the state's own name: ``momentum``, ``mean``, ``var``, … (norms=) param
``stale_grad``  ``raised`` or ``skipped`` (value 1)                              param
``kv_push``     ``bytes``, ``devices``; with compression also
                ``compressed_bytes``, ``residual_norm``                          key
``kv_pull``     ``bytes``, ``devices``                                           key
``clip``        ``total_norm``, ``max_norm``, ``scale`` (clip_global_norm, step);
                ``clip_gradient``, ``clipped_fraction`` (optimizer, per param)   both
``overflow``    ``loss_scale`` — a step skipped for inf/nan gradients            step
``nonfinite``   ``count`` — NaN/±Inf entries in a gradient (only if any): what   param
                the optimizer received (source 'optimizer'), or each device's
                gradient under AMP (source 'loss_scaler', step skipped)
``schedule``    ``lr`` — the lr scheduler's value                                step
``staleness``   ``versions_behind`` (async stores)                               key
``metric``      whatever the loop logs: ``loss``, ``accuracy``, …                step
==============  ===============================================================  ====

Sampling (``every=n``)
    Rows whose ``step % n != 0`` are dropped, *except* ``metric`` rows (you logged them
    on purpose), ``stale_grad``, ``overflow`` and ``nonfinite`` rows (rare, and exactly
    what you want to see). Between sampled steps the Recorder also withdraws its request for norms,
    so ``every=10`` computes a tenth of the norms, not all of them.

Filtering by trainer (``trainer=...``)
    Events carry no reference to the object that emitted them, so a Recorder given a
    Trainer keeps a row when its ``param`` is

    * one of the trainer's parameter names (lr, wd, norms, state norms, stale
      gradients, per-parameter clipping), or
    * a KVStore key that is a parameter's index in the trainer (the Trainer uses the
      index as the key) — these rows get the parameter's *name* in ``param``, so
      ``kv_push`` rows read 'dense0_weight' instead of '1'; or
    * None: step-wide events (step_begin/step_end, global clipping, overflow, the lr
      schedule) and metrics.

    With two Trainers stepping at once, step-wide events and kvstore keys cannot be
    told apart; give each its own Recorder and expect to see both trainers' step-wide
    rows. ``trainer=None`` records everything, kvstore keys as emitted.

Exports: :meth:`Recorder.to_pandas`, :meth:`~Recorder.to_csv`,
:meth:`~Recorder.to_jsonl` (both written atomically), :meth:`~Recorder.to_tensorboard`
(tensorboardX, the ``tensorboard`` extra); :meth:`~Recorder.summary` prints a
deterministic digest; :meth:`~Recorder.series` gives arrays to plot.
"""
import collections
import csv
import functools
import io
import json
import numbers
import os
import re

import numpy as np

from ..files import atomic_write
from .events import BUS, KINDS

__all__ = ['Recorder', 'Row', 'COLUMNS', 'ALWAYS_KEPT']

#: The table's columns, in order.
COLUMNS = ('step', 'event', 'source', 'param', 'context', 'name', 'value')

#: One row of the table (a tuple; fields by name too: ``row.step``, ``row.value``).
Row = collections.namedtuple('Row', COLUMNS)

# Row(*fields) runs a Python-level __new__; tuple.__new__ builds the same Row in a
# fraction of the time, and this runs once per recorded value on the training path.
_new_row = functools.partial(tuple.__new__, Row)

#: Event kinds kept on every step, whatever ``every`` says.
ALWAYS_KEPT = frozenset({'metric', 'stale_grad', 'overflow', 'nonfinite'})

#: Significant digits of the numbers in :meth:`Recorder.summary`.
SUMMARY_DIGITS = 4


def _fmt(value, digits=SUMMARY_DIGITS):
    """``value`` rounded to ``digits`` significant digits (printf ``%g``); -0 prints as 0."""
    if value == 0:
        return '0'
    return '%.*g' % (digits, value)


def _scalar(value, what):
    """A Python float from a number, a NumPy scalar or a one-element (ND)array."""
    if hasattr(value, 'asnumpy'):
        value = value.asnumpy()
    array = np.asarray(value)
    if array.size != 1:
        raise ValueError("%s takes one number, got an array of shape %s; reduce it first "
                         "(e.g. loss.mean())" % (what, array.shape))
    return float(array.reshape(()))


class Recorder:
    """Record what training does to every parameter, as a tidy table.

    ``Recorder(trainer=None, every=1, norms=False, kinds=None)`` subscribes to the
    instrumentation bus at once; :meth:`detach` (or leaving a ``with`` block) stops it.
    The rows stay available after detaching.

    Columns (:data:`COLUMNS`): ``step, event, source, param, context, name, value``;
    one row per value of each event. The event kinds and their names are documented in
    :mod:`gluonedu.instrument.recorder`; in short: ``lr``/``wd`` (effective, per
    parameter), ``norm`` (``weight``/``grad``/``update``), ``state_norm`` (``momentum``,
    ``mean``, ``var``, …), ``stale_grad`` (``raised``/``skipped``), ``kv_push``
    (``bytes``, ``devices``, ``compressed_bytes``, ``residual_norm``), ``kv_pull``,
    ``clip``, ``overflow``, ``nonfinite`` (``count`` of NaN/±Inf gradient entries),
    ``schedule``, ``staleness``, ``step_begin``/``step_end`` and ``metric`` (rows you add
    with :meth:`log`).

    Parameters
    ----------
    trainer : gluon.Trainer, optional
        Keep only rows about this trainer's parameters, plus step-wide events and
        metrics (see *Filtering by trainer* in the module docstring). None records
        everything on the bus.
    every : int, default 1
        Keep rows of every ``every``-th step only (``step % every == 0``); ``metric``,
        ``stale_grad``, ``overflow`` and ``nonfinite`` rows are always kept. Norms are not
        computed on the steps in between.
    norms : bool or list of str, default False
        Ask the sources for L2 norms (they cost a reduction over every array):
        True for all, a list for some — ``'weight'``, ``'grad'``, ``'update'`` and state
        names such as ``'momentum'``, ``'mean'``, ``'var'``. False records lr, wd and
        the other events only.
    kinds : list of str, optional
        Record only these event kinds (default: all of :data:`~.events.KINDS`).

    Examples
    --------
    >>> with Recorder(trainer, norms=['grad', 'update']) as rec:   # doctest: +SKIP
    ...     for x, y in data:
    ...         with autograd.record():
    ...             loss = loss_fn(net(x), y)
    ...         loss.backward()
    ...         trainer.step(x.shape[0])
    ...         rec.log('loss', loss.mean())
    >>> print(rec.summary())                                       # doctest: +SKIP
    >>> steps, lrs = rec.series('lr', 'lr', param='dense0_weight')  # doctest: +SKIP
    """

    def __init__(self, trainer=None, every=1, norms=False, kinds=None):
        if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
            raise ValueError("every must be a whole number of steps >= 1, got %r" % (every,))
        self.every = int(every)
        self.norms = self._check_norms(norms)
        self.kinds = None if kinds is None else frozenset(kinds)
        self.trainer = trainer
        self._names, self._keys = self._trainer_names(trainer)
        self._rows = []      # the table so far
        self._pending = []   # records received but not yet made rows (see _all_rows)

        # Every step kept: the list's append is the sink, so nothing else runs during
        # the step; sampled steps: a filter first, so the others' records are not kept.
        sink = self._pending.append if self.every == 1 else self._keep_sampled
        self._subscription = BUS.subscribe(None, kinds=self.kinds, norms=self.norms,
                                           sink=sink)
        # Between sampled steps the norm request is withdrawn when a step begins.
        self._norm_toggle = BUS.subscribe(self._toggle_norms, kinds=['step_begin']) \
            if self.every > 1 and self.norms else None

    # ------------------------------------------------------------------ set-up helpers
    @staticmethod
    def _check_norms(norms):
        if isinstance(norms, bool):
            return norms
        if isinstance(norms, str):
            return [norms]
        try:
            names = list(norms)
        except TypeError:
            raise TypeError("norms must be True, False or a list of names such as "
                            "['weight', 'grad', 'update', 'mean'], got %r" % (norms,)) from None
        if not all(isinstance(n, str) for n in names):
            raise TypeError("norms must list names (str) such as 'grad' or 'momentum', "
                            "got %r" % (norms,))
        return names

    @staticmethod
    def _trainer_names(trainer):
        """(parameter names, {kvstore key: name}) of ``trainer``; (None, None) for all."""
        if trainer is None:
            return None, None
        params = getattr(trainer, 'params', None)
        if params is None:
            raise TypeError("trainer= must be a gluon.Trainer (something with a params list "
                            "of Parameters); pass trainer=None to record every event")
        names = [p.name for p in params]
        return frozenset(names), {str(i): name for i, name in enumerate(names)}

    # ------------------------------------------------------------------ receiving
    def _keep_sampled(self, record):
        """The sink when ``every > 1``: keep a record of a sampled step, or of the kinds
        kept on every step (filtered further when read, see :meth:`_keeps`)."""
        step, kind = record[0], record[1]
        if not step % self.every or kind in ALWAYS_KEPT or \
                (kind is None and not ALWAYS_KEPT.isdisjoint(record[3].kinds)):
            self._pending.append(record)

    def _toggle_norms(self, event):
        """At each step_begin: ask for norms on sampled steps only."""
        self._subscription.norms = self.norms if event.step % self.every == 0 else False

    def _keeps(self, kind, step):
        """Whether this Recorder keeps events of ``kind`` at ``step`` (kinds, every)."""
        if self.kinds is not None and kind not in self.kinds:
            return False
        return not step % self.every or kind in ALWAYS_KEPT

    def _all_rows(self):
        """The table: the rows made so far, after making those of the pending batches."""
        pending = self._pending
        if pending:
            count = len(pending)
            batches = pending[:count]
            del pending[:count]  # in place (the sink appends to this list), and not
            # `pending.clear()`: another thread may append meanwhile
            for step, kind, source, entries in batches:
                if kind is not None:   # a batch (the bus sends only the kinds wanted)
                    self._make_rows(step, kind, source, entries)
                    continue
                report = entries       # a report: each of its kinds this Recorder keeps
                for kind in report.kinds:
                    if self._keeps(kind, step):
                        self._make_rows(step, kind, source, report.entries(kind))
        return self._rows

    def _make_rows(self, step, kind, source, entries):
        """Append the rows of one batch of events to the table."""
        names, keys = self._names, self._keys
        append = self._rows.append
        step = int(step)
        for param, context, values in entries:
            if names is not None and param is not None and param not in names:
                if source == 'kvstore' and param in keys:
                    param = keys[param]
                else:
                    continue  # another trainer's parameter
            for name, value in values.items():
                append(_new_row((step, kind, source, param, context, name, float(value))))

    # ------------------------------------------------------------------ user rows
    def log(self, name, value, step=None):
        """Add a ``metric`` row: ``rec.log('loss', loss.mean())``.

        Metric rows are kept whatever ``every``, ``kinds`` or ``trainer`` say, and also
        after :meth:`detach`.

        Parameters
        ----------
        name : str
        value : number, NumPy scalar, or one-element NDArray or array
        step : int, optional
            Defaults to the bus's step count (the number of Trainer steps taken so
            far, so a loss logged after ``trainer.step`` shares that step's number).
        """
        if not isinstance(name, str) or not name:
            raise TypeError("log(name, value): name must be a non-empty str such as "
                            "'loss', got %r" % (name,))
        step = BUS.step if step is None else step
        value = _scalar(value, "log(%r, value)" % name)
        self._pending.append((int(step), 'metric', 'user', ((None, None, {name: value}),)))

    def log_metric(self, name=None, value=None, step=None, **metrics):
        """Add metric rows: ``log_metric('loss', 0.3)`` or ``log_metric(loss=0.3, acc=0.9)``.

        Several metrics given as keywords share one ``step`` (default: the bus's step).
        """
        if name is not None:
            if value is None:
                raise TypeError("log_metric(%r) needs a value: log_metric(%r, 0.25)"
                                % (name, name))
            self.log(name, value, step)
        elif value is not None:
            raise TypeError("log_metric(value=...) needs a name: log_metric('loss', value)")
        if name is None and not metrics:
            raise TypeError("log_metric() needs something to log: log_metric('loss', 0.3) "
                            "or log_metric(loss=0.3, accuracy=0.9)")
        step = BUS.step if step is None else step
        for key, val in metrics.items():
            self.log(key, val, step)

    # ------------------------------------------------------------------ lifetime
    @property
    def attached(self):
        """Whether the Recorder still receives events."""
        return self._subscription is not None

    def detach(self):
        """Stop recording (idempotent); the rows recorded so far stay."""
        if self._subscription is not None:
            self._subscription.remove()
            self._subscription = None
        if self._norm_toggle is not None:
            self._norm_toggle.remove()
            self._norm_toggle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()

    def clear(self):
        """Forget the rows recorded so far (keeps recording if attached)."""
        self._rows = []
        del self._pending[:]   # the same list: the bus appends to it

    # ------------------------------------------------------------------ the table
    @property
    def rows(self):
        """The rows (a list of :class:`Row` tuples), in the order they were recorded."""
        return list(self._all_rows())

    def __len__(self):
        return len(self._all_rows())

    def __repr__(self):
        return '<Recorder: %d rows, every=%d, %s>' % (
            len(self._all_rows()), self.every, 'attached' if self.attached else 'detached')

    def to_pandas(self):
        """The table as a ``pandas.DataFrame`` with :data:`COLUMNS`.

        dtypes: ``step`` int64, ``value`` float64; the text columns use pandas' own
        type for text (object in pandas 2, str in pandas 3), missing ``param`` and
        ``context`` are missing values.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Recorder.to_pandas() needs pandas, which is not installed: "
                              "pip install pandas (or pip install -e '.[notebook]'); "
                              "to_csv() and to_jsonl() work without it") from None
        frame = pd.DataFrame.from_records(self._all_rows(), columns=list(COLUMNS))
        return frame.astype({'step': 'int64', 'value': 'float64'})

    def to_csv(self, path):
        """Write the table to ``path`` as CSV (header row, then one line per row).

        Written atomically (a temp file renamed over ``path``). Missing ``param`` or
        ``context`` are empty fields; values use Python's shortest round-tripping
        repr (``nan``/``inf`` included). Read it back with :meth:`from_csv` or
        ``pandas.read_csv``. Returns ``path``.
        """
        text = io.StringIO()
        writer = csv.writer(text, lineterminator='\n')
        writer.writerow(COLUMNS)
        for row in self._all_rows():
            writer.writerow(['' if v is None else repr(v) if isinstance(v, float) else v
                             for v in row])
        return self._write(path, text.getvalue())

    def to_jsonl(self, path):
        """Write the table to ``path`` as JSON lines: one object per row, keys :data:`COLUMNS`.

        Written atomically. Missing ``param``/``context`` are ``null``; non-finite
        values are written as ``NaN``/``Infinity`` (as Python's json and pandas read
        them). Read it back with :meth:`from_jsonl` or
        ``pandas.read_json(path, lines=True)``. Returns ``path``.
        """
        lines = [json.dumps(dict(zip(COLUMNS, row))) + '\n' for row in self._all_rows()]
        return self._write(path, ''.join(lines))

    @staticmethod
    def _write(path, text):
        atomic_write(path, lambda f: f.write(text.encode('utf-8')))
        return path

    @classmethod
    def from_csv(cls, path):
        """A detached Recorder holding the rows of a :meth:`to_csv` file."""
        with open(path, newline='', encoding='utf-8') as f:
            reader = csv.reader(f)
            header = tuple(next(reader, ()))
            if header != COLUMNS:
                raise ValueError("%s is not a Recorder CSV: its header is %s, expected %s"
                                 % (path, ','.join(header), ','.join(COLUMNS)))
            rows = [Row(int(s), e, src, p or None, c or None, n, float(v))
                    for s, e, src, p, c, n, v in reader]
        return cls._detached(rows)

    @classmethod
    def from_jsonl(cls, path):
        """A detached Recorder holding the rows of a :meth:`to_jsonl` file."""
        rows = []
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.strip():
                    record = json.loads(line)
                    rows.append(Row(int(record['step']), record['event'], record['source'],
                                    record['param'], record['context'], record['name'],
                                    float(record['value'])))
        return cls._detached(rows)

    @classmethod
    def _detached(cls, rows):
        rec = cls.__new__(cls)
        rec.every, rec.norms, rec.kinds, rec.trainer = 1, False, None, None
        rec._names = rec._keys = None
        rec._subscription = rec._norm_toggle = None
        rec._rows = rows
        rec._pending = []
        return rec

    def to_tensorboard(self, logdir):
        """Write every row as a TensorBoard scalar under ``logdir`` (needs tensorboardX).

        Tags are ``event/param/name`` (``event/name`` for rows without a parameter,
        e.g. ``metric/loss``), at ``global_step=step``. Where one (event, param, name)
        was recorded on several contexts, the context is appended: ``.../name/cpu_1``.
        Characters TensorBoard does not allow in tags become ``_``. Returns ``logdir``;
        view it with ``tensorboard --logdir <logdir>``.
        """
        try:
            from tensorboardX import SummaryWriter
        except ImportError:
            raise ImportError("Recorder.to_tensorboard() needs tensorboardX, which is not "
                              "installed: pip install 'tensorboardX>=2.6' (or "
                              "pip install -e '.[tensorboard]')") from None
        contexts = collections.defaultdict(set)
        for row in self._all_rows():
            contexts[row.event, row.param, row.name].add(row.context)
        writer = SummaryWriter(logdir=os.fspath(logdir))
        try:
            for row in self._all_rows():
                parts = [row.event] + ([row.param] if row.param is not None else []) + [row.name]
                if len(contexts[row.event, row.param, row.name]) > 1:
                    parts.append(str(row.context))
                tag = '/'.join(_tag_part(p) for p in parts)
                writer.add_scalar(tag, row.value, global_step=row.step)
        finally:
            writer.close()
        return logdir

    # ------------------------------------------------------------------ reading it
    def series(self, event, name, param=None, context=None):
        """``(steps, values)`` NumPy arrays (int64, float64) of one quantity, in order.

        ``rec.series('lr', 'lr', param='dense0_weight')``,
        ``rec.series('norm', 'grad', param='dense0_weight')``,
        ``rec.series('metric', 'loss')``.

        Empty arrays come back while nothing of ``event`` has been recorded yet; a
        ``name`` or ``param`` that matches no recorded row raises a ValueError listing
        what there is.

        Parameters
        ----------
        event, name : str
        param, context : str, optional
            Needed when the rows of ``(event, name)`` span several parameters or
            contexts (a ValueError names them).
        """
        if event not in KINDS:
            raise ValueError("unknown event kind %r; the kinds are %s"
                             % (event, ', '.join(KINDS)))
        of_event = [r for r in self._all_rows() if r.event == event]
        if not of_event:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        rows = [r for r in of_event if r.name == name]
        if not rows:
            raise ValueError("no %r rows named %r; the recorded names are %s"
                             % (event, name, _listing(r.name for r in of_event)))
        for column, wanted in (('param', param), ('context', context)):
            present = {getattr(r, column) for r in rows}
            if wanted is None:
                if len(present) > 1:
                    raise ValueError("the %r/%r rows span several %ss (%s); pass %s=one of them"
                                     % (event, name, column, _listing(present), column))
            else:
                if wanted not in present:
                    raise ValueError("no %r/%r rows with %s=%r; recorded: %s"
                                     % (event, name, column, wanted, _listing(present)))
                rows = [r for r in rows if getattr(r, column) == wanted]
        return (np.array([r.step for r in rows], dtype=np.int64),
                np.array([r.value for r in rows], dtype=np.float64))

    def summary(self):
        """A deterministic text digest of the table (fit for nbval output checks).

        Sections: the number of rows and the step range; the number of rows per
        event kind; per
        parameter the last effective lr and wd; per parameter and quantity the first
        and last value of each norm and state norm; stale-gradient events per parameter
        and context; first and last value of each metric. Parameters, names and kinds
        are sorted alphabetically; numbers are rounded to 4 significant digits
        (``'%.4g'``, -0 as 0). No times, ids or memory addresses.
        """
        rows = self._all_rows()
        lines = []
        if rows:
            steps = [r.step for r in rows]
            lines.append('Recorder: %d rows, steps %d-%d, every %d'
                         % (len(rows), min(steps), max(steps), self.every))
        else:
            lines.append('Recorder: 0 rows, every %d' % self.every)
            return '\n'.join(lines)

        counts = collections.Counter(r.event for r in rows)
        lines.append('rows per event kind:')
        lines += _table([[kind, str(counts[kind])] for kind in sorted(counts)])

        last_lr, last_wd = {}, {}
        first, last = {}, {}
        stale = collections.Counter()
        metrics_first, metrics_last = {}, {}
        for r in rows:
            if r.event == 'lr' and r.param is not None:
                last_lr[r.param] = r.value
            elif r.event == 'wd' and r.param is not None:
                last_wd[r.param] = r.value
            elif r.event in ('norm', 'state_norm'):
                key = (r.param or '', r.name, 'state' if r.event == 'state_norm' else '')
                first.setdefault(key, r.value)
                last[key] = r.value
            elif r.event == 'stale_grad':
                stale[r.param or '', r.context or '', r.name] += 1
            elif r.event == 'metric':
                metrics_first.setdefault(r.name, r.value)
                metrics_last[r.name] = r.value

        params = sorted(set(last_lr) | set(last_wd))
        if params:
            lines.append('last lr / wd per parameter:')
            lines += _table([[p, 'lr ' + _fmt(last_lr[p]) if p in last_lr else 'lr -',
                              'wd ' + _fmt(last_wd[p]) if p in last_wd else 'wd -']
                             for p in params])
        if first:
            lines.append('norms, first -> last:')
            lines += _table([[p, name + (' (state)' if state else ''),
                              '%s -> %s' % (_fmt(first[p, name, state]),
                                            _fmt(last[p, name, state]))]
                             for p, name, state in sorted(first)])
        lines.append('stale gradient events: %d' % sum(stale.values()))
        lines += _table([[p, c, '%s %d' % (what, n)]
                         for (p, c, what), n in sorted(stale.items())])
        if metrics_first:
            lines.append('metrics, first -> last:')
            lines += _table([[m, '%s -> %s' % (_fmt(metrics_first[m]), _fmt(metrics_last[m]))]
                             for m in sorted(metrics_first)])
        return '\n'.join(lines)


def _table(cells):
    """Left-aligned, two-space-indented columns (widths from the content)."""
    if not cells:
        return []
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return ['  ' + '  '.join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
            for row in cells]


def _listing(values):
    return ', '.join(sorted(repr(v) for v in set(values)))


def _tag_part(text):
    return re.sub(r'[^A-Za-z0-9_.\-]+', '_', text).strip('_') or '_'
