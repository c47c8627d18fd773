"""The instrumentation event bus: what the training machinery reports, and who listens.

The Trainer, the Updater/Optimizer, the KVStore and the lr schedulers *emit* small
:class:`Event` records at their hook points; subscribers (a ``Recorder``, a widget, your
own function) receive them. With nobody subscribed, a hook point costs one check
(``if BUS.active:``), and norms are computed only if a subscriber asked for them.

Event kinds and their ``values`` (each value a float, keyed by ``name``):

===============  ===========  ========================================================
kind             source       values
===============  ===========  ========================================================
``step_begin``   trainer      ``batch_size``, ``rescale``
``step_end``     trainer      ``batch_size``, ``rescale``
``lr``           optimizer    ``lr`` — effective: schedule × lr_mult (per param)
``wd``           optimizer    ``wd`` — effective: wd × wd_mult (per param)
``norm``         optimizer    ``weight``, ``grad``, ``update`` — L2 norms (per param)
``state_norm``   optimizer    one per state, named ``momentum``, ``mean``, ``var``, …
``stale_grad``   trainer      ``raised`` or ``skipped`` = 1 (per param and context)
``kv_push``      kvstore      ``bytes``, ``devices``, ``compressed_bytes``,
                              ``residual_norm`` (the last two with compression)
``kv_pull``      kvstore      ``bytes``, ``devices``
``clip``         clip_global  ``total_norm``, ``max_norm``, ``scale`` (gluon.utils.
                 _norm /      clip_global_norm); ``clip_gradient``,
                 optimizer    ``clipped_fraction`` (per param, optimizer's clip_gradient)
``overflow``     loss_scaler  ``loss_scale`` — a step skipped for inf/nan gradients
``nonfinite``    optimizer /  ``count`` — NaN/±Inf entries of a gradient (per param and
                 loss_scaler  context; only gradients that have any): the optimizer's
                              input, or each device's gradient AMP checked
``schedule``     scheduler    ``lr`` — the scheduler's value at ``num_update``
``staleness``    kvstore      ``versions_behind`` (per key, async stores; ``context``
                              names the worker: 'worker0', 'worker1', …)
``metric``       user         anything a training loop logs (loss, accuracy, …)
===============  ===========  ========================================================

``param`` names the parameter (or KVStore key) and ``context`` the device, where they
apply. ``step`` is the Trainer's step count at the time (0 before the first step).

A source reporting one event per parameter may hand them over together
(:meth:`EventBus.emit_batch`), as a sequence of ``(param, context, values)`` entries;
sources hand per-parameter values over as :class:`Columns` (the arrays they computed,
labelled by parameter). A source that reports several kinds at once (an optimizer
update: lr, wd, norms, non-finite counts) hands over one *report*
(:meth:`EventBus.emit_report`): an object with ``kinds`` and ``entries(kind)``.

A subscriber either takes Events one by one (``callback``), or keeps what arrives as it
arrives (``sink``): one call per batch or report, with a record ``(step, kind, source,
entries)`` -- ``kind`` None and ``entries`` the report for a report. The Recorder's sink
is its list's ``append``: during the step nothing is made but that one record (a
reference to the source's arrays); rows are made when its table is read. So watching a
step costs a few calls, whatever the number of parameters.
"""
from collections.abc import Mapping, Sequence
import threading
from types import MappingProxyType
from typing import NamedTuple

__all__ = ['Event', 'EventBus', 'Subscription', 'Labels', 'Columns', 'BUS', 'emit',
           'subscribe', 'KINDS', 'NORM_KINDS']

KINDS = ('step_begin', 'step_end', 'lr', 'wd', 'norm', 'state_norm', 'stale_grad', 'kv_push',
         'kv_pull', 'clip', 'overflow', 'nonfinite', 'schedule', 'staleness', 'metric')
#: Kinds whose values cost a reduction over the arrays; computed only on request.
NORM_KINDS = ('norm', 'state_norm')


class Event(NamedTuple):
    """One thing that happened during training (immutable; fields by name).

    A NamedTuple rather than a frozen dataclass: one is built per parameter and kind
    on every step, and a frozen dataclass takes several times as long to build.
    """
    kind: str
    step: int
    source: str
    param: object = None
    context: object = None
    values: Mapping = MappingProxyType({})   # read-only, so the shared default stays empty


