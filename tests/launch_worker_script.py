"""A worker script for the launcher tests: pushpull a few steps; optionally die or freeze.

Environment: STEPS (default 6); STEP_SECONDS — a pause after each step (default 0);
KILL_RANK — that worker kills itself (SIGKILL) at step 2; STOP_RANK — that worker stops
itself (SIGSTOP: frozen, not dead) at step 2.
"""
import os
import signal
import time

import gluonedu as mx

kv = mx.kv.create('dist_sync')
kv.init(0, mx.nd.zeros((4,)))
out = mx.nd.zeros((4,))
pause = float(os.environ.get('STEP_SECONDS', '0'))
for step in range(int(os.environ.get('STEPS', '6'))):
    if step == 2 and kv.rank == int(os.environ.get('KILL_RANK', '-1')):
        os.kill(os.getpid(), signal.SIGKILL)
    if step == 2 and kv.rank == int(os.environ.get('STOP_RANK', '-1')):
        print('rank %d stopping itself' % kv.rank, flush=True)
        os.kill(os.getpid(), signal.SIGSTOP)
    kv.pushpull(0, mx.nd.ones((4,)), out=out)
    print('step %d sum %g' % (step, out.asnumpy()[0]), flush=True)
    time.sleep(pause)
print('rank %d of %d done' % (kv.rank, kv.num_workers), flush=True)
