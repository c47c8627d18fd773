"""Wrong submissions to notebook 17's exercises (tests/test_exercise_mutants.py)."""

MUTANTS = {
    2: {
        # The lesson's numbers for three layers typed in, and the lesson's own Recorder
        # (factor 3) handed in: no ULMFiT run.
        'hard-coded': """
def layer_mults(n_layers, factor):
    return [1 / 2.6 ** 2, 1 / 2.6, 1.0]


net_ulmfit = net
rec_ulmfit = rec
first_layer_peak = 0.1 / 2.6 ** 2
""",
        # The right rule, and the peak computed as PEAK x lr_mult instead of training and
        # reading it from the Recorder (the Recorder handed in is the lesson's).
        'closed-form': """
def layer_mults(n_layers, factor):
    return [factor ** -(n_layers - 1 - k) for k in range(n_layers)]


net_ulmfit = fine_tune_net(seed=0)
rec_ulmfit = rec
first_layer_peak = PEAK * layer_mults(3, 2.6)[0]
""",
        # Backwards: the first layer gets the full rate, the head the smallest.
        'mistake: early layers fastest': """
def layer_mults(n_layers, factor):
    return [factor ** -k for k in range(n_layers)]


net_ulmfit = fine_tune_net(seed=0)
data_ulmfit = loader(tx, ty, 20, seed=0)
freeze(net_ulmfit[:2])
fit_one_cycle(net_ulmfit, data_ulmfit, FROZEN_EPOCHS, PEAK)
freeze(net_ulmfit[:2], frozen=False)
for layer, mult in zip(net_ulmfit, layer_mults(3, 2.6)):
    layer.collect_params().setattr('lr_mult', mult)
rec_ulmfit = fit_one_cycle(net_ulmfit, data_ulmfit, EPOCHS - FROZEN_EPOCHS, PEAK, recorder=True)
first_layer_peak = float(rec_ulmfit.series('lr', 'lr', param=net_ulmfit[0].weight.name)[1].max())
""",
        # Off by one layer: the head is divided too.
        'mistake: the head slowed too': """
def layer_mults(n_layers, factor):
    return [factor ** -(n_layers - k) for k in range(n_layers)]


net_ulmfit = fine_tune_net(seed=0)
data_ulmfit = loader(tx, ty, 20, seed=0)
freeze(net_ulmfit[:2])
fit_one_cycle(net_ulmfit, data_ulmfit, FROZEN_EPOCHS, PEAK)
freeze(net_ulmfit[:2], frozen=False)
for layer, mult in zip(net_ulmfit, layer_mults(3, 2.6)):
    layer.collect_params().setattr('lr_mult', mult)
rec_ulmfit = fit_one_cycle(net_ulmfit, data_ulmfit, EPOCHS - FROZEN_EPOCHS, PEAK, recorder=True)
first_layer_peak = float(rec_ulmfit.series('lr', 'lr', param=net_ulmfit[0].weight.name)[1].max())
""",
        # The multipliers set while the body is still frozen, and never unfrozen: only
        # the head trains (the Recorder then has no rows for the body).
        'mistake: never unfrozen': """
def layer_mults(n_layers, factor):
    return [factor ** -(n_layers - 1 - k) for k in range(n_layers)]


net_ulmfit = fine_tune_net(seed=0)
data_ulmfit = loader(tx, ty, 20, seed=0)
freeze(net_ulmfit[:2])
fit_one_cycle(net_ulmfit, data_ulmfit, FROZEN_EPOCHS, PEAK)
for layer, mult in zip(net_ulmfit, layer_mults(3, 2.6)):
    layer.collect_params().setattr('lr_mult', mult)
rec_ulmfit = fit_one_cycle(net_ulmfit, data_ulmfit, EPOCHS - FROZEN_EPOCHS, PEAK, recorder=True)
first_layer_peak = PEAK * layer_mults(3, 2.6)[0]
""",
    },
    3: {
        # No unfreezing schedule: everything trains from the first epoch, and typed-in
        # accuracies.
        'hard-coded': """
def gradual_unfreeze(net, data, epochs, peak):
    fit_one_cycle(net, data, epochs, peak)


gradual_val = np.array([0.73, 0.73, 0.73, 0.73, 0.73])
""",
        # Unfrozen from the bottom: the first layer moves in epoch 2, the second does not.
        'mistake: unfrozen from the bottom': """
def gradual_unfreeze(net, data, epochs, peak):
    freeze(net[:2])
    fit_one_cycle(net, data, 1, peak)
    if epochs >= 2:
        freeze(net[:1], frozen=False)
        fit_one_cycle(net, data, 1, peak)
    if epochs >= 3:
        freeze(net[1:2], frozen=False)
        fit_one_cycle(net, data, epochs - 2, peak)


gradual_val = []
for seed in range(5):
    net_g = fine_tune_net(seed)
    gradual_unfreeze(net_g, loader(tx, ty, 20, seed), EPOCHS, PEAK)
    gradual_val.append(accuracy(net_g, vx, vy))
gradual_val = np.array(gradual_val)
""",
        # The first layer is never unfrozen.
        'mistake: the first layer stays frozen': """
def gradual_unfreeze(net, data, epochs, peak):
    freeze(net[:2])
    fit_one_cycle(net, data, 1, peak)
    if epochs >= 2:
        freeze(net[1:2], frozen=False)
        fit_one_cycle(net, data, epochs - 1, peak)


gradual_val = []
for seed in range(5):
    net_g = fine_tune_net(seed)
    gradual_unfreeze(net_g, loader(tx, ty, 20, seed), EPOCHS, PEAK)
    gradual_val.append(accuracy(net_g, vx, vy))
gradual_val = np.array(gradual_val)
""",
        # Right schedule, but the accuracies are of the networks before training.
        'mistake: scored the untrained networks': """
def gradual_unfreeze(net, data, epochs, peak):
    freeze(net[:2])
    fit_one_cycle(net, data, 1, peak)
    if epochs >= 2:
        freeze(net[1:2], frozen=False)
        fit_one_cycle(net, data, 1, peak)
    if epochs >= 3:
        freeze(net[:1], frozen=False)
        fit_one_cycle(net, data, epochs - 2, peak)


gradual_val = np.array([accuracy(fine_tune_net(seed), vx, vy) for seed in range(5)])
""",
    },
}

NO_CLOSED_FORM = {
    3: 'the answer is a training procedure and the accuracies it reaches; no formula gives them',
}
