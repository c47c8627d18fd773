"""Wrong submissions to notebook 05's exercises (tests/test_exercise_mutants.py).

Exercise 1 is a prediction: every other letter is tried automatically.
"""
MUTANTS = {
    2: {
        # A schedule that returns the right first rate and then numbers chosen to look like
        # a decay, without thinking about how far the weights still have to travel.
        'hard-coded': "my_scheduler = FactorScheduler(step=1, factor=0.5, base_lr=0.02)",
        'mistake: decays too early (Σ η_t finite before the minimum is reached)':
            "my_scheduler = FactorScheduler(step=20, factor=0.5, base_lr=0.02)",
        'mistake: decays too little (still on a floor ∝ η)':
            "my_scheduler = FactorScheduler(step=500, factor=0.9, base_lr=0.02)",
        'mistake: no decay at all':
            "my_scheduler = FactorScheduler(step=10 ** 9, factor=0.5, base_lr=0.02)",
        'mistake: starts small to dodge the floor':
            "my_scheduler = FactorScheduler(step=200, factor=0.5, base_lr=0.002)",
    },
    3: {
        'hard-coded': (
            "def lars_step(w, g, lr, eta, wd=0.0, eps=0.0):\n"
            "    return w - 0.01 * np.linalg.norm(w) * g / np.linalg.norm(g)\n"),
        'hard-coded: the library called instead of the arithmetic': (
            "def lars_step(w, g, lr, eta, wd=0.0, eps=0.0):\n"
            "    updater = mx.optimizer.get_updater(mx.optimizer.create('lars', learning_rate=lr, eta=eta, wd=wd, eps=eps))\n"
            "    weight = nd.array(w, dtype='float64')\n"
            "    updater(0, nd.array(g, dtype='float64'), weight)\n"
            "    return weight.asnumpy()\n"),
        'closed-form': (
            "def lars_step(w, g, lr, eta, wd=0.0, eps=0.0):\n"
            "    # 'the step is lr·eta of ‖w‖ along g': no decay, no eps, no zero-norm fallback\n"
            "    return w - lr * eta * np.linalg.norm(w) * g / np.linalg.norm(g)\n"),
        'mistake: weight decay left out of the trust ratio': (
            "def lars_step(w, g, lr, eta, wd=0.0, eps=0.0):\n"
            "    w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)\n"
            "    layer_lr = lr * eta * w_norm / (g_norm + eps) if w_norm > 0 and g_norm > 0 else lr\n"
            "    return w - layer_lr * (g + wd * w)\n"),
        'mistake: zero weight norm gives a zero step': (
            "def lars_step(w, g, lr, eta, wd=0.0, eps=0.0):\n"
            "    w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)\n"
            "    layer_lr = lr * eta * w_norm / (g_norm + wd * w_norm + eps) if g_norm > 0 else lr\n"
            "    return w - layer_lr * (g + wd * w)\n"),
        'mistake: plain SGD': (
            "def lars_step(w, g, lr, eta, wd=0.0, eps=0.0):\n"
            "    return w - lr * (g + wd * w)\n"),
    },
}
NO_CLOSED_FORM = {2: 'the answer is a schedule, judged by the run it gives; no formula returns it'}
