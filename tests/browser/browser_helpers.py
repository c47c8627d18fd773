"""What the browser tests share: Debian's Chromium, free ports, servers in their own group."""
import os
import signal
import socket
import subprocess

import pytest

CHROMIUM = '/usr/bin/chromium'
CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                 '--no-first-run', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync']


def missing(what):
    """Fail under CI (the set-up should have provided it), skip elsewhere; say why."""
    message = ("the browser test needs %s. `make test` installs Chromium with apt-get when "
               "run as root; otherwise: sudo apt-get install chromium, and "
               "pip install -e '.[test]' for voila and playwright." % what)
    if os.environ.get('CI'):
        pytest.fail(message)
    pytest.skip(message)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def listening(port):
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=1):
            return True
    except OSError:
        return False


def stop_group(proc):
    """TERM a server's process group (the server and its kernels), KILL what is left."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    try:                                   # a kernel may outlive its server by a moment
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def jupyter_env(tmp_path, python_dir):
    """Environment for a Jupyter server: its state in ``tmp_path``, ``python_dir`` on PATH.

    The kernel is started from the 'python3' kernelspec, which names plain ``python``;
    MPLBACKEND is dropped so that the kernel picks its inline backend itself.
    """
    env = dict(os.environ)
    for name in ('JUPYTER_CONFIG_DIR', 'JUPYTER_DATA_DIR', 'JUPYTER_RUNTIME_DIR', 'IPYTHONDIR'):
        env[name] = str(tmp_path / name.lower())
    env['MPLCONFIGDIR'] = str(tmp_path / 'matplotlib')
    env['PATH'] = python_dir + os.pathsep + env.get('PATH', '')
    env.pop('MPLBACKEND', None)
    return env
