"""Hostile files against the optimizer-state loaders.

Trainer.load_states, Updater.set_states and KVStore.load_optimizer_states get pickle
payloads, polyglots, zip bombs, path names, object/huge/foreign dtypes and shapes, wrong
keys, checksum-valid edits of every field of states.json (every hyper-parameter of the
optimizer and its scheduler, step counts, state arities, dtypes and shapes) to hostile
values, truncations and byte flips (tests/hostile.py makes them). Each must raise
MXNetError — or load exactly what the file says (a valid file) — within CASE_SECONDS,
within 2x the legitimate data's memory (tracemalloc), and leave the Trainer, Updater or
store as it was whenever it raises (their saved state compared before and after).
Then the loaded state trains: every field of the optimizer, its scheduler and the
Trainer's record is set to each of TRAINING_VALUES (1e300, inf, NaN, 10**12, the largest
a file may hold, strings, other types), and each load either raises MXNetError and
changes nothing, or the next TRAIN_STEPS steps finish within CASE_SECONDS with finite
weights. Seeded; the array and parameter loaders are in tests/test_hostile_files.py.
"""
import collections
import io
import json
import weakref

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.optimizer.rebuild import MAX_COEFFICIENT, MAX_UPDATES

import hostile as H

SEED = 15
DOCUMENT = 'states.json'


# --------------------------------------------------------------------------- the loaders
def _net(units):
    with mx.name.NameManager():
        net = gluon.nn.Dense(units, in_units=units)
    net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    return net


def _fit(trainer, net, steps, seed):
    """``steps`` steps of ``trainer`` on ``net`` (a squared output as the loss)."""
    x = nd.array(np.random.RandomState(seed).normal(size=(2, net.weight.shape[1])))
    for _ in range(steps):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(2)


class TrainerLoader:
    """Adam with a FactorScheduler (step 1, a warm-up): states of arity 2, a scheduler's
    fields."""
    name = 'Trainer.load_states'
    checks_states_at_first_update = False

    def __init__(self, units, folder):
        self.units, self.folder = units, folder
        self.nets = weakref.WeakKeyDictionary()   # each Trainer's model

    def _trained(self, learning_rate, steps):
        net = _net(self.units)
        sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=learning_rate,
                                                warmup_steps=1, warmup_begin_lr=0.01)
        trainer = gluon.Trainer(net.collect_params(), 'adam',
                                {'learning_rate': learning_rate, 'lr_scheduler': sched,
                                 'wd': 0.01, 'clip_gradient': 5.0})
        self.nets[trainer] = net
        _fit(trainer, net, steps, seed=steps)
        return trainer

    def legit(self):
        return self._save(self._trained(0.1, 2))

    def target(self):
        """A Trainer of the same model in another state (a rejected load must keep it)."""
        return self._trained(0.5, 1)

    def load(self, target, raw):
        path = self.folder / 'hostile.states'
        path.write_bytes(raw)
        return lambda: target.load_states(str(path))

    def train(self, target, steps):
        """The weights after ``steps`` more steps."""
        _fit(target, self.nets[target], steps, seed=0)
        return [param.data() for param in target.params]

    @staticmethod
    def held(target):
        """The optimizer and the states the Trainer holds."""
        return target.optimizer, [target.optimizer_states(p) for p in target.params]

    def snapshot(self, target):
        return self._save(target)

    def _save(self, trainer):
        path = self.folder / 'snapshot.states'
        trainer.save_states(str(path))
        return path.read_bytes()


def _rate(learning_rate, schedule):
    """An optimizer's keywords for ``learning_rate`` and, if given, ``schedule(it)``."""
    if schedule is None:
        return {'learning_rate': learning_rate}
    return {'learning_rate': learning_rate, 'lr_scheduler': schedule(learning_rate)}


def _weights(units, rs):
    return [nd.array(rs.normal(size=(units, units))), nd.array(rs.normal(size=units))]


