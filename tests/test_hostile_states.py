"""Hostile files against the optimizer-state loaders.

Trainer.load_states, Updater.set_states and KVStore.load_optimizer_states get pickle
payloads, polyglots, zip bombs, path names, object/huge/foreign dtypes and shapes, wrong
keys, checksum-valid edits of every field of states.json (every hyper-parameter of the
optimizer and its scheduler, step counts, state arities, dtypes and shapes) to hostile
values, truncations and byte flips (tests/hostile.py makes them). Each must raise
MXNetError — or load exactly what the file says (a valid file) — within CASE_SECONDS,
within 2x the legitimate data's memory (tracemalloc), and leave the Trainer, Updater or
store as it was whenever it raises (their saved state compared before and after).
Seeded; the array and parameter loaders are in tests/test_hostile_files.py.
"""
import io
import json

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd

import hostile as H

SEED = 15
DOCUMENT = 'states.json'


# --------------------------------------------------------------------------- the loaders
def _net(units):
    with mx.name.NameManager():
        net = gluon.nn.Dense(units, in_units=units)
    net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    return net


def _trained_trainer(units, learning_rate=0.1, steps=2):
    """A Trainer (Adam with a FactorScheduler: states of arity 2, a scheduler's fields)
    after ``steps`` steps."""
    net = _net(units)
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=learning_rate,
                                            warmup_steps=1, warmup_begin_lr=0.01)
    trainer = gluon.Trainer(net.collect_params(), 'adam',
                            {'lr_scheduler': sched, 'wd': 0.01, 'clip_gradient': 5.0})
    x = nd.array(np.random.RandomState(steps).normal(size=(2, units)))
    for _ in range(steps):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(2)
    return trainer


class TrainerLoader:
    name = 'Trainer.load_states'

    def __init__(self, units, folder):
        self.units, self.folder = units, folder

    def legit(self):
        return self._save(_trained_trainer(self.units))

    def target(self):
        """A Trainer of the same model in another state (a rejected load must keep it)."""
        return _trained_trainer(self.units, learning_rate=0.5, steps=1)

    def load(self, target, raw):
        path = self.folder / 'hostile.states'
        path.write_bytes(raw)
        return lambda: target.load_states(str(path))

    def snapshot(self, target):
        return self._save(target)

    def _save(self, trainer):
        path = self.folder / 'snapshot.states'
        trainer.save_states(str(path))
        return path.read_bytes()


class UpdaterLoader:
    name = 'Updater.set_states'

    def __init__(self, units, folder, optimizer='adam', **kwargs):
        self.units, self.optimizer, self.kwargs = units, optimizer, kwargs

    def _trained(self, learning_rate, steps):
        opt = mx.optimizer.create(self.optimizer, learning_rate=learning_rate, wd=0.01,
                                  **self.kwargs)
        updater = mx.optimizer.get_updater(opt)
        rs = np.random.RandomState(steps)
        weights = [nd.array(rs.normal(size=(self.units, self.units))),
                   nd.array(rs.normal(size=self.units))]
        for _ in range(steps):
            updater([0, 1], [nd.array(rs.normal(size=w.shape)) for w in weights], weights)
        return updater

    def legit(self):
        return self._trained(0.1, 2).get_states(dump_optimizer=True)

    def target(self):
        return self._trained(0.5, 1)

    def load(self, target, raw):
        return lambda: target.set_states(raw)

    def snapshot(self, target):
        return target.get_states(dump_optimizer=True)


class StoreLoader:
    name = 'KVStore.load_optimizer_states'

    def __init__(self, units, folder):
        self.units, self.folder = units, folder

    def _store(self, learning_rate, steps):
        kv = mx.kv.create('local')
        kv.set_optimizer(mx.optimizer.Adam(learning_rate=learning_rate, wd=0.01))
        rs = np.random.RandomState(steps)
        shapes = [(self.units, self.units), (self.units,)]
        for key, shape in enumerate(shapes):
            kv.init(key, nd.array(rs.normal(size=shape)))
        for _ in range(steps):
            for key, shape in enumerate(shapes):
                kv.push(key, nd.array(rs.normal(size=shape)))
        return kv

    def legit(self):
        return self.snapshot(self._store(0.1, 2))

    def target(self):
        return self._store(0.5, 1)

    def load(self, target, raw):
        path = self.folder / 'hostile.states'
        path.write_bytes(raw)
        return lambda: target.load_optimizer_states(str(path))

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
