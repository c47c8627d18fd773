"""The MXNet 1.9.1 side of the operator parity suites: every case once, in a fork.

Run by the reference interpreter (never importing gluonedu)::

    oracle_main.py oracle_ops_mxnet.py [--shared]

Each case runs in a forked child (MXNet is imported once, before forking), so that the
calls on which MXNet 1.9.1 crashes (``transpose`` with a repeated axis segfaults) are
recorded as ``{"status": "crash", "signal": n}`` instead of ending the run. A call that
never returns is ended by a limit on CPU time (:data:`CASE_CPU_S`, SIGPROF: the machine's
load does not count against it) and, should it block without computing, by SIGALRM after
:data:`CASE_TIMEOUT_S`. With ``--shared`` (the fuzz suite's thousands of calls) one child
runs the cases one after the other and a new one goes on after a crash: far fewer forks,
but a call that corrupts MXNet's memory without crashing (``scatter_nd`` with an index out
of range) may make a later one crash, which is then recorded as a crash too. The child
sends each outcome to the parent through a pipe as soon as it has it (no file per case).

The results (:mod:`oracle_io`) hold each successful case's arrays under ``"<id>|<name>"``
and, in their meta, every case's outcome (``{"status": "ok"}``, ``{"status": "error",
"type": ..., "message": ...}`` or a crash).
A case runs with ``mx.random.seed(case['seed'])`` first (seed 0 if it names none) unless
its ``seed`` is ``null``: seeding costs more than most calls, and only samplers need it.
"""
import os
import pickle
import signal
import struct
import sys

import mxnet as mx

import oracle_io
import ops_driver


#: CPU seconds one call may use before it counts as a crash: MXNet 1.9.1's gamma and
#: negative binomial samplers loop forever on some parameters; a real call takes ms.
CASE_CPU_S = 0.5
#: Wall-clock seconds, for a call that blocks instead of computing.
CASE_TIMEOUT_S = 30
_HEADER = struct.Struct('<Q')


def _outcome(case, inputs):
    """``(meta, arrays)`` of one case."""
    if case.get('seed', 0) is not None:
        mx.random.seed(int(case.get('seed', 0)))
    outcome = ops_driver.run_case(mx, case, inputs)
    if outcome[0] == 'ok':
        return {'status': 'ok'}, outcome[1]
    return {'status': 'error', 'type': outcome[1], 'message': outcome[2]}, {}


def _run_from(cases, start, stop, inputs, record):
    """Run ``cases[start:stop]`` in one fork, handing each ``(index, meta, arrays)`` to
    ``record`` as it arrives; ``(the index of the case it crashed on, the signal)``, or
    ``(None, None)``."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send, leave without running any cleanup of the parent
        os.close(read_end)
        code = 1
        try:
            with os.fdopen(write_end, 'wb') as pipe:
                for i in range(start, stop):
                    signal.setitimer(signal.ITIMER_PROF, CASE_CPU_S)
                    signal.alarm(CASE_TIMEOUT_S)
                    message = pickle.dumps((i,) + _outcome(cases[i], inputs))
                    signal.alarm(0)
                    signal.setitimer(signal.ITIMER_PROF, 0)
                    pipe.write(_HEADER.pack(len(message)) + message)
                    pipe.flush()
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    done = start
    with os.fdopen(read_end, 'rb') as pipe:
        while True:
            header = pipe.read(_HEADER.size)
            if len(header) < _HEADER.size:
                break
            message = pipe.read(_HEADER.unpack(header)[0])
            record(*pickle.loads(message))
            done += 1
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None, None
    return done, os.WTERMSIG(status) if os.WIFSIGNALED(status) else None


def main(shared=False):
    cases, inputs = oracle_io.load_cases(), oracle_io.load_inputs()
    results, outcomes = {}, {}

    def record(i, meta, arrays):
        outcomes[cases[i]['id']] = meta
        for name, array in arrays.items():
            results[cases[i]['id'] + '|' + name] = array

    start = 0
    while start < len(cases):
        stop = len(cases) if shared else start + 1
        crashed, signal_number = _run_from(cases, start, stop, inputs, record)
        if crashed is None:
            start = stop
            continue
        outcomes[cases[crashed]['id']] = {'status': 'crash', 'signal': signal_number}
        start = crashed + 1
    oracle_io.save_results(results, outcomes=outcomes)


if __name__ == '__main__':
    if sys.argv[1:] not in ([], ['--shared']):
        sys.exit('usage: oracle_main.py oracle_ops_mxnet.py [--shared]')
    main(shared=len(sys.argv) == 2)