class UpdaterLoader:
    """An optimizer (Adam unless named) on two weights; ``schedule(base_lr)`` makes its
    scheduler, ``mults`` its lr_mult and wd_mult."""
    name = 'Updater.set_states'
    #: An Updater has no weights when it loads: each state is checked against its
    #: weight at the weight's first update (which raises MXNetError before any change).
    checks_states_at_first_update = True

    def __init__(self, units, folder, optimizer='adam', schedule=None, mults=None, **kwargs):
        self.units, self.optimizer, self.kwargs = units, optimizer, kwargs
        self.schedule, self.mults = schedule, mults

    def _trained(self, learning_rate, steps):
        opt = mx.optimizer.create(self.optimizer, wd=0.01, **_rate(learning_rate, self.schedule),
                                  **self.kwargs)
        if self.mults:
            opt.set_lr_mult(self.mults)
            opt.set_wd_mult(self.mults)
        updater = mx.optimizer.get_updater(opt)
        rs = np.random.RandomState(steps)
        self._update(updater, _weights(self.units, rs), rs, steps)
        return updater

    @staticmethod
    def _update(updater, weights, rs, steps):
        for _ in range(steps):
            updater([0, 1], [nd.array(rs.normal(size=w.shape)) for w in weights], weights)

    def legit(self):
        return self._trained(0.1, 2).get_states(dump_optimizer=True)

    def target(self):
        return self._trained(0.5, 1)

    def load(self, target, raw):
        return lambda: target.set_states(raw)

    def train(self, target, steps):
        """Two weights (of the saved states' shapes) after ``steps`` updates."""
        rs = np.random.RandomState(0)
        weights = _weights(self.units, rs)
        self._update(target, weights, rs, steps)
        return weights

    @staticmethod
    def held(target):
        return target.optimizer, dict(target.states)

    def snapshot(self, target):
        return target.get_states(dump_optimizer=True)


class StoreLoader:
    """A local store updating two keys with Adam (``schedule(base_lr)``: its scheduler)."""
    name = 'KVStore.load_optimizer_states'
    checks_states_at_first_update = False

    def __init__(self, units, folder, schedule=None):
        self.units, self.folder, self.schedule = units, folder, schedule
        self.shapes = [(units, units), (units,)]

    def _store(self, learning_rate, steps):
        kv = mx.kv.create('local')
        kv.set_optimizer(mx.optimizer.Adam(wd=0.01, **_rate(learning_rate, self.schedule)))
        rs = np.random.RandomState(steps)
        for key, shape in enumerate(self.shapes):
            kv.init(key, nd.array(rs.normal(size=shape)))
        self._push(kv, rs, steps)
        return kv

    def _push(self, kv, rs, steps):
        for _ in range(steps):
            for key, shape in enumerate(self.shapes):
                kv.push(key, nd.array(rs.normal(size=shape)))

    def legit(self):
        return self.snapshot(self._store(0.1, 2))

    def target(self):
        return self._store(0.5, 1)

    def load(self, target, raw):
        path = self.folder / 'hostile.states'
        path.write_bytes(raw)
        return lambda: target.load_optimizer_states(str(path))

    def train(self, target, steps):
        """The stored weights after ``steps`` pushes of each key."""
        self._push(target, np.random.RandomState(0), steps)
        weights = [nd.zeros(shape) for shape in self.shapes]
        for key, out in enumerate(weights):
            target.pull(key, out=out)
        return weights

    @staticmethod
    def held(target):
        return target.optimizer, dict(target.optimizer_states)

    def snapshot(self, target):
        path = self.folder / 'snapshot.states'
        target.save_optimizer_states(str(path), dump_optimizer=True)
        return path.read_bytes()


LOADERS = {'trainer': TrainerLoader, 'updater': UpdaterLoader, 'store': StoreLoader}