class Labels(NamedTuple):
    """The ``param`` and ``context`` (str or None) of each entry of a :class:`Columns`.

    Anything with these two sequences will do; a source may work them out only when
    they are first read (see ``gluonedu.optimizer.reporting.UpdatedParams``).
    """
    params: Sequence
    contexts: Sequence


class Columns(Sequence):
    """Entries of an :meth:`EventBus.emit_batch` kept as columns: entry ``i`` is
    ``(labels.params[i], labels.contexts[i], {names[j]: columns[j][i], ...})``.

    A source reporting e.g. every parameter's lr hands over the array it computed; the
    small dictionaries (and the labels, if the source makes them lazily) are made only
    when a subscriber reads the entries -- the Recorder: when its table is read, not
    during the training step. The columns must not change afterwards: a source hands
    over arrays it made for the report.
    """
    __slots__ = ('labels', 'names', 'columns')

    def __init__(self, labels, names, columns):
        self.labels, self.names, self.columns = labels, tuple(names), tuple(columns)
        if len(self.names) != len(self.columns):
            raise ValueError("Columns: %d names for %d columns"
                             % (len(self.names), len(self.columns)))

    def __len__(self):
        return len(self.columns[0]) if self.columns else 0

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError('entry %d of %d' % (i, len(self)))
        return (self.labels.params[i], self.labels.contexts[i],
                {name: column[i] for name, column in zip(self.names, self.columns)})

    def __iter__(self):
        names = self.names
        rows = zip(*self.columns)
        return ((param, context, dict(zip(names, row)))
                for param, context, row in zip(self.labels.params, self.labels.contexts, rows))


