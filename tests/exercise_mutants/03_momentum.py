"""Wrong submissions to notebook 03's exercises (see tests/test_exercise_mutants.py)."""

MUTANTS = {
    2: {
        'hard-coded': '''
def best_momentum(lr, curvatures, betas, steps=300):
    return 0.85

beta_fixed = 0.85
''',
        # §4's optimum for the condition number, whatever the learning rate.
        'closed-form': '''
def best_momentum(lr, curvatures, betas, steps=300):
    kappa = max(curvatures) / min(curvatures)
    beta_star = ((math.sqrt(kappa) - 1) / (math.sqrt(kappa) + 1)) ** 2
    return min(betas, key=lambda beta: abs(beta - beta_star))

beta_fixed = best_momentum(0.01, [1.0, 100.0], BETAS)
''',
        'mistake: more momentum is always faster': '''
def best_momentum(lr, curvatures, betas, steps=300):
    curvatures = np.asarray(curvatures, dtype=float)
    converged = []
    for beta in betas:
        optimizer = mx.optimizer.create('sgd', learning_rate=lr, momentum=beta)
        with np.errstate(over='ignore', invalid='ignore'):
            path = run_on_gradients(optimizer, lambda w: curvatures * w, np.ones(len(curvatures)), steps)
        if np.linalg.norm(path[-1]) < np.linalg.norm(path[0]):
            converged.append(beta)
    return max(converged)

beta_fixed = best_momentum(0.01, [1.0, 100.0], BETAS)
''',
    },
    3: {
        'hard-coded': '''
def stability_edge(optimizer, curvatures, steps=1000):
    return {0.0: 1.9995, 0.5: 1.4995, 0.9: 1.3565}.get(optimizer.momentum, 1.5)
''',
        # §6's formula, snapped to the grid (and scaled by the learning rate).
        'closed-form': '''
def stability_edge(optimizer, curvatures, steps=1000):
    curvatures = np.asarray(curvatures, dtype=float)
    beta = optimizer.momentum
    edge = 2 * (1 + beta) / (1 + 2 * beta) / optimizer.learning_rate
    return curvatures[curvatures < edge].max()
''',
        'mistake: still finite instead of shrunk': '''
def stability_edge(optimizer, curvatures, steps=1000):
    curvatures = np.asarray(curvatures, dtype=float)
    with np.errstate(over='ignore', invalid='ignore'):
        path = run_on_gradients(optimizer, lambda w: curvatures * w, np.ones_like(curvatures), steps)
    return curvatures[np.isfinite(path[-1])].max()
''',
    },
}
