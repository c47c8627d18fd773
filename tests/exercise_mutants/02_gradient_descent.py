"""Wrong submissions to notebook 02's exercises (see tests/test_exercise_mutants.py)."""

_STEPS_BY_FORMULA = '''
def steps_at(eigenvalues, lr, tol=1e-6, max_steps=500):
    rate = max(abs(1 - lr * lam) for lam in eigenvalues)
    if rate >= 1:
        return max_steps
    return min(max_steps, math.ceil(math.log(tol) / math.log(rate)))
'''

MUTANTS = {
    2: {
        'hard-coded': '''
def steps_at(eigenvalues, lr, tol=1e-6, max_steps=500):
    return {0.12: 106, 0.15: 83, 0.17: 73, 0.19: 128}.get(lr, max_steps)

def best_on_grid(eigenvalues, lrs):
    return 0.17

best_lr = 0.17
''',
        # The rate's formula instead of a run: the count ignores all but the slowest direction,
        # and the grid rate nearest to 2/(λmin + λmax) is taken as the best.
        'closed-form': _STEPS_BY_FORMULA + '''
def best_on_grid(eigenvalues, lrs):
    eta_star = 2 / (min(eigenvalues) + max(eigenvalues))
    return min(lrs, key=lambda lr: abs(lr - eta_star))

best_lr = best_on_grid([1.0, 10.0], [0.12, 0.15, 0.17, 0.19, 0.21])
''',
        'mistake: the largest rate that converges is the fastest': '''
def steps_at(eigenvalues, lr, tol=1e-6, max_steps=500):
    lam = nd.array(eigenvalues, dtype='float64')
    path = run_gd(lambda w: 0.5 * lam * w ** 2, np.ones(len(eigenvalues)), lr, max_steps)
    distance = np.linalg.norm(path, axis=1)
    reached = distance <= tol * distance[0]
    return int(np.argmax(reached)) if reached.any() else max_steps

def best_on_grid(eigenvalues, lrs):
    return max(lr for lr in lrs if steps_at(eigenvalues, lr) < 500)

best_lr = best_on_grid([1.0, 10.0], [0.12, 0.15, 0.17, 0.19, 0.21])
''',
    },
    3: {
        'hard-coded': '''
def steps_to_converge(H, P, lr=1.0, tol=1e-6, max_steps=5000):
    if np.allclose(P @ H, np.eye(len(H))):
        return 1
    return 691

results = {('newton', 'aligned'): 1, ('newton', 'rotated'): 1,
           ('jacobi', 'aligned'): 1, ('jacobi', 'rotated'): 691}
''',
        # The spectral radius of I - ηPH instead of a run.
        'closed-form': '''
def steps_to_converge(H, P, lr=1.0, tol=1e-6, max_steps=5000):
    rate = np.abs(np.linalg.eigvals(np.eye(len(H)) - lr * P @ H)).max()
    if rate < 1e-12:
        return 1
    if rate >= 1:
        return max_steps
    return min(max_steps, math.ceil(math.log(tol) / math.log(rate)))

def jacobi(H):
    return np.diag(1 / np.diag(H))

results = {
    ('newton', 'aligned'): steps_to_converge(aligned, np.linalg.inv(aligned)),
    ('newton', 'rotated'): steps_to_converge(rotated, np.linalg.inv(rotated)),
    ('jacobi', 'aligned'): steps_to_converge(aligned, jacobi(aligned)),
    ('jacobi', 'rotated'): steps_to_converge(rotated, jacobi(rotated)),
}
''',
        'mistake: counts the loss instead of the distance': '''
def steps_to_converge(H, P, lr=1.0, tol=1e-6, max_steps=5000):
    w = np.ones(len(H))
    start = w @ H @ w
    for t in range(1, max_steps + 1):
        w = w - lr * P @ (H @ w)
        if w @ H @ w <= tol * start:
            return t
    return max_steps

def jacobi(H):
    return np.diag(1 / np.diag(H))

results = {
    ('newton', 'aligned'): steps_to_converge(aligned, np.linalg.inv(aligned)),
    ('newton', 'rotated'): steps_to_converge(rotated, np.linalg.inv(rotated)),
    ('jacobi', 'aligned'): steps_to_converge(aligned, jacobi(aligned)),
    ('jacobi', 'rotated'): steps_to_converge(rotated, jacobi(rotated)),
}
''',
        'mistake: Jacobi from the eigenvalues (the rotation ignored)': '''
def steps_to_converge(H, P, lr=1.0, tol=1e-6, max_steps=5000):
    w = np.ones(len(H))
    start = np.linalg.norm(w)
    for t in range(1, max_steps + 1):
        w = w - lr * P @ (H @ w)
        if np.linalg.norm(w) <= tol * start:
            return t
    return max_steps

def jacobi(H):
    return np.diag(1 / np.linalg.eigvalsh(H))

results = {
    ('newton', 'aligned'): steps_to_converge(aligned, np.linalg.inv(aligned)),
    ('newton', 'rotated'): steps_to_converge(rotated, np.linalg.inv(rotated)),
    ('jacobi', 'aligned'): steps_to_converge(aligned, jacobi(aligned)),
    ('jacobi', 'rotated'): steps_to_converge(rotated, jacobi(rotated)),
}
''',
    },
}
