"""Wrong submissions to notebook 07's exercises (tests/test_exercise_mutants.py).

Exercise 1 is a prediction: every other letter is tried without an entry here.
"""

MUTANTS = {
    2: {
        'hard-coded': """
half_grid = [0.05, 0.15, 0.5]
half_scores = np.array([0.28, 0.27, 0.24])
""",
        # the rule taken as a law: plain SGD's scores copied instead of running momentum 0.5
        'closed-form': """
half_grid = [lr * (1 - 0.5) for lr in lr_grids['SGD'][2][:3]]
half_scores = np.array(lr_scores['SGD'][:3])
""",
        'mistake: the rates not rescaled for momentum': """
half_grid = list(lr_grids['SGD'][2][:3])
half_scores = np.array([score('sgd', {'learning_rate': lr, 'momentum': 0.5}) for lr in half_grid])
""",
        'mistake: rescaled the wrong way': """
half_grid = [lr / (1 - 0.5) for lr in lr_grids['SGD'][2][:3]]
half_scores = np.array([score('sgd', {'learning_rate': lr, 'momentum': 0.5}) for lr in half_grid])
""",
    },
    3: {
        'hard-coded': """
def early_stop(scores, patience):
    return (1, 3)


patience_test_acc = np.array([0.877, 0.861, 0.877])
epochs_trained = np.array([16, 11, 10])
""",
        'mistake: the best epoch in hindsight': """
def early_stop(scores, patience):
    return int(np.argmax(scores)), len(scores) - 1


decisions = [early_stop(curve, 5) for curve in noisy_runs['val_acc']]
patience_test_acc = np.array([noisy_runs['test_acc'][k, best] for k, (best, _) in enumerate(decisions)])
epochs_trained = np.array([stopped + 1 for _, stopped in decisions])
""",
        'mistake: a tie counted as an improvement': """
def early_stop(scores, patience):
    best = 0
    for epoch in range(1, len(scores)):
        if scores[epoch] >= scores[best]:
            best = epoch
        elif epoch - best >= patience:
            return best, epoch
    return best, len(scores) - 1


decisions = [early_stop(curve, 5) for curve in noisy_runs['val_acc']]
patience_test_acc = np.array([noisy_runs['test_acc'][k, best] for k, (best, _) in enumerate(decisions)])
epochs_trained = np.array([stopped + 1 for _, stopped in decisions])
""",
        'mistake: one epoch of patience too many': """
def early_stop(scores, patience):
    best = 0
    for epoch in range(1, len(scores)):
        if scores[epoch] > scores[best]:
            best = epoch
        elif epoch - best > patience:
            return best, epoch
    return best, len(scores) - 1


decisions = [early_stop(curve, 5) for curve in noisy_runs['val_acc']]
patience_test_acc = np.array([noisy_runs['test_acc'][k, best] for k, (best, _) in enumerate(decisions)])
epochs_trained = np.array([stopped + 1 for _, stopped in decisions])
""",
    },
}

NO_CLOSED_FORM = {
    3: 'the stopping epoch comes from walking the curve with a rule of the student\'s writing; no formula gives it',
}