class Subscription:
    """A subscriber's handle: ``remove()`` (or leave its ``with`` block) to stop listening."""

    def __init__(self, bus, callback, kinds, norms, sink=None):
        self._bus = bus
        self.callback = callback
        self.sink = sink
        self.kinds = None if kinds is None else frozenset(kinds)
        self._norms = norms
        self.wanted = self._wanted_kinds()

    @property
    def norms(self):
        """The norms wanted (False, True for all, or a list of names); may be changed."""
        return self._norms

    @norms.setter
    def norms(self, norms):
        self._norms = norms
        self.wanted = self._wanted_kinds()
        self._bus._refresh()

    def _wanted_kinds(self):
        """The kinds this subscriber receives (asked on every hook point: kept as a set)."""
        kinds = KINDS if self.kinds is None else self.kinds
        return frozenset(k for k in kinds if k not in NORM_KINDS or self._norms)

    def wants(self, kind):
        return kind in self.wanted

    def wants_norm(self, name):
        """Whether this subscriber asked for the norm called ``name``."""
        norms = self._norms
        return norms is True or (isinstance(norms, (list, tuple, set, frozenset))
                                 and name in norms)

    def norms_key(self):
        """The norms wanted as a hashable value: True (all), or a frozenset of names."""
        norms = self._norms
        if norms is True:
            return True
        return frozenset(norms) if isinstance(norms, (list, tuple, set, frozenset)) \
            else frozenset()

    def remove(self):
        """Stop receiving events (idempotent)."""
        self._bus._remove(self)

    detach = remove

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class EventBus:
    """Delivers events to subscribers; sources ask ``active``/``wants`` before building them."""

    def __init__(self):
        self._subscriptions = ()
        self._lock = threading.Lock()
        self.step = 0
        self._wanted = frozenset()        # kinds some subscriber wants
        self._routes = {}                 # kind -> the subscriptions that want it
        self._norms_wanted = {}           # norm name -> whether some subscriber wants it
        #: Changes whenever what the subscribers want may have changed; a source may keep
        #: what it worked out from ``wants`` until then.
        self.version = 0
        #: What the subscribers want, as a hashable value. Buses with equal keys answer
        #: every ``wants``/``wants_norm`` alike, so a source may keep what it worked out
        #: per key (a Recorder attached again asks for nothing new).
        self.wants_key = (self._wanted, frozenset())

    def _refresh(self):
        """Recompute what the subscribers want (after any of them changed)."""
        subscriptions = self._subscriptions
        self._wanted = frozenset().union(*(s.wanted for s in subscriptions))
        # kind -> its subscribers, in subscription order (what every emit looks up)
        self._routes = {kind: tuple(s for s in subscriptions if kind in s.wanted)
                        for kind in self._wanted}
        self._norms_wanted = {}
        self.wants_key = (self._wanted, frozenset(s.norms_key() for s in subscriptions))
        self.version += 1

    @property
    def active(self):
        """Whether anybody listens (the one check a hook point makes)."""
        return bool(self._subscriptions)

    def subscribe(self, callback, kinds=None, norms=False, sink=None):
        """Call ``callback(event)`` for every event of ``kinds`` (all if None).

        Parameters
        ----------
        callback : callable or None
        kinds : sequence of str, optional
        norms : bool or list of str, default False
            Whether this subscriber wants the ``norm``/``state_norm`` kinds (costly);
            a list names the quantities wanted ('weight', 'grad', 'update', 'mean', ...).
        sink : callable, optional
            Instead of ``callback`` (which may then be None): ``sink(record)`` receives
            one record per :meth:`emit`, :meth:`emit_batch` or :meth:`emit_report`:
            ``(step, kind, source, entries)``, with ``entries`` a sequence of ``(param,
            context, values)``; for a report, ``(step, None, source, report)``, the
            report holding kinds this subscriber may not want (filter them when
            reading: ``report.kinds``, ``report.entries(kind)``). A list's ``append``
            makes the cheapest subscriber there is.

        Returns
        -------
        Subscription
            Removable; also a context manager.
        """
        unknown = set(kinds or ()) - set(KINDS)
        if unknown:
            raise ValueError("unknown event kinds %s; the kinds are %s"
                             % (sorted(unknown), ', '.join(KINDS)))
        if callback is None and sink is None:
            raise TypeError("subscribe needs a callback(event) or a sink(record)")
        sub = Subscription(self, callback, kinds, norms, sink)
        with self._lock:
            self._subscriptions = self._subscriptions + (sub,)
            self._refresh()
        return sub

    def _remove(self, sub):
        with self._lock:
            self._subscriptions = tuple(s for s in self._subscriptions if s is not sub)
            self._refresh()

    def wants(self, kind):
        """Whether some subscriber wants events of ``kind``."""
        return kind in self._wanted

    def wants_norm(self, name):
        """Whether some subscriber wants the norm called ``name`` ('grad', 'mean', ...)."""
        wanted = self._norms_wanted.get(name)
        if wanted is None:
            wanted = self._norms_wanted[name] = any(s.wants_norm(name)
                                                    for s in self._subscriptions)
        return wanted

    def emit(self, kind, source, param=None, context=None, step=None, **values):
        """Deliver one ``kind`` event (``values``: its numbers by name) to the
        subscribers that want its kind; nothing is built if none does."""
        if kind in self._wanted:
            self.emit_batch(kind, source, ((None if param is None else str(param),
                                            None if context is None else str(context),
                                            values),), step)

    def emit_batch(self, kind, source, entries, step=None):
        """Emit one ``kind`` event per ``(param, context, values)`` of ``entries``.

        The same events as :meth:`emit` called for each entry in turn (``param`` and
        ``context`` must already be str or None); a subscriber with a ``sink`` receives
        ``entries`` as they are, in one record (a :class:`Columns` stays a reference to
        the source's arrays); the others get one Event each.
        """
        route = self._routes.get(kind)
        if route is None:
            return
        record = (self.step if step is None else step, kind, source, entries)
        events = None
        for sub in route:
            if sub.sink is not None:
                sub.sink(record)
                continue
            if events is None:
                events = [Event(kind, record[0], source, param, context, values)
                          for param, context, values in entries]
            for event in events:
                sub.callback(event)

    def emit_report(self, source, report, step=None):
        """Deliver one source's report of several kinds.

        ``report.kinds``: the kinds it holds (a source reports only kinds some
        subscriber wants); ``report.entries(kind)``: that kind's ``(param, context,
        values)`` entries. A subscriber with a ``sink`` receives the record ``(step,
        None, source, report)``; the others receive each kind they want as Events, as
        if each had been emitted with :meth:`emit_batch`.
        """
        step = self.step if step is None else step
        record = (step, None, source, report)
        for sub in self._subscriptions:
            if sub.sink is not None:
                sub.sink(record)
                continue
            for kind in report.kinds:
                if kind in sub.wanted:
                    for param, context, values in report.entries(kind):
                        sub.callback(Event(kind, step, source, param, context, values))


#: The process-wide bus every source emits on.
BUS = EventBus()
emit = BUS.emit
subscribe = BUS.subscribe
