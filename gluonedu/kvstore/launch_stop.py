"""How ``python -m gluonedu.launch`` stops a run on SIGTERM, SIGINT or SIGHUP.

A signal may arrive while the launcher's main thread is deep inside Ray (starting a
cluster can take a minute on a busy machine, and Python runs a signal handler only when
the main thread gets back to Python code). So the main thread does not act on the
signal itself: the signal's number reaches a *watcher thread* through
:func:`signal.set_wakeup_fd`, and the watcher

1. forwards the signal to every worker's process group and aborts the run's servers
   (so a worker waiting on a push stops too);
2. gives the workers :data:`WORKER_GRACE` seconds, then kills those still running;
3. waits for the main thread — which notices :attr:`Stopper.signum` at its next check
   (or, while it starts Ray, is interrupted: :meth:`Stopper.interrupting`, the signal
   sent again each second until it is), stops the Ray cluster and returns
   ``128 + signum`` — and, if the main thread has not finished :data:`EXIT_DEADLINE`
   seconds after the signal (stuck in Ray's native code), ends the Ray node started here
   itself, its processes and its files (the launcher's ``last_resort``), and then the
   process (``os._exit``).

So the launcher is gone within ``EXIT_DEADLINE`` seconds of the signal, whatever it
was doing.
"""
import contextlib
import os
import signal
import sys
import threading
import time

__all__ = ['Stopper', 'SIGNALS', 'WORKER_GRACE', 'EXIT_DEADLINE', 'RESIGNAL_EVERY']

#: The signals that stop a run (and are forwarded to the workers).
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: Seconds the workers get to stop after the forwarded signal before they are killed.
WORKER_GRACE = 5.0
#: Seconds after the signal by which the launcher process has ended.
EXIT_DEADLINE = 9.0
#: Seconds between the signals sent again to a main thread that did not stop starting Ray.
RESIGNAL_EVERY = 1.0


class Stopper:
    """Watches for the stop signals on behalf of a launcher's ``run``.

    ``run`` has ``workers`` (each with ``proc`` and ``end(sig)``) and ``group`` (the
    ServerGroup, or None), both filled in as the launcher starts them; ``last_resort()``
    (optional) is called, from the watcher thread, before the process ends itself. Use
    :meth:`install` in the main thread, :meth:`reinstall` after anything that replaces
    the handlers (``ray.init`` sets its own SIGTERM handler), and :meth:`finished` /
    :meth:`uninstall` at the end.
    """

    def __init__(self, run, last_resort=None):
        self.run = run
        self._last_resort = last_resort
        self.signum = None                  # the signal received, once one is
        self.workers_ended = threading.Event()
        self._done = threading.Event()
        self._saved = {}
        self._saved_fd = None
        self._read = self._write = None
        self._interrupting = False
        self._received = None               # the signal the main thread's handler saw

    @property
    def stopping(self):
        return self.signum is not None

    def install(self):
        """Catch the stop signals (main thread only; elsewhere nothing is installed)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._saved = {sig: signal.signal(sig, self._on_signal) for sig in SIGNALS}
        self._saved_fd = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        threading.Thread(target=self._watch, daemon=True, name='gluonedu-launch-stop').start()

    def _on_signal(self, signum, frame):
        """The Python-level handler, run by the main thread: the watcher thread acts, and
        inside :meth:`interrupting` the main thread drops what it is doing."""
        self._received = signum
        if self._interrupting:
            raise SystemExit(signum)

    @contextlib.contextmanager
    def interrupting(self):
        """While in the body, a stop signal also raises ``SystemExit(signum)`` in the main
        thread — as Ray's own SIGTERM handler does — for work that does not look at
        :attr:`stopping`, such as starting Ray (the exception unwinds it, cleaning up). A
        signal that came before raises it at once."""
        self._interrupting = True
        try:
            if self._received is not None:
                raise SystemExit(self._received)
            yield
        finally:
            self.reinstall()   # a signal resent from here on only marks the stop
            self._interrupting = False

    def reinstall(self):
        """Take the stop signals back (after ``ray.init`` replaced SIGTERM's handler)."""
        if self._saved:
            for sig in SIGNALS:
                signal.signal(sig, self._on_signal)

    def finished(self):
        """The main thread has cleaned up: the watcher need not end the process."""
        self._done.set()

    def uninstall(self):
        """Give the signals back to their previous handlers; end the watcher thread."""
        if not self._saved:
            return
        signal.set_wakeup_fd(self._saved_fd)
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)
        self._saved = {}
        os.write(self._write, b'\0')  # wakes the watcher with 'no signal'
        os.close(self._write)

    def _watch(self):
        signum = self._next_stop_signal()
        start = time.monotonic()
        if signum is None:
            return
        self.signum = signum
        name = signal.Signals(signum).name
        print('gluonedu.launch: got %s; stopping the workers, the servers and Ray' % name,
              file=sys.stderr, flush=True)
        self.end_workers(signum, start + WORKER_GRACE)
        if not self._wait_for_main_thread(signum, start + EXIT_DEADLINE):
            print('gluonedu.launch: could not stop cleanly within %.0f s of %s; ending what '
                  'is left and exiting' % (EXIT_DEADLINE, name), file=sys.stderr, flush=True)
            for w in list(self.run.workers):
                w.end(signal.SIGKILL)
            try:
                if self._last_resort is not None:
                    self._last_resort()
            finally:
                os._exit(128 + signum)

    def _wait_for_main_thread(self, signum, deadline):
        """Whether the main thread finished by ``deadline``. While it is still inside
        :meth:`interrupting`, the signal is sent again every :data:`RESIGNAL_EVERY` s: the
        SystemExit a handler raises is dropped where Python ignores exceptions (an
        os.fork callback, such as logging's lock release while Ray spawns a process)."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return self._done.is_set()
            if self._done.wait(min(RESIGNAL_EVERY, remaining)):
                return True
            if self._interrupting:
                os.kill(os.getpid(), signum)

    def _next_stop_signal(self):
        """The next stop signal's number; None (pipe closed) once :meth:`uninstall` ran.
        Other signals with a Python handler (Ray sets some) also reach the pipe: skipped."""
        while True:
            byte = os.read(self._read, 1)
            if byte in (b'', b'\0'):
                os.close(self._read)
                return None
            if byte[0] in SIGNALS:
                return byte[0]

    def end_workers(self, signum, deadline):
        """Forward ``signum`` to every worker, abort the servers, kill what still runs at
        ``deadline`` (``time.monotonic()``)."""
        for w in list(self.run.workers):
            w.end(signum)
        group = self.run.group
        if group is not None:
            group.abort('the launcher got %s' % signal.Signals(signum).name, timeout=1.0)
        for w in list(self.run.workers):
            try:
                w.proc.wait(timeout=max(deadline - time.monotonic(), 0))
            except Exception:  # subprocess.TimeoutExpired
                print('gluonedu.launch: worker %d did not stop within %.0f s; killing it'
                      % (w.rank, WORKER_GRACE), file=sys.stderr, flush=True)
                w.end(signal.SIGKILL)
        self.workers_ended.set()
