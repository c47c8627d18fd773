"""Wrong submissions to notebook 10's exercises (tests/test_exercise_mutants.py)."""

MUTANTS = {
    2: {
        # A neighbour's answer: the same lab drawn with another LAB_SEED (2027).
        'hard-coded': "diagnosis = {'A': 'd', 'B': 'g', 'C': 'e', 'D': 'c', 'E': 'a', 'F': 'f'}",
        'mistake: the huge rate read as dead ReLUs (both end with zero hidden gradients)':
            "diagnosis = {'A': 'g', 'B': 'a', 'C': 'd', 'D': 'f', 'E': 'c', 'F': 'e'}",
        'mistake: the frozen layer read as dead ReLUs, the dead ReLUs as a too small rate':
            "diagnosis = {'A': 'g', 'B': 'b', 'C': 'a', 'D': 'f', 'E': 'd', 'F': 'e'}",
        'mistake: accumulating gradients read as a too large rate, the stale branch as healthy':
            "diagnosis = {'A': 'g', 'B': 'd', 'C': 'a', 'D': 'g', 'E': 'c', 'F': 'a'}",
    },
    3: {
        'hard-coded': "fixes = {label: dict(HEALTHY) for label in LAB_LABELS}",
        'mistake: a smaller rate repairs every broken run':
            "fixes = {label: ({} if fault == 'g' else {'lr': 0.01}) for label, fault in lab_fault.items()}",
        'mistake: dead ReLUs revived by a larger rate':
            "fixes = {'A': {}, 'B': {'lr': 0.5}, 'C': {'lr': 0.1}, 'D': {'branch': 'none'},\n"
            "         'E': {'hidden_lr_mult': 1.0}, 'F': {'zero_grad': True}}",
        'mistake: accumulating gradients tamed by a smaller rate':
            "fixes = {'A': {}, 'B': {'hidden_bias': 0.0}, 'C': {'lr': 0.1}, 'D': {'branch': 'none'},\n"
            "         'E': {'hidden_lr_mult': 1.0}, 'F': {'lr': 0.001}}",
        'mistake: the frozen layer left at a small lr_mult':
            "fixes = {'A': {}, 'B': {'hidden_bias': 0.0}, 'C': {'lr': 0.1}, 'D': {'branch': 'none'},\n"
            "         'E': {'hidden_lr_mult': 0.01}, 'F': {'zero_grad': True}}",
    },
    4: {
        'hard-coded': ("def adam_step(weight, grad, mean, var, t, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):\n"
                       "    return weight - 1e-3 * np.sign(grad)"),
        'closed-form': ("def adam_step(weight, grad, mean, var, t, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):\n"
                        "    return weight - lr * np.sign(grad)      # the first step's rule, at every step"),
        'mistake: no bias correction': (
            "def adam_step(weight, grad, mean, var, t, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):\n"
            "    mean = beta1 * mean + (1 - beta1) * grad\n"
            "    var = beta2 * var + (1 - beta2) * grad * grad\n"
            "    return weight - lr * mean / (np.sqrt(var) + epsilon)"),
        'mistake: the step taken with the old state': (
            "def adam_step(weight, grad, mean, var, t, lr, beta1=0.9, beta2=0.999, epsilon=1e-8):\n"
            "    lr_t = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)\n"
            "    return weight - lr_t * mean / (np.sqrt(var) + epsilon)"),
    },
}
NO_CLOSED_FORM = {
    2: 'a diagnosis is read from the runs; no formula gives it',
    3: 'a repair is a setting chosen from the diagnosis; the test re-runs it',
}
