"""The MomentumExplorer in a real browser: voila serves it, headless Chromium moves a slider.

The one-cell notebook ``NOTEBOOK_CODE`` is served by voila and opened in headless
Chromium that reaches 127.0.0.1 only (widget_server.py, conftest.py). The test focuses the momentum slider's handle and presses
the right-arrow key once: the linear slider moves by its step, 0.01, so the kernel
reruns heavy-ball SGD with ``momentum=0.51``.

It asserts that the summary shown in the page is exactly what the same explorer computes
in this process before and after ``set(momentum=0.51)`` -- the predicted rate along each
eigendirection and the errors of the real run; that the slider's readout moved; and that
the picture's PNG bytes changed. The screenshot goes to ``artifacts/momentum_browser.png``.
"""
import pytest

from widget_server import WidgetPage, serve_notebook

NOTEBOOK_CODE = (
    "from gluonedu.widgets import MomentumExplorer\n"
    "explorer = MomentumExplorer(condition=25, learning_rate=0.05, momentum=0.5, steps=60)\n"
    "explorer"
)
SUMMARY = '.gluonedu-momentum-summary pre'
IMAGE = 'img.gluonedu-momentum-image'
MOMENTUM_HANDLE = '.gluonedu-hp-momentum .noUi-handle'
MOMENTUM_READOUT = '.gluonedu-hp-momentum .widget-readout'


@pytest.fixture
def widget_page(tmp_path, browser_page):
    with serve_notebook(NOTEBOOK_CODE, tmp_path) as (url, log):
        yield WidgetPage(browser_page, url, log)


def test_moving_the_momentum_slider_reruns_heavy_ball(widget_page):
    scope = {}
    exec(NOTEBOOK_CODE.rsplit('\n', 1)[0], scope)
    expected = scope['explorer']
    expected_before = expected.summary()
    expected_after = expected.set(momentum=0.51).summary()
    assert expected_after != expected_before
    assert expected_after.startswith('heavy ball (sgd, lr=0.05, momentum=0.51)')

    try:
        widget_page.open(SUMMARY, IMAGE)
        assert widget_page.page.inner_text(MOMENTUM_READOUT) == '0.50'
        before, after, redrawn = widget_page.nudge(MOMENTUM_HANDLE, SUMMARY, IMAGE)
        assert before == expected_before
        assert after == expected_after
        assert widget_page.page.inner_text(MOMENTUM_READOUT) == '0.51'
        assert redrawn, 'the picture did not change'
    finally:
        shot = widget_page.screenshot('momentum_browser.png')
    assert shot.stat().st_size > 0
    assert widget_page.only_local_requests()
