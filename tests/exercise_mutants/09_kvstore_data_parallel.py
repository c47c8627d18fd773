"""Wrong submissions to notebook 09's exercises (see tests/test_exercise_mutants.py)."""

_BY_HAND = '''
def compressed_descent(curvatures, w_star, lr, t, steps, feedback):
    curvatures = np.asarray(curvatures, dtype=np.float32)
    w_star = np.asarray(w_star, dtype=np.float32)
    w = np.zeros_like(w_star)
    store = mx.kv.create('device')
    store.set_gradient_compression({'type': '2bit', 'threshold': t})
    store.init(0, nd.zeros(w.shape))
    arrived = nd.zeros(w.shape)
    for _ in range(steps):
        g = curvatures * (w - w_star)
        if feedback:
            store.push(0, [nd.array(g)])
            store.pull(0, out=arrived)
            q = arrived.asnumpy()
        else:
            q = %s
        w = w - lr * q
    return w
'''
_GAP = '''
gap = {fb: float(np.linalg.norm(compressed_descent(curvatures_ex2, w_star_ex2, 0.2, 0.5, 300, fb) - w_star_ex2))
       for fb in (True, False)}
'''

MUTANTS = {
    2: {
        'hard-coded': '''
def compressed_descent(curvatures, w_star, lr, t, steps, feedback):
    return np.asarray(w_star, dtype=np.float32) + (0.0 if feedback else 0.3)

gap = {True: 0.13, False: 1.0}
''',
        # What a student might expect from the bound alone: feedback reaches w*, no feedback
        # stops exactly t/λ short of it in every coordinate it could not reach.
        'closed-form': '''
def compressed_descent(curvatures, w_star, lr, t, steps, feedback):
    curvatures = np.asarray(curvatures, dtype=np.float32)
    w_star = np.asarray(w_star, dtype=np.float32)
    if feedback:
        return w_star.copy()
    return (w_star - np.sign(w_star) * np.minimum(np.abs(w_star), t / curvatures)).astype(np.float32)
''' + _GAP,
        'mistake: rounds to the nearest of -t, 0, +t': _BY_HAND % (
            "np.where(g >= t / 2, t, np.where(g <= -t / 2, -t, 0)).astype(np.float32)") + _GAP,
        'mistake: no feedback sends the gradient uncompressed': _BY_HAND % "g" + _GAP,
    },
    3: {
        'hard-coded': '''
def two_bit(residual, grad, t):
    return np.full_like(grad, t), residual
''',
        'mistake: quantises the gradient, not the residual': '''
def two_bit(residual, grad, t):
    q = np.where(grad >= t, t, np.where(grad <= -t, -t, 0)).astype(np.float32)
    return q, residual + grad - q
''',
        'mistake: rounds to the nearest of -t, 0, +t': '''
def two_bit(residual, grad, t):
    residual = residual + grad
    q = np.where(residual >= t / 2, t, np.where(residual <= -t / 2, -t, 0)).astype(np.float32)
    return q, residual - q
''',
        'mistake: changes the residual passed in': '''
def two_bit(residual, grad, t):
    residual += grad
    q = np.where(residual >= t, t, np.where(residual <= -t, -t, 0)).astype(np.float32)
    residual -= q
    return q, residual
''',
    },
}
NO_CLOSED_FORM = {3: 'the answer is the quantiser itself: no formula gives its output without running it'}
