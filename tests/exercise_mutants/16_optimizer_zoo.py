"""Wrong submissions to notebook 16's exercises (see tests/test_exercise_mutants.py).

Exercise 1 is a prediction (every other letter is tried automatically)."""

MUTANTS = {
    2: {
        # The printed values typed in; any other argument gets the target 1/lambda.
        'hard-coded': """
def sgld_steep_variance(condition, lr, seed=SEED):
    return {0.05: 0.214, 0.2: 0.266, 0.4: 0.400}.get(lr, 1 / condition)


measured = {lr: sgld_steep_variance(5, lr) for lr in RATES}
""",
        # The discrete chain's formula instead of the samples.
        'closed-form': """
def sgld_steep_variance(condition, lr, seed=SEED):
    return 1 / (condition * (1 - lr * condition / 4))


measured = {lr: sgld_steep_variance(5, lr) for lr in RATES}
""",
        'mistake: the target 1/lambda': """
def sgld_steep_variance(condition, lr, seed=SEED):
    return 1 / condition


measured = {lr: sgld_steep_variance(5, lr) for lr in RATES}
""",
        'mistake: the variance of a coordinate, not of the steep direction': """
def sgld_steep_variance(condition, lr, seed=SEED):
    samples = sgld_chains(viz.Quadratic(condition=condition, angle=30).hessian, lr, seed=seed)
    return samples.var(axis=0).min()


measured = {lr: sgld_steep_variance(5, lr) for lr in RATES}
""",
        'mistake: the flat direction': """
def sgld_steep_variance(condition, lr, seed=SEED):
    samples = sgld_chains(viz.Quadratic(condition=condition, angle=30).hessian, lr, seed=seed)
    return np.linalg.eigvalsh(np.cov(samples.T))[1]


measured = {lr: sgld_steep_variance(5, lr) for lr in RATES}
""",
    },
    3: {
        'hard-coded': "tempered = samples.copy()     # section 5's samples, T = 1",
        # Exact draws from the tempered target exp(-f/T): covariance T * H^-1.
        'closed-form': """
tempered = np.random.default_rng(0).multivariate_normal(
    [0.0, 0.0], 2.0 * np.linalg.inv(LANDSCAPES['quadratic'].hessian), size=len(samples))
""",
        'mistake: a larger rate instead of a smaller gradient': """
tempered = sgld_chains(LANDSCAPES['quadratic'].hessian, 0.05 * 2.0)
""",
        'mistake: the gradient multiplied by T': """
tempered = sgld_chains(LANDSCAPES['quadratic'].hessian, 0.05, rescale_grad=2.0)
""",
    },
}