# --------------------------------------------------------------------------- judging
def _contents(raw):
    """What a states file says: its parsed document and its arrays."""
    items = dict(H.members(raw))
    document = json.loads(items.pop(DOCUMENT))
    return document, {int(name[:-4]): np.load(io.BytesIO(data)) for name, data
                      in items.items() if name[:-4].isdigit() and name.endswith('.npy')}


def _same_contents(loaded, file):
    """Whether the state re-saved after a load (``loaded``) is what the ``file`` says;
    a file without the Trainer's record (one a store wrote) leaves the record alone, one
    without an optimizer (``get_states()``) the optimizer."""
    loaded = (dict(loaded[0]), loaded[1])
    if 'extra' not in file[0]:
        loaded[0].pop('extra', None)
    if file[0].get('optimizer', 0) is None:
        loaded[0]['optimizer'] = None
    return _canonical(*loaded) == _canonical(*file)


def _canonical(document, arrays):
    """A document as compared: each array reference replaced by the array's dtype, shape
    and bytes (unreferenced members do not count), numbers as floats (0 and 0.0 are one
    value), the Trainer's record of its parameters' names left out (a name is not checked
    against the model, as in MXNet)."""
    def canon(value):
        if isinstance(value, dict):
            return {k: (_array_of(arrays, v) if k in ('array', 'indices') else canon(v))
                    for k, v in value.items() if k != 'name'}
        if isinstance(value, list):
            return [canon(v) for v in value]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return value
    return canon(document)


def _array_of(arrays, k):
    array = arrays[k]
    return array.dtype.str, array.shape, array.tobytes()


def check(loader, cases, nbytes):
    """Run every ``(case id, bytes)`` through ``loader`` against one target; the
    ``[(case id, problems)]``."""
    target = loader.target()
    results = []
    for case, raw in cases:
        before = _contents(loader.snapshot(target))
        outcome = H.run_loader(loader.load(target, raw))
        after = _contents(loader.snapshot(target))
        if outcome.error is None:   # a valid file: it must hold what was loaded
            problems = H.judge(outcome, (H.MXNetError,), nbytes,
                               lambda _: _same_contents(after, _contents(raw)))
            # (Updater.set_states has no weights: a state that does not fit one is
            # refused at its first update, tests/optimizer/test_state_rebuild.py)
            target = loader.target()   # start the next case from the usual state
        else:
            problems = H.judge(outcome, (H.MXNetError,), nbytes, None)
            if not _same_contents(before, after):
                problems.append('changed the state before raising')
        results.append((case, problems))
    return results


@pytest.fixture(scope='module', params=sorted(LOADERS))
def loader(request):
    return LOADERS[request.param]


def _legit(klass, folder, units):
    loader = klass(units, folder)
    raw = loader.legit()
    _, arrays = _contents(raw)
    return loader, raw, sum(a.nbytes for a in arrays.values())


@pytest.fixture()
def big(loader, tmp_path):
    """2 MB of states (Adam's mean and var of a 512x512 weight): the cases about memory."""
    return _legit(loader, tmp_path, 512)


@pytest.fixture()
def small(loader, tmp_path):
    """A 4x4 weight's states: for the many edits, flips and cuts."""
    return _legit(loader, tmp_path, 4)


def _first_array(raw):
    return [name for name, _ in H.members(raw) if name.endswith('.npy')][:2]


# --------------------------------------------------------------------------- the cases
def test_the_legitimate_file_loads_within_its_own_size(big):
    loader, raw, nbytes = big
    results = check(loader, [('legit', raw)], nbytes)
    H.assert_all_fine(results)
    target = loader.target()
    outcome = H.run_loader(loader.load(target, raw))
    # 2x with no slack: the states' check builds its templates without weight-sized arrays
    assert outcome.error is None and outcome.peak <= 2 * nbytes, outcome
    print('%s peak / data: %.2f' % (loader.name, outcome.peak / nbytes))


