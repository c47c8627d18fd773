"""What the three widgets share: a figure rendered to PNG, number formatting, slider upkeep.

Each widget of :mod:`gluonedu.widgets` is a plain Python object holding its state, with
plain methods that compute (``set``, ``summary``, ...), and an ipywidgets view built on
first use (``.widget``). Callbacks of the view only translate a control's new value into
one of those plain calls, so tests (and nbval, which never fires callbacks) exercise the
same code a click does.
"""
import base64
import html
import io
import math

__all__ = ['WidgetView', 'fmt', 'round_significant', 'render_png', 'new_figure']


def fmt(value, digits=3):
    """``value`` to ``digits`` significant digits (``%g``); -0 prints as 0, None as '-'."""
    if value is None:
        return '-'
    if isinstance(value, bool):
        return str(value)
    value = float(value)
    if value == 0:
        return '0'
    if not math.isfinite(value):
        return str(value)
    return '%.*g' % (digits, value)


def round_significant(value, digits=3):
    """``value`` rounded to ``digits`` significant digits, e.g. 0.12589 -> 0.126.

    Values coming from a logarithmic slider (``10 ** 0.1`` computed in the browser) are
    rounded this way, so that a run started from the browser and one started from Python
    with the number the slider shows are the same run.
    """
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return value
    return float('%.*g' % (digits, value))


def new_figure(figsize, dpi=80):
    """A matplotlib Figure outside pyplot: nothing is shown, nothing piles up, no leaks.

    A Figure made this way has no pyplot manager, so the inline backend never displays
    it by itself and it is garbage-collected once dropped.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def render_png(fig):
    """The figure as PNG bytes (Agg), without metadata that would vary between runs."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format='png', metadata={'Software': None})
    return buffer.getvalue()


class WidgetView:
    """Base class: the ipywidgets view is built on first use and displays beside a summary.

    Subclasses implement :meth:`summary` (deterministic text), ``png()`` (the picture as
    PNG bytes), :meth:`_build` (make the controls and the picture's ipywidgets Image,
    ``self._image``, and return the top-level ipywidgets container) and
    :meth:`_refresh_view` (push the current state into the controls and the image).
    ``css_name`` names the CSS class of the summary box, ``gluonedu-<css_name>-summary``,
    which a browser test (or a stylesheet) can find.
    """
    css_name = 'widget'

    _widget = None
    _summary_html = None
    _image = None

    @property
    def widget(self):
        """The ipywidgets view (a VBox); built on first access."""
        if self._widget is None:
            import ipywidgets as w  # noqa: F401  (fail here, with ipywidgets' own message)
            self._summary_html = w.HTML(layout=w.Layout(width='auto'))
            self._summary_html.add_class('gluonedu-summary')
            self._summary_html.add_class('gluonedu-%s-summary' % self.css_name)
            self._widget = self._build()
            self._refresh_view()
        return self._widget

    def summary(self):
        raise NotImplementedError

    def _build(self):
        raise NotImplementedError

    def _refresh_view(self):
        raise NotImplementedError

    def _show_summary(self, text=None, error=None):
        """Write the summary (or an error message) into the view's text box."""
        if self._summary_html is None:
            return
        body = html.escape(self.summary() if text is None else text)
        if error is not None:
            body = '<span style="color:#b00">%s</span>' % html.escape(error)
        self._summary_html.value = ('<pre style="margin:0;font-size:12px;line-height:1.3">'
                                    '%s</pre>' % body)

    def _guarded(self, action):
        """Run a callback's plain method; an error goes to the summary box, not a traceback.

        A slider can ask for a combination the object refuses (e.g. a warm-up longer
        than the schedule); the message tells the student what to change.
        """
        try:
            action()
        except (ValueError, TypeError, ArithmeticError, AssertionError) as err:
            self._show_summary(error='%s: %s' % (type(err).__name__, err))

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The live view, plus a static picture and text for where widgets do not run.

        A trusted notebook with a running kernel shows the widget. Everywhere else --
        an untrusted notebook (a fresh clone), an export without widget state
        (nbconvert HTML, GitHub), a terminal -- the front end falls back to the PNG of
        the picture as it was when displayed, and to the text: ``repr`` and
        :meth:`summary`. The PNG is the view's own image (``self._image``, which
        ``_build`` creates), so displaying costs no second drawing.
        """
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        png = self._image.value if self._image is not None else self.png()
        data['image/png'] = base64.b64encode(png).decode('ascii')
        # ipywidgets' own text is the container's repr with model ids; ours is stable.
        data['text/plain'] = '%r\n%s' % (self, self.summary())
        return bundle


# ---------------------------------------------------------------- slider upkeep

def show_value(control, value):
    """Put ``value`` into a slider, widening its range first if the value lies outside.

    ipywidgets clamps a value to ``[min, max]``; a value set from Python (``set(lr=3)``)
    must be shown as it is, not clamped (which would also report a different number).
    Log sliders keep their range as exponents.
    """
    import ipywidgets as w
    if isinstance(control, w.FloatLogSlider):
        if value > 0:
            exponent = math.log(value, control.base)
            if exponent < control.min:
                control.min = math.floor(exponent)
            if exponent > control.max:
                control.max = math.ceil(exponent)
        control.value = value
        return
    if isinstance(control, (w.FloatSlider, w.IntSlider)):
        if value < control.min:
            control.min = value
        if value > control.max:
            control.max = value
    control.value = value
