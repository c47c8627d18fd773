"""Wrong submissions to notebook 11's exercises (tests/test_exercise_mutants.py)."""

_SIGN = '''@mx.optimizer.register
class SignDescent(mx.optimizer.Optimizer):
    def __init__(self, learning_rate=0.05, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        lr = self.begin_step(index).lr
        %s


sign_playground = OptimizerPlayground('quadratic', 'signdescent', steps=100)'''

MUTANTS = {
    2: {
        'hard-coded': "def largest_stable_lr(pg, lrs, momentum):\n    return 0.37",
        'closed-form': ("def largest_stable_lr(pg, lrs, momentum):\n"
                        "    return max(float(lr) for lr in lrs if lr < 2 * (1 + momentum) / 10)"),
        'mistake: only an overflow counts as unstable': (
            "def largest_stable_lr(pg, lrs, momentum):\n"
            "    stable = []\n"
            "    for lr in lrs:\n"
            "        pg.set(learning_rate=float(lr), momentum=momentum)\n"
            "        if pg.diverged_at is None:\n"
            "            stable.append(float(lr))\n"
            "    return max(stable)"),
        'mistake: the momentum never set': (
            "def largest_stable_lr(pg, lrs, momentum):\n"
            "    start = pg.landscape.distance_to_minimum(pg.path[0])\n"
            "    stable = [0.0]\n"
            "    for lr in lrs:\n"
            "        pg.set(learning_rate=float(lr))\n"
            "        if pg.diverged_at is None and pg.landscape.distance_to_minimum(pg.end) < start:\n"
            "            stable.append(float(lr))\n"
            "    return max(stable)"),
    },
    3: {
        'hard-coded': _SIGN % "weight[:] = weight - 0.05 * nd.sign(grad)      # the default rate typed in",
        'mistake: the gradient kept (plain gradient descent)': _SIGN % "weight[:] = weight - lr * grad",
        'mistake: the weight rebound, not changed in place': _SIGN % "weight = weight - lr * nd.sign(grad)",
    },
}
NO_CLOSED_FORM = {3: "the answer is an optimizer class of the student's own; no formula stands in for it"}