def test_pickles_polyglots_and_zip_bombs(big, tmp_path):
    loader, raw, nbytes = big
    first, second = _first_array(raw)
    marker = tmp_path / 'pwned'
    cases = H.pickle_cases(raw, DOCUMENT, first, marker) + \
        H.bomb_cases(raw, DOCUMENT, first, second)
    H.assert_all_fine(check(loader, cases, nbytes))
    assert not marker.exists()


def test_member_names_dtypes_and_npy_headers(small):
    loader, raw, nbytes = small
    first, _ = _first_array(raw)
    cases = H.member_cases(raw, first)
    cases += [('dtype %s' % (dtype,), H.replace(raw, first, H.npy(np.zeros(4, dtype), True)))
              for dtype in H.FOREIGN_DTYPES]
    cases += [(name, H.replace(raw, first, member))
              for name, member in H.hostile_npy_members(dict(H.members(raw))[first])]
    H.assert_all_fine(check(loader, cases, nbytes))


def test_wrong_keys_arities_shapes_and_optimizers(small):
    loader, raw, nbytes = small
    first, _ = _first_array(raw)
    document, arrays = _contents(raw)

    def states_entry(doc, i=0):
        return doc['states']['dict'][i][1]
    edits = {
        'index-7': lambda d: d['states']['dict'][0].__setitem__(0, 7),
        'index-as-text': lambda d: d['states']['dict'][0].__setitem__(0, '0'),
        'index-twice': lambda d: d['states']['dict'][1].__setitem__(0, 0),
        'arity-1': lambda d: states_entry(d).update(tuple=states_entry(d)['tuple'][:1],
                                                    fields=['mean']),
        'arity-3': lambda d: states_entry(d).update(
            tuple=states_entry(d)['tuple'] * 2, fields=['mean', 'var', 'x']),
        'another-state-type': lambda d: states_entry(d).update(type='SGDState'),
        'another-optimizer': lambda d: d['optimizer'].update(optimizer='sgd'),
        'unknown-optimizer': lambda d: d['optimizer'].update(optimizer='os.system'),
        'format': lambda d: d.update(format='gluonedu.parameters'),
        'version-2': lambda d: d.update(version=2),
        'renamed-key': lambda d: d.update(statez=d.pop('states')),
        'extra-key': lambda d: d.update(code='import os'),
    }

    def edited(edit):
        doc = json.loads(json.dumps(document))
        edit(doc)
        return H.replace(raw, DOCUMENT, json.dumps(doc).encode())
    cases = [(name, edited(edit)) for name, edit in edits.items()]
    array = arrays[int(first[:-4])]
    cases += [('shape (%s)' % (shape,), H.replace(raw, first, H.npy(np.zeros(shape, array.dtype))))
              for shape in [(3, 3), (array.size + 1,), (), (0,), array.shape + (1,)]]
    cases += [('dtype %s' % dtype, H.replace(raw, first, H.npy(array.astype(dtype))))
              for dtype in ('float16', 'float64', 'int32', 'bool')]
    H.assert_all_fine(check(loader, cases, nbytes))


def test_every_field_edited_to_hostile_values(small):
    loader, raw, nbytes = small
    document, _ = _contents(raw)
    cases = [(case, H.replace(raw, DOCUMENT, json.dumps(edited).encode()))
             for case, edited in H.field_edits(document, np.random.default_rng(SEED))]
    H.assert_all_fine(check(loader, cases, nbytes))
    assert len(cases) > 400


def test_truncations_and_byte_flips(small):
    loader, raw, nbytes = small
    cases = H.flips_and_cuts(raw, np.random.default_rng(SEED), stride=2)
    H.assert_all_fine(check(loader, cases, nbytes))


# --------------------------------------------------------------------------- the zoo
OPTIMIZER_KWARGS = {'sgd': {'momentum': 0.9}, 'nag': {'momentum': 0.9},
                    'lars': {'momentum': 0.9}, 'lbsgd': {'momentum': 0.9},
                    'dcasgd': {'momentum': 0.9}, 'signum': {'wd_lh': 0.01}}


