"""JupyterLab on a folder of notebooks, as a student's lab (for the browser tests).

``serve_lab(tmp_path, root)`` starts ``python -m jupyterlab`` from this environment on
``root`` at 127.0.0.1, a free port and a random token, in its own process group, with
all of Jupyter's state (trust database, user settings, runtime) under ``tmp_path``; it
yields the lab's base URL and its log, and stops the group at the end. Starting it again
with the same ``tmp_path`` is the same student's lab the next day: what they trusted is
still trusted. The lab-wide settings are this environment's own, those `make lab`
installs (share/jupyter/lab/settings/overrides.json).
"""
import contextlib
import json
import os
import secrets
import subprocess
import sys
import time

import pytest

from browser_helpers import free_port, jupyter_env, listening, missing, stop_group

SERVER_START_S = 90      # JupyterLab listening

#: User settings of the test's lab: every cell rendered at once (JupyterLab otherwise
#: draws cells as they scroll into view), and no question about news.
USER_SETTINGS = {'notebook-extension/tracker': {'windowingMode': 'none'},
                 'apputils-extension/notification': {'fetchNews': 'false'}}


@contextlib.contextmanager
def serve_lab(tmp_path, root):
    """Serve ``root`` with JupyterLab; yield ``(base URL with token, log path)``."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        missing('JupyterLab')
    port, token = free_port(), secrets.token_hex(16)
    env = jupyter_env(tmp_path, os.path.dirname(sys.executable))
    env['HOME'] = str(tmp_path / 'home')
    settings = tmp_path / 'lab-settings'
    env['JUPYTERLAB_SETTINGS_DIR'] = str(settings)
    for name, value in USER_SETTINGS.items():
        path = settings / '@jupyterlab' / (name + '.jupyterlab-settings')
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding='utf-8')
    log = tmp_path / ('lab-%d.log' % port)
    with open(log, 'wb') as out:
        proc = subprocess.Popen(
            [sys.executable, '-m', 'jupyterlab', '--no-browser', '--ip=127.0.0.1',
             '--port=%d' % port, '--ServerApp.port_retries=0', '--allow-root',
             '--ServerApp.root_dir=%s' % root, '--IdentityProvider.token=%s' % token],
            cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while not listening(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail('JupyterLab did not listen on 127.0.0.1:%d:\n%s'
                            % (port, log.read_text(errors='replace')))
            time.sleep(0.3)
        yield 'http://127.0.0.1:%d' % port, token, log
    finally:
        stop_group(proc)
