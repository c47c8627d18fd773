"""Wrong submissions to notebook 18's exercises (see tests/test_exercise_mutants.py).

Exercise 1 is a prediction (every other letter is tried automatically)."""

MUTANTS = {
    2: {
        'hard-coded': """
def largest_stable_lr(lrs, max_norm=None, clip_gradient=None):
    return 1.0 if max_norm is None and clip_gradient is None else 8.0


eta_max = {'no clipping': 1.0, 'clip_global_norm': 8.0, 'clip_gradient': 4.0}
""",
        # A clipped step is at most lr * theta long: keep it below the length of a good
        # unclipped step (about 1), instead of training.
        'closed-form': """
def largest_stable_lr(lrs, max_norm=None, clip_gradient=None):
    bound = 1.0 / max_norm if max_norm else 0.04 / clip_gradient if clip_gradient else 1.0
    safe = [lr for lr in lrs if lr <= bound]
    return max(safe) if safe else None


eta_max = {'no clipping': largest_stable_lr(LRS),
           'clip_global_norm': largest_stable_lr(LRS, max_norm=0.25),
           'clip_gradient': largest_stable_lr(LRS, clip_gradient=0.01)}
""",
        'mistake: a finite loss counted as training': """
def largest_stable_lr(lrs, max_norm=None, clip_gradient=None):
    finite = [lr for lr in lrs
              if np.isfinite(train(lr, max_norm=max_norm, clip_gradient=clip_gradient)[0]).all()]
    return max(finite) if finite else None


eta_max = {'no clipping': largest_stable_lr(LRS),
           'clip_global_norm': largest_stable_lr(LRS, max_norm=0.25),
           'clip_gradient': largest_stable_lr(LRS, clip_gradient=0.01)}
""",
        'mistake: the best rate, not the largest that trains': """
def largest_stable_lr(lrs, max_norm=None, clip_gradient=None):
    finals = {lr: final_loss(train(lr, max_norm=max_norm, clip_gradient=clip_gradient)[0])
              for lr in lrs}
    best = min(finals, key=finals.get)
    return best if finals[best] < 2.5 else None


eta_max = {'no clipping': largest_stable_lr(LRS),
           'clip_global_norm': largest_stable_lr(LRS, max_norm=0.25),
           'clip_gradient': largest_stable_lr(LRS, clip_gradient=0.01)}
""",
    },
    3: {
        'hard-coded': """
def fraction_clipped(lr, max_norm, steps=STEPS):
    return 1.0 if max_norm < 0.5 else 0.86


share = {1.0: 0.86, 0.25: 1.0}
""",
        'mistake: counted on the unclipped run': """
def fraction_clipped(lr, max_norm, steps=STEPS):
    _, norms = train(lr, steps=steps)
    return float(np.mean(norms > max_norm))


share = {theta: fraction_clipped(LR, theta) for theta in (1.0, 0.25)}
""",
        'mistake: counted after the clip': """
def fraction_clipped(lr, max_norm, steps=STEPS):
    _, norms = train(lr, max_norm=max_norm, steps=steps)
    return float(np.mean(np.minimum(norms, max_norm) > max_norm))


share = {theta: fraction_clipped(LR, theta) for theta in (1.0, 0.25)}
""",
    },
}
NO_CLOSED_FORM = {3: 'how often the clip acts is a property of one training run, which no '
                     'formula gives'}