@pytest.mark.parametrize('name', sorted(mx.optimizer.Optimizer.opt_registry))
def test_every_hyperparameter_of_every_optimizer_edited(name, tmp_path):
    """Each optimizer's own hyper-parameters and state layout, each field edited."""
    loader = UpdaterLoader(3, tmp_path, name, **OPTIMIZER_KWARGS.get(name, {}))
    raw = loader.legit()
    document, arrays = _contents(raw)
    cases = [(case, H.replace(raw, DOCUMENT, json.dumps(edited).encode()))
             for case, edited in H.field_edits(document, np.random.default_rng(SEED),
                                               per_field=4)]
    H.assert_all_fine(check(loader, cases, sum(a.nbytes for a in arrays.values())))


# --------------------------------------------------------------------------- then trained
#: What each field is set to before the loaded state trains: numbers that overflow a
#: step, infinities, NaN, counts far past any training, the largest a file may hold,
#: negatives, strings, other types.
TRAINING_VALUES = [1e300, float('inf'), float('nan'), 10 ** 12, 2 ** 64, MAX_UPDATES,
                   MAX_COEFFICIENT, -1, 0, 'abc', None, True, [], {}]
#: Steps trained after each accepted load.
TRAIN_STEPS = 5


def _factor(base_lr):
    return mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=base_lr,
                                           warmup_steps=1, warmup_begin_lr=0.01)


def _multifactor(base_lr):
    return mx.lr_scheduler.MultiFactorScheduler(step=[1, 2, 4, 8], factor=0.5,
                                                base_lr=base_lr)


def _poly(base_lr):
    return mx.lr_scheduler.PolyScheduler(max_update=6, base_lr=base_lr, pwr=2, final_lr=0.01)


def _one_cycle(base_lr):
    return mx.lr_scheduler.OneCycleScheduler(max_lr=base_lr, total_steps=6)


#: The setups trained after a load: each loader; MXNet's schedulers (Cosine runs Poly's
#: code) and the one-cycle one; lr_mult and wd_mult.
TRAINED = {
    'trainer-adam-factor': lambda folder: TrainerLoader(3, folder),
    'store-adam-factor': lambda folder: StoreLoader(3, folder, _factor),
    'updater-sgd-multifactor': lambda folder: UpdaterLoader(
        3, folder, 'sgd', _multifactor, {0: 2.0, 1: 0.5}, momentum=0.9),
    'updater-nag-poly': lambda folder: UpdaterLoader(3, folder, 'nag', _poly, momentum=0.9),
    'updater-sgd-onecycle': lambda folder: UpdaterLoader(3, folder, 'sgd', _one_cycle),
}


def _arrays(value):
    """The arrays in a state (nested tuples, lists, dicts of NDArrays), as NumPy arrays."""
    if isinstance(value, dict):
        return [a for key in sorted(value, key=str) for a in _arrays(value[key])]
    if isinstance(value, (list, tuple)):
        return [a for item in value for a in _arrays(item)]
    return [value.asnumpy()] if isinstance(value, nd.NDArray) else []


def _held(loader, target):
    """The optimizer object ``target`` holds and its state arrays (NumPy copies)."""
    optimizer, states = loader.held(target)
    return optimizer, _arrays(states)


def _kept(loader, target, held):
    """Whether ``target`` still holds what :func:`_held` found."""
    optimizer, arrays = _held(loader, target)
    return optimizer is held[0] and len(arrays) == len(held[1]) and \
        all(np.array_equal(a, b, equal_nan=True) for a, b in zip(arrays, held[1]))


