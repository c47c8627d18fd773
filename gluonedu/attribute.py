"""Attributes given to every symbol created in a scope (``mx.AttrScope``)::

    with mx.AttrScope(__lr_mult__='0.1'):
        w = mx.sym.var('w')            # w.attr('__lr_mult__') == '0.1'

Scopes nest: an inner scope adds to (and overrides) the attributes of the outer one.
"""
import threading

__all__ = ['AttrScope', 'current']


class AttrScope:
    """Attributes (text values) for the symbols created inside ``with AttrScope(...)``."""
    _current = threading.local()

    def __init__(self, **kwargs):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs
        self._old_scope = None

    def get(self, attr):
        """This scope's attributes updated with ``attr`` (the ones given to one symbol)."""
        if not self._attr:
            return dict(attr) if attr else {}
        merged = dict(self._attr)
        if attr:
            merged.update(attr)
        return merged

    def __enter__(self):
        self._old_scope = current()
        self._attr = dict(self._old_scope._attr, **self._attr)
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        AttrScope._current.value = self._old_scope


def current():
    """The AttrScope of this thread (an empty one outside any ``with``)."""
    scope = getattr(AttrScope._current, 'value', None)
    if scope is None:
        scope = AttrScope._current.value = AttrScope()
    return scope
