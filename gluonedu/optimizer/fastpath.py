"""The contract of a fast path: element-wise kernels declared beside each readable optimizer.

An optimizer with a fast path (see docs/fused.md, "Adding an optimizer with a fast
path") carries, in its own file, next to its readable ``update``:

1. one or more **rules**: the update of *one element*, written with the reference's
   operations in the reference's order, e.g. ::

       def adam_rule(weight, grad, mean, var, lr, wd, rescale, clip, beta1, ...):
           ...
           return weight - lr * mean / (np.sqrt(var) + epsilon), mean, var

2. a :class:`Kernel` per rule, which names what the rule's arguments are — read from
   the rule's own signature, so that every backend binds them by name::

       ADAM = Kernel(adam_rule, writes=('weight', 'mean', 'var'), per_parameter=('lr', 'wd'))

   *writes*: the arrays the rule returns new values of — the weight and the state
   arrays, named as the fields of the optimizer's state type (``AdamState``); *reads*:
   the arrays it only reads (``grad`` by default); *per_parameter*: scalars that may
   differ from parameter to parameter; every other argument is a *constant* of the step.
   The rule is the only copy of the formula: numba compiles it, and the CuPy backend
   (GPU contexts) runs its CUDA C translation (:mod:`._fused.cuda_source`; the rule and
   its helpers stay within the translated subset: float32 arithmetic, ``if``, NumPy's
   element functions, calls of plain Python functions);

3. the method ``fused_step(self, run)``: the step's bookkeeping (:meth:`begin_step
   <gluonedu.optimizer.Optimizer.begin_step>`), the scalars, and ``run(KERNEL,
   **scalars)`` — bound by name, checked against the signature — and, where some
   configuration is not covered, ``fused_refusal(self, indices, weights, grads)``
   returning why (the reference path then runs).

Only the class that defines ``fused_step`` itself has a fast path: a subclass may change
the math (ccSGD, the same optimizer as SGD, says ``fused_step = SGD.fused_step``).

The *run* an optimizer's ``fused_step`` receives is the executor's (``_fused/run.py``):
the parameters of one run of the reference (``run.indices``; ``run.per_call``, how many
of them one multi-tensor call of the reference takes; ``run.sparse``, which have
row_sparse gradients; ``run.multi_precision``), and ``run(kernel, arrays=None,
where=None, **scalars)``, which applies ``kernel`` to them — to flat buffers (one pass
over all parameters) or row by row (row_sparse gradients). ``arrays`` adds buffers the
step made (SGLD's noise, LAMB's direction); ``where`` (a boolean per parameter) applies
the kernel to some of them. Rules contain no numeric literals: compiled by numba, ``1 -
x`` with a float32 ``x`` would be computed in float64, so ``1 - beta1`` and the like
arrive as constants, rounded as the reference rounds them.
"""
import inspect

import numpy as np

__all__ = ['Kernel', 'KERNELS', 'has_fast_path', 'per_t']

#: Every declared kernel, by name (the rule's name; unique).
KERNELS = {}


class Kernel:
    """An element-wise rule of a fast path and the meaning of its arguments.

    Parameters
    ----------
    rule : function
        ``rule(<arrays>, <scalars>) -> new values of the written arrays``, one element;
        the new values come in the order the written arrays appear in the signature.
    writes : tuple of str
        The arrays the rule writes (the weight, the states: named as the state's fields).
    per_parameter : tuple of str
        The scalars that may differ from parameter to parameter (lr, wd, ...).
    reads : tuple of str, default ('grad',)
        The arrays the rule only reads.
    """

    def __init__(self, rule, writes, per_parameter=(), reads=('grad',)):
        names = tuple(inspect.signature(rule).parameters)
        declared = set(writes) | set(reads) | set(per_parameter)
        if declared - set(names):
            raise TypeError("Kernel(%s): %s are not arguments of the rule"
                            % (rule.__name__, sorted(declared - set(names))))
        self.rule = rule
        self.name = rule.__name__
        self.parameters = names
        self.arrays = tuple(n for n in names if n in writes or n in reads)
        self.writes = tuple(n for n in names if n in writes)
        self.per_parameter = tuple(n for n in names if n in per_parameter)
        self.constants = tuple(n for n in names if n not in declared)
        known = KERNELS.get(self.name)
        if known is not None and known.rule is not rule:
            raise ValueError("a kernel named %r is declared twice (%s and %s); give the rule "
                             "another name" % (self.name, known.rule.__module__,
                                               rule.__module__))
        KERNELS[self.name] = self

    def bind(self, arrays, scalars):
        """(arrays, per-parameter values, constants) in the kernel's order.

        ``arrays``: the arrays available, by name (the kernel takes those it names);
        ``scalars``: exactly the kernel's scalars, by name. A missing array, or a missing
        or unexpected scalar, raises TypeError naming it.
        """
        missing = [n for n in self.arrays if n not in arrays]
        if missing or set(scalars) != set(self.per_parameter + self.constants):
            raise TypeError("kernel %s takes arrays %s and scalars %s; got arrays %s and "
                            "scalars %s" % (self.name, list(self.arrays),
                                            list(self.per_parameter + self.constants),
                                            sorted(arrays), sorted(scalars)))
        return ([arrays[n] for n in self.arrays], [scalars[n] for n in self.per_parameter],
                [scalars[n] for n in self.constants])

    def __repr__(self):
        return 'Kernel(%s: writes %s, reads %s, per parameter %s, constants %s)' % (
            self.name, list(self.writes), [n for n in self.arrays if n not in self.writes],
            list(self.per_parameter), list(self.constants))


def has_fast_path(optimizer):
    """Whether ``optimizer``'s own class declares a fast path (``fused_step``)."""
    return 'fused_step' in vars(type(optimizer))


def per_t(t, formula):
    """``formula(t)`` for each entry of the update counts ``t``, once per distinct value.

    The formulas are the reference's Python expressions on Python numbers, so the
    results are the reference's exactly; usually every parameter has the same ``t``.
    """
    counts = np.asarray(t).tolist()
    if counts and counts.count(counts[0]) == len(counts):   # the Trainer's usual step
        return np.array([formula(int(counts[0]))] * len(counts))
    values = {v: formula(int(v)) for v in sorted(set(counts))}
    return np.array([values[v] for v in counts])
