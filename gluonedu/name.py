"""Automatic names (``mx.name``): per-hint counters that make 'dense0', 'dense1', ...

A Block created outside any parent's ``name_scope()`` takes its prefix from the current
:class:`NameManager`: the hint (the lower-cased class name, e.g. ``'dense'``) followed
by how many Blocks with that hint the manager has named before, so the first ``Dense``
is ``dense0_``, the next ``dense1_``. The counters are per thread and global to it, as
in MXNet.

To get names that do not depend on what was created before (in a test, a notebook
cell), open a fresh manager::

    with mx.name.NameManager():
        net = nn.Dense(10)      # prefix 'dense0_', whatever came before

The counters of the enclosing manager continue unchanged after the ``with`` block.
"""
import threading

__all__ = ['NameManager', 'Prefix']


class NameManager:
    """Hands out names ``hint + count`` with one counter per hint.

    Use it as a ``with`` block to make it the current manager of this thread.
    """
    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """Return ``name`` if given, else the next automatic name for ``hint``.

        Parameters
        ----------
        name : str or None
            A name the user chose; returned unchanged when not empty.
        hint : str
            The stem of the automatic name, e.g. ``'dense'`` gives ``'dense0'``.
        """
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return '%s%d' % (hint, count)

    def __enter__(self):
        self._old_manager = current()
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        NameManager._current.value = self._old_manager
        self._old_manager = None


class Prefix(NameManager):
    """A NameManager that puts ``prefix`` in front of every name it hands out."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def current():
    """The NameManager of this thread (created on first use)."""
    manager = getattr(NameManager._current, 'value', None)
    if manager is None:
        manager = NameManager._current.value = NameManager()
    return manager
