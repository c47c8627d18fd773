"""Wrong submissions to notebook 15's exercises (see tests/test_exercise_mutants.py)."""

_DRIFT = '''
def drift(absent_steps, lazy_update, lr=0.05):
    net = SparseLogistic(V)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), %s,
                            {'learning_rate': lr, 'lazy_update': lazy_update})
    loss_fn = gluon.loss.SigmoidBinaryCrossEntropyLoss()
    w5 = [table(net)[5]]
    for x in [first] + [later] * absent_steps:
        with autograd.record():
            loss = loss_fn(net(x), nd.array([1, 0]))
        loss.backward()
        trainer.step(2)
        w5.append(table(net)[5])
    return %s


step, carried = drift(50, lazy_update=False)
carried_ratio = float(carried / step)
'''

MUTANTS = {
    2: {
        'hard-coded': '''
def drift(absent_steps, lazy_update, lr=0.05):
    return (lr, 0.0 if lazy_update else 5 * lr)

step, carried = 0.05, 0.248
carried_ratio = 4.97
''',
        # Adam's step with g = 0 shrinks by β1/√β2 each step; summed, without the bias
        # correction (which the first steps after a word's occurrence still feel).
        'closed-form': '''
def drift(absent_steps, lazy_update, lr=0.05):
    if lazy_update:
        return (lr, 0.0)
    ratio = 0.9 / math.sqrt(0.999)
    return (lr, lr * sum(ratio ** j for j in range(1, absent_steps + 1)))

step, carried = drift(50, lazy_update=False)
carried_ratio = float(carried / step)
''',
        'mistake: counts the first step in the drift': _DRIFT % (
            "'adam'", "abs(w5[1] - w5[0]), abs(w5[-1] - w5[0])"),
        'mistake: momentum SGD instead of Adam': (_DRIFT % (
            "'sgd'", "abs(w5[1] - w5[0]), abs(w5[-1] - w5[1])")).replace(
            "{'learning_rate': lr, 'lazy_update': lazy_update}",
            "{'learning_rate': lr, 'momentum': 0.9, 'lazy_update': lazy_update}"),
    },
    3: {
        'hard-coded': '''
def ftrl_rows(w, z, n, rows, g, lr, lamda1, beta):
    n[rows] = n[rows] + g * g
''',
        'mistake: a dense update (every row recomputed)': '''
def ftrl_rows(w, z, n, rows, g, lr, lamda1, beta):
    full = np.zeros_like(w)
    full[rows] = g
    z += full - (np.sqrt(n + full * full) - np.sqrt(n)) * w / lr
    n += full * full
    w[:] = np.where(np.abs(z) > lamda1, (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr), 0.0)
''',
        'mistake: z without the sigma * w correction (plain dual averaging)': '''
def ftrl_rows(w, z, n, rows, g, lr, lamda1, beta):
    wr, zr, nr = w[rows], z[rows], n[rows]
    zr = zr + g
    nr = nr + g * g
    wr = np.where(np.abs(zr) > lamda1,
                  (np.sign(zr) * lamda1 - zr) / ((beta + np.sqrt(nr)) / lr), 0.0)
    w[rows], z[rows], n[rows] = wr, zr, nr
''',
    },
}
NO_CLOSED_FORM = {3: 'the answer is the update rule itself, applied to random rows and gradients'}
