"""Wrong submissions to notebook 13's exercises (see tests/test_exercise_mutants.py).

Exercises 1 and 2 are predictions (every other letter is tried automatically)."""

MUTANTS = {
    3: {
        'hard-coded': """
def largest_trainable_lr(batch_norm, lrs, epochs=2):
    return 1.0 if batch_norm else 0.1


eta_max = {False: 0.1, True: 1.0}
""",
        # The descent lemma's bound from section 4's smoothness, instead of training.
        'closed-form': """
def largest_trainable_lr(batch_norm, lrs, epochs=2):
    safe = [lr for lr in lrs if lr <= 2 / beta_median[batch_norm]]
    return max(safe) if safe else None


eta_max = {bn: largest_trainable_lr(bn, GRID) for bn in (False, True)}
""",
        'mistake: the best rate, not the largest that trains': """
def largest_trainable_lr(batch_norm, lrs, epochs=2):
    finals = {lr: train(lenet(batch_norm), 'sgd', {'learning_rate': lr, 'momentum': 0.9}, epochs)[0][-1]
              for lr in lrs}
    best = max(finals, key=finals.get)
    return best if finals[best] > 0.5 else None


eta_max = {bn: largest_trainable_lr(bn, GRID) for bn in (False, True)}
""",
        'mistake: a finite loss counted as training': """
def largest_trainable_lr(batch_norm, lrs, epochs=2):
    ok = []
    for lr in lrs:
        model = lenet(batch_norm)
        train(model, 'sgd', {'learning_rate': lr, 'momentum': 0.9}, epochs)
        if np.isfinite(model(nd.array(X_test)).asnumpy()).all():
            ok.append(lr)
    return max(ok) if ok else None


eta_max = {bn: largest_trainable_lr(bn, GRID) for bn in (False, True)}
""",
    },
}
