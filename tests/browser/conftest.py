"""The ``browser_page`` fixture: headless Debian Chromium that reaches 127.0.0.1 only."""
import os
from urllib.parse import urlparse

import pytest

from browser_helpers import CHROMIUM, CHROMIUM_ARGS, missing

#: Default time limit of one page action (ms).
ACTION_TIMEOUT_MS = 30_000


@pytest.fixture
def browser_page(tmp_path):
    """A page of headless Chromium (/usr/bin/chromium) that can reach 127.0.0.1 only.

    ``page.allowed`` and ``page.blocked`` list the URLs requested (every request passes
    the router, which aborts all but 127.0.0.1's).
    """
    if not os.path.exists(CHROMIUM):
        missing('Chromium at %s (Debian package `chromium`)' % CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing('Playwright for Python')
    allowed, blocked = [], []

    def local_only(route):
        if urlparse(route.request.url).hostname == '127.0.0.1':
            allowed.append(route.request.url)
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / 'chromium-profile'), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={'width': 1100, 'height': 720})
        try:
            context.route('**/*', local_only)
            page = context.new_page()
            page.set_default_timeout(ACTION_TIMEOUT_MS)
            page.allowed, page.blocked = allowed, blocked
            yield page
        finally:
            context.close()
