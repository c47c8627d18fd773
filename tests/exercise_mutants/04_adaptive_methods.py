"""Wrong submissions to notebook 04's exercises (see tests/test_exercise_mutants.py)."""

_RESULTS = '''
results_1000 = {label: {angle: tune(method, angle, 1000, LRS, **hyper) for angle in (0, 45)}
                for label, (method, hyper) in TUNED.items()}
'''

MUTANTS = {
    2: {
        # The values the visible test prints, typed in; tune returns one of them.
        'hard-coded': '''
def tune(method, angle, condition, lrs, **hyper):
    return 0.56, 2.0

results_1000 = {GD: {0: (0.0018, 3.0), 45: (0.0018, 3.0)},
                HB: {0: (0.0032, 2e-06), 45: (0.0032, 2e-06)},
                RMS: {0: (0.32, 3e-56), 45: (0.56, 2.0)},
                ADAM: {0: (1.0, 3e-07), 45: (3.2, 0.2)}}
''',
        # Gradient descent's textbook optimum (notebook 02) for every method and bowl.
        'closed-form': '''
def tune(method, angle, condition, lrs, **hyper):
    lr = 2 / (1 + condition)
    return lr, math.hypot(-4.5, 2.0) * ((condition - 1) / (condition + 1)) ** 300
''' + _RESULTS,
        # np.argmin returns the first nan: a diverged run is taken as the best one.
        'mistake: a diverged run counts as the best': '''
def tune(method, angle, condition, lrs, **hyper):
    d = final_distances(method, lrs, [angle], condition=condition, **hyper)[:, 0]
    row = int(np.argmin(d))
    return float(lrs[row]), float(d[row])
''' + _RESULTS,
        # Tuned once, on the aligned bowl, and that rate used at every angle.
        'mistake: tuned on the aligned bowl only': '''
def tune(method, angle, condition, lrs, **hyper):
    d0 = final_distances(method, lrs, [0], condition=condition, **hyper)[:, 0]
    lr = float(lrs[int(np.nanargmin(d0))])
    return lr, float(final_distances(method, [lr], [angle], condition=condition, **hyper)[0, 0])
''' + _RESULTS,
        # No tuning: the lesson's old fixed rate.
        'mistake: one fixed rate for every method': '''
def tune(method, angle, condition, lrs, **hyper):
    return 0.1, float(final_distances(method, [0.1], [angle], condition=condition, **hyper)[0, 0])
''' + _RESULTS,
    },
    3: {
        'hard-coded': '''
def amsgrad(lr, beta1, beta2, steps, eps=1e-8):
    return -0.97

x_amsgrad = -0.97
''',
        # The best point of the problem, which AMSGrad approaches but does not reach exactly.
        'closed-form': '''
def amsgrad(lr, beta1, beta2, steps, eps=1e-8):
    return -1.0

x_amsgrad = amsgrad(0.05, 0.0, 0.1, 3000)
''',
        # Dividing by the current v: Adam without its bias correction, which drifts to +1.
        'mistake: v instead of its running maximum': '''
def amsgrad(lr, beta1, beta2, steps, eps=1e-8):
    x, m, v = 0.0, 0.0, 0.0
    for step in range(1, steps + 1):
        g = reddi_gradient(step)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        x = float(np.clip(x - lr * m / (np.sqrt(v) + eps), -1.0, 1.0))
    return x

x_amsgrad = amsgrad(0.05, 0.0, 0.1, 3000)
''',
        # Adam's bias correction carried over (the paper's AMSGrad has none).
        'mistake: bias correction added': '''
def amsgrad(lr, beta1, beta2, steps, eps=1e-8):
    x, m, v, v_max = 0.0, 0.0, 0.0, 0.0
    for step in range(1, steps + 1):
        g = reddi_gradient(step)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat, v_hat = m / (1 - beta1 ** step), v / (1 - beta2 ** step)
        v_max = max(v_max, v_hat)
        x = float(np.clip(x - lr * m_hat / (np.sqrt(v_max) + eps), -1.0, 1.0))
    return x

x_amsgrad = amsgrad(0.05, 0.0, 0.1, 3000)
''',
        # The running maximum of g² instead of that of v.
        'mistake: maximum of the squared gradients': '''
def amsgrad(lr, beta1, beta2, steps, eps=1e-8):
    x, m, g2_max = 0.0, 0.0, 0.0
    for step in range(1, steps + 1):
        g = reddi_gradient(step)
        m = beta1 * m + (1 - beta1) * g
        g2_max = max(g2_max, g * g)
        x = float(np.clip(x - lr * m / (np.sqrt(g2_max) + eps), -1.0, 1.0))
    return x

x_amsgrad = amsgrad(0.05, 0.0, 0.1, 3000)
''',
    },
}
