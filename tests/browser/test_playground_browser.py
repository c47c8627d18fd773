"""The OptimizerPlayground in a real browser: voila serves it, headless Chromium moves a slider.

The one-cell notebook ``NOTEBOOK_CODE`` is served by voila and opened in headless
Chromium (see conftest.py for how, and what is needed). The test focuses the learning-rate
slider's handle and presses the right-arrow key once: the log slider's exponent moves by
its step (0.1), so the kernel receives ``10 ** -0.9`` and the playground (rounding log
sliders to 3 significant digits) runs Adam with ``learning_rate=0.126``.

It asserts that the summary text shown in the page is exactly what the same playground
computes in this process before and after ``set(learning_rate=0.126)``; that the slider's
readout moved; and that the trajectory image's PNG bytes changed. The page's screenshot
goes to ``artifacts/playground_browser.png`` (kept, pass or fail).
"""
import math

from gluonedu.widgets._common import round_significant

# The notebook's one cell; the test runs the same lines to know what the page must show.
NOTEBOOK_CODE = (
    "from gluonedu.widgets import OptimizerPlayground\n"
    "playground = OptimizerPlayground('quadratic', 'adam', steps=60, learning_rate=0.1)\n"
    "playground"
)
SUMMARY = '.gluonedu-playground-summary pre'
IMAGE = 'img.gluonedu-playground-image'
LR_HANDLE = '.gluonedu-hp-learning_rate .noUi-handle'
LR_READOUT = '.gluonedu-hp-learning_rate .widget-readout'


def test_moving_the_learning_rate_slider_reruns_the_optimizer(widget_page):
    # What the page must show: the same playground, computed here.
    scope = {}
    exec(NOTEBOOK_CODE.rsplit('\n', 1)[0], scope)
    expected = scope['playground']
    expected_before = expected.summary()
    moved_lr = round_significant(10 ** (math.log10(0.1) + 0.1))     # one arrow-key step
    assert moved_lr == 0.126
    expected_after = expected.set(learning_rate=moved_lr).summary()
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
