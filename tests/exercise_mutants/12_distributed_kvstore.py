"""Wrong submissions to notebook 12's exercises (tests/test_exercise_mutants.py)."""

_EDGE = '''def delayed_stability_edge(tau, curvatures, steps=2000):
    updater = mx.optimizer.get_updater(mx.optimizer.create('sgd', learning_rate=1.0))
    w = mx.nd.array(np.ones_like(curvatures), dtype='float64')
    history = [w.asnumpy().copy()]
    with np.errstate(over='ignore', invalid='ignore'):
        for _ in range(steps):
            w_old = history[max(0, len(history) - 1 - %s)]
            updater(0, mx.nd.array(curvatures * w_old, dtype='float64'), w)
            history = history[-(tau + 1):] + [w.asnumpy().copy()]
        shrank = np.abs(history[-1]) < 1
    return curvatures[shrank].max()'''

MUTANTS = {
    2: {
        'hard-coded': ("def tune_sgd(workers, lrs, pushes=480, seed=0):\n"
                       "    return {0.05: 0.344, 0.1: 0.2289, 0.2: 0.3717}\n\n\n"
                       "best_lr_8, best_loss_8 = 0.1, 0.2289"),
        'closed-form': ("def tune_sgd(workers, lrs, pushes=480, seed=0):\n"
                        "    # the one-worker rate divided by the number of workers, no runs\n"
                        "    return {lr: abs(lr - 0.2 / workers) for lr in lrs}\n\n\n"
                        "losses_8 = tune_sgd(8, (0.05, 0.1, 0.2))\n"
                        "best_lr_8 = min(losses_8, key=losses_8.get)\n"
                        "best_loss_8 = losses_8[best_lr_8]"),
        'mistake: tuned on one worker (no staleness)': (
            "def tune_sgd(workers, lrs, pushes=480, seed=0):\n"
            "    return {lr: simulate(mx.optimizer.SGD(learning_rate=lr, rescale_grad=1 / BATCH), 1,\n"
            "                         pushes=pushes, seed=seed)[0] for lr in lrs}\n\n\n"
            "losses_8 = tune_sgd(8, (0.05, 0.1, 0.2))\n"
            "best_lr_8 = min(losses_8, key=losses_8.get)\n"
            "best_loss_8 = losses_8[best_lr_8]"),
        'mistake: the rate with the largest loss taken': (
            "def tune_sgd(workers, lrs, pushes=480, seed=0):\n"
            "    return {lr: simulate(mx.optimizer.SGD(learning_rate=lr, rescale_grad=1 / BATCH), workers,\n"
            "                         pushes=pushes, seed=seed)[0] for lr in lrs}\n\n\n"
            "losses_8 = tune_sgd(8, (0.05, 0.1, 0.2))\n"
            "best_lr_8 = max(losses_8, key=losses_8.get)\n"
            "best_loss_8 = losses_8[best_lr_8]"),
    },
    3: {
        'hard-coded': ("def delayed_stability_edge(tau, curvatures, steps=2000):\n"
                       "    return {0: 1.9995, 1: 0.9995, 2: 0.618, 3: 0.445, 4: 0.348}[tau]"),
        'closed-form': ("def delayed_stability_edge(tau, curvatures, steps=2000):\n"
                        "    edge = 2 * np.sin(np.pi / (4 * tau + 2))\n"
                        "    return curvatures[curvatures < edge].max()"),
        'mistake: the gradient one update too old': _EDGE % 'tau + 1',
        'mistake: the gradient one update too recent': _EDGE % '(tau - 1 if tau else 0)',
    },
}
