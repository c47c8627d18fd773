"""The Figure that :mod:`gluonedu.viz` plots return: shown once in a notebook.

Matplotlib's inline backend shows every open pyplot figure when a cell ends, and IPython
also shows a Figure that is the cell's value -- so a cell ending with ``plot_norms(rec)``
would show the plot twice. This Figure leaves pyplot the moment IPython displays it
(as the cell's value, by ``display(fig)``, or by the end-of-cell flush itself), so
exactly one picture appears whatever the cell ends with: a bare call, a call with a
trailing ``;``, ``fig = plot_...(...)``, or another statement.
"""
from matplotlib.figure import Figure as _MatplotlibFigure

__all__ = ['Figure']

#: The names matplotlib gives the inline backend (``%matplotlib inline``, Jupyter's default).
INLINE_BACKENDS = frozenset({'inline', 'module://matplotlib_inline.backend_inline'})


class Figure(_MatplotlibFigure):
    """A matplotlib Figure that a notebook shows exactly once; everything else as usual.

    It is made through pyplot (``plt.subplots(FigureClass=Figure)``), so scripts use it
    as any figure -- ``fig.savefig(...)``, ``plt.show()`` -- and a notebook's inline
    backend shows it when the cell ends even if the cell ends with something else.
    When IPython displays it under the inline backend, it is first closed in pyplot
    (``plt.close(fig)``; the Figure itself stays usable), so the end-of-cell flush does
    not show it again; IPython's own figure formatters draw it, honouring
    ``%config InlineBackend.figure_formats``. Displayed again later (``fig`` alone in
    another cell), it shows again, as any closed figure does. Other backends (Agg,
    ``%matplotlib widget``) keep matplotlib's own behaviour.
    """

    def _repr_mimebundle_(self, include=None, exclude=None):
        import matplotlib
        import matplotlib.pyplot as plt
        if matplotlib.get_backend() in INLINE_BACKENDS:
            plt.close(self)
        return None           # no bundle of our own: IPython's formatters draw the figure
