"""``mx.instrument``: watch what training does to every parameter.

The training machinery emits :class:`~.events.Event` records on :data:`BUS`;
``subscribe(callback)`` receives them. See :mod:`gluonedu.instrument.events` for the
kinds and their values.
"""
from .events import BUS, KINDS, Event, EventBus, Subscription, subscribe

__all__ = ['BUS', 'KINDS', 'Event', 'EventBus', 'Subscription', 'subscribe']
