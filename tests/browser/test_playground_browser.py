"""The OptimizerPlayground in a real browser: voila serves it, headless Chromium moves a slider.

The one-cell notebook ``PLAYGROUND_CODE`` is served by voila and opened in headless
Chromium that reaches 127.0.0.1 only (widget_server.py, conftest.py). The test focuses the
learning-rate slider's handle and presses the right-arrow key once: the log slider moves
by a tenth of a decade, so the kernel reruns Adam with ``learning_rate=0.126``.

It asserts that the summary shown in the page is exactly what the same playground computes
in this process before and after ``set(learning_rate=0.126)``, that the slider's readout
moved, and that the trajectory image's PNG bytes changed. The screenshot goes to
``artifacts/playground_browser.png``.
"""
import pytest

from widget_server import WidgetPage, serve_notebook

PLAYGROUND_CODE = (
    "from gluonedu.widgets import OptimizerPlayground\n"
    "playground = OptimizerPlayground('quadratic', 'adam', steps=60, learning_rate=0.1)\n"
    "playground"
)
SUMMARY = '.gluonedu-playground-summary pre'
IMAGE = 'img.gluonedu-playground-image'
LR_HANDLE = '.gluonedu-hp-learning_rate .noUi-handle'
LR_READOUT = '.gluonedu-hp-learning_rate .widget-readout'
MOVED_LR = 0.126     # 10 ** (log10(0.1) + 0.1), shown to three significant digits


@pytest.fixture
def widget_page(tmp_path, browser_page):
    with serve_notebook(PLAYGROUND_CODE, tmp_path) as (url, log):
        yield WidgetPage(browser_page, url, log)


def test_moving_the_learning_rate_slider_reruns_the_optimizer(widget_page):
    scope = {}
    exec(PLAYGROUND_CODE.rsplit('\n', 1)[0], scope)
    expected = scope['playground']
    expected_before = expected.summary()
    expected_after = expected.set(learning_rate=MOVED_LR).summary()
    assert expected_after != expected_before

    try:
        widget_page.open(SUMMARY, IMAGE)
        assert widget_page.page.inner_text(LR_READOUT) == '0.100'
        before, after, redrawn = widget_page.nudge(LR_HANDLE, SUMMARY, IMAGE)
        assert before == expected_before
        assert after == expected_after
        assert after.endswith('settings: learning_rate=0.126')
        assert widget_page.page.inner_text(LR_READOUT) == '0.126'
        assert redrawn, 'the trajectory image did not change'
    finally:
        shot = widget_page.screenshot('playground_browser.png')
    assert shot.stat().st_size > 0
    assert widget_page.only_local_requests()