def _train_after_load(loader, cases):
    """Load each ``(case id, bytes)``; train TRAIN_STEPS steps after every load that
    succeeds. ``([(case id, problems)], Counter of outcomes)``."""
    target = loader.target()
    held = _held(loader, target)
    results, tally = [], collections.Counter()
    for case, raw in cases:
        problems = []
        try:
            with H.alarm(H.CASE_SECONDS):
                loader.load(target, raw)()
        except H.MXNetError:
            tally['refused'] += 1
            if not _kept(loader, target, held):
                problems.append('changed the state before raising')
            results.append((case, problems))
            continue
        except H.Timeout:
            problems.append('the load hung')
        except Exception as err:  # noqa: BLE001 - the type is the finding
            problems.append('the load raised %s: %s' % (type(err).__name__, str(err)[:160]))
        if problems:
            results.append((case, problems))
            continue
        tally['loaded'] += 1
        try:
            with H.alarm(H.CASE_SECONDS):
                weights = loader.train(target, TRAIN_STEPS)
        except H.Timeout:
            tally['hung'] += 1
            problems.append('training hung')
        except H.MXNetError as err:
            if loader.checks_states_at_first_update:
                tally['refused at the first update'] += 1
            else:
                tally['raised'] += 1
                problems.append('training raised MXNetError: %s' % str(err)[:160])
        except Exception as err:  # noqa: BLE001 - the type is the finding
            tally['raised'] += 1
            problems.append('training raised %s: %s' % (type(err).__name__, str(err)[:160]))
        else:
            if not all(np.isfinite(w.asnumpy()).all() for w in weights):
                tally['non-finite'] += 1
                problems.append('non-finite weights after %d steps' % TRAIN_STEPS)
        results.append((case, problems))
        target = loader.target()
        held = _held(loader, target)
    return results, tally


def _edits(raw, document, paths):
    """``[(case id, bytes)]``: ``raw`` with the value at each of ``paths`` in its document
    set to each of TRAINING_VALUES (checksums valid)."""
    return [('%s=%r' % ('/'.join(map(str, path)), value),
             H.replace(raw, DOCUMENT, json.dumps(H.set_path(document, path, value)).encode()))
            for path in paths for value in TRAINING_VALUES]


@pytest.mark.parametrize('setup', sorted(TRAINED))
def test_every_field_edited_then_trained(setup, tmp_path):
    """Every field of the optimizer, its scheduler and the Trainer's record set to every
    value of TRAINING_VALUES: each load raises MXNetError and changes nothing, or the
    next TRAIN_STEPS steps finish within CASE_SECONDS with finite weights. (The fields
    inside the states, their arrays' entries, never reach a step: a load refuses them,
    or the bare Updater at its first update, as test_every_field_edited_to_hostile_values
    and test_wrong_keys_arities_shapes_and_optimizers show.)"""
    loader = TRAINED[setup](tmp_path)
    raw = loader.legit()
    document, _ = _contents(raw)
    paths = [p for p in H.json_paths(document) if len(p) < 2 or p[0] != 'states']
    results, tally = _train_after_load(loader, _edits(raw, document, paths))
    print('%s: %d edits, %s' % (setup, len(results), dict(tally)))
    H.assert_all_fine(results)


@pytest.mark.parametrize('name', sorted(mx.optimizer.Optimizer.opt_registry))
def test_every_optimizers_own_fields_edited_then_trained(name, tmp_path):
    """Each optimizer's own hyper-parameters and running state (those the base class does
    not have: the setups above cover its fields) set to every value of TRAINING_VALUES."""
    loader = UpdaterLoader(3, tmp_path, name, **OPTIMIZER_KWARGS.get(name, {}))
    raw = loader.legit()
    document, _ = _contents(raw)
    common = set(vars(mx.optimizer.Optimizer()))
    paths = [p for p in H.json_paths(document)
             if p[:2] == ('optimizer', 'attrs') and len(p) > 2 and p[2] not in common]
    results, tally = _train_after_load(loader, _edits(raw, document, paths))
    print('%s: %d edits, %s' % (name, len(results), dict(tally)))
    H.assert_all_fine(results)
