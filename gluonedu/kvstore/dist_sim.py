"""A SIMULATION of asynchronous workers: deterministic staleness for teaching.

Real dist_async staleness depends on how the operating system schedules processes, so
it changes from run to run. :class:`StalenessSimulation` replays the same story in one
process, with no Ray and no clock: ``num_workers`` simulated workers each need a
seeded, random amount of (simulated) time per step; a push is applied the moment its
worker finishes, in order of finishing time, and the worker then pulls the new weights
and starts its next step. A push's *staleness* is the number of pushes by other
workers applied between its worker's pull and its push — exactly what the real
dist_async server measures.

Worker ``w`` needs ``delays[w] * exp(spread * z)`` time units for a step (``z`` standard
normal, from ``seed``). The same arguments always give the same schedule, so two
optimizers can be compared under the same staleness::

    sim = mx.kv.StalenessSimulation(num_workers=4, steps=50, seed=0)
    sim.train(net.collect_params(), grad_fn, mx.optimizer.DCASGD(learning_rate=0.1))

This is a simulation beside the real store, not the store: use
``mx.kv.create('dist_async')`` (with the launcher or ``local_cluster``) for the real one.
"""
import heapq
from dataclasses import dataclass

import numpy as np

from ..instrument.events import BUS

__all__ = ['StalenessSimulation', 'SimulatedPush']

_SOURCE = 'simulation'


@dataclass(frozen=True)
class SimulatedPush:
    """One simulated push: when, by whom, and how stale its gradient was."""
    time: float            # simulated time at which the push is applied
    worker: int
    step: int              # the worker's own step count, from 0
    read_version: int      # the version of the weights the gradient was computed at
    version: int           # the version this push creates (1, 2, ...)

    @property
    def staleness(self):
        """Pushes by other workers applied between this worker's pull and this push."""
        return self.version - 1 - self.read_version


class StalenessSimulation:
    """Simulated asynchronous workers with seeded step times (see the module docstring).

    Parameters
    ----------
    num_workers : int
    steps : int
        Steps each worker takes.
    delays : list of float, optional
        Mean time per step of each worker (default 1.0 each: equally fast workers).
    spread : float, default 0.3
        Log-normal spread of the step times around the mean.
    seed : int, default 0
    """

    def __init__(self, num_workers, steps, delays=None, spread=0.3, seed=0):
        if num_workers < 1 or steps < 1:
            raise ValueError("a simulation needs at least 1 worker and 1 step, got %d workers "
                             "and %d steps" % (num_workers, steps))
        self.num_workers = int(num_workers)
        self.steps = int(steps)
        self.delays = [1.0] * self.num_workers if delays is None else [float(d) for d in delays]
        if len(self.delays) != self.num_workers:
            raise ValueError("delays needs one mean step time per worker (%d), got %d"
                             % (self.num_workers, len(self.delays)))
        self.spread = float(spread)
        self.seed = seed

    def schedule(self):
        """The pushes, in the order the simulated server applies them."""
        rng = np.random.default_rng(self.seed)
        durations = np.exp(self.spread * rng.standard_normal((self.num_workers, self.steps)))
        durations *= np.asarray(self.delays)[:, None]
        # (finish time, worker, step, version read); ties go to the lower worker id.
        queue = [(durations[w, 0], w, 0, 0) for w in range(self.num_workers)]
        heapq.heapify(queue)
        pushes, version = [], 0
        while queue:
            finish, w, step, read = heapq.heappop(queue)
            version += 1
            pushes.append(SimulatedPush(float(finish), w, step, read, version))
            if step + 1 < self.steps:
                heapq.heappush(queue, (finish + durations[w, step + 1], w, step + 1, version))
        return pushes

    def train(self, params, grad_fn, optimizer):
        """Train ``params`` asynchronously along :meth:`schedule`; returns the pushes.

        Parameters
        ----------
        params : ParameterDict, dict or list of Parameter (on one context)
        grad_fn : callable ``grad_fn(worker, step) -> loss``
            Runs forward and backward for that worker's batch (the Parameters hold the
            weights the worker pulled); returns the loss as a float.
        optimizer : Optimizer
            Runs on the simulated server (a local store) for every push.

        Returns
        -------
        list of (SimulatedPush, loss)
            Each push also emits a ``staleness`` event (source ``'simulation'``, context
            ``'worker<w>'``, ``step`` = the push's version). The Parameters end holding
            the server's weights.
        """
        from .local import KVStore
        if isinstance(params, dict) or hasattr(params, 'values'):
            params = [params[k] for k in sorted(params.keys())]
        params = list(params)
        store = KVStore('local')
        store.set_optimizer(optimizer)
        for i, p in enumerate(params):
            store.init(i, p.data())
        pulled = {w: [p.data().asnumpy() for p in params] for w in range(self.num_workers)}
        history = []
        for push in self.schedule():
            for p, w in zip(params, pulled[push.worker]):
                p.set_data(w)
            loss = float(grad_fn(push.worker, push.step))
            for i, p in enumerate(params):
                store.push(i, p.grad())
            outs = [p.data() for p in params]
            for i, out in enumerate(outs):
                store.pull(i, out=out)
            pulled[push.worker] = [o.asnumpy() for o in outs]
            history.append((push, loss))
            if BUS.active and BUS.wants('staleness'):
                BUS.emit('staleness', _SOURCE, param='all', context='worker%d' % push.worker,
                         step=push.version, versions_behind=float(push.staleness))
        return history
