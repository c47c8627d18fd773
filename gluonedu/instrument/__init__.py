"""``mx.instrument``: watch what training does to every parameter.

The training machinery emits :class:`~.events.Event` records on :data:`BUS`;
``subscribe(callback)`` receives them. See :mod:`gluonedu.instrument.events` for the
kinds and their values. A :class:`~.recorder.Recorder` keeps them as a tidy table
(pandas, CSV, JSON lines, TensorBoard); see :mod:`gluonedu.instrument.recorder`.
"""
from .events import BUS, KINDS, Event, EventBus, Subscription, subscribe
from .recorder import Recorder

__all__ = ['BUS', 'KINDS', 'Event', 'EventBus', 'Subscription', 'subscribe',
           'Recorder']
