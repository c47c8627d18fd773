"""Hostile files against the array and parameter loaders.

nd.load, ParameterDict.load and Block.load_parameters get pickle payloads, polyglots,
zip bombs, path names, object/huge/foreign dtypes and shapes, wrong keys, checksum-valid
edits of every manifest field, truncations and byte flips. Each must raise MXNetError —
or, for a file that is valid but does not fit the model, the error MXNet documents —
or load exactly what the legitimate file holds; within 2x the legitimate data's memory
(tracemalloc), within CASE_SECONDS, and leaving the parameters as they were whenever
it raises. Seeded; the optimizer-state loaders are in tests/test_hostile_states.py.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import gluon, nd

import hostile as H

SEED = 15


# --------------------------------------------------------------------------- legit files
def _arrays(rows=512):
    rng = np.random.default_rng(SEED)
    dense = rng.standard_normal((rows, 1024)).astype(np.float32)   # 2 MB for 512 rows
    csr_dense = np.zeros((30, 40), np.float32)
    csr_dense[rng.integers(0, 30, 20), rng.integers(0, 40, 20)] = 1.5
    return {'w': nd.array(dense), 'b': nd.array(rng.standard_normal(1024)),
            'ids': nd.array(np.arange(10), dtype='int64'),
            'half': nd.array(rng.standard_normal((3, 3)), dtype='float16'),
            'flags': nd.array([1, 0, 1], dtype='bool'),
            'rows': nd.sparse.row_sparse_array((rng.standard_normal((4, 8)), [1, 5, 6, 9]),
                                               shape=(12, 8)),
            'csr': nd.sparse.csr_matrix(csr_dense)}


def _legit(folder, rows):
    arrays = _arrays(rows)
    path = folder / 'arrays.nd'
    nd.save(str(path), arrays)
    return path.read_bytes(), {k: _host(v) for k, v in arrays.items()}, H.nbytes_of(arrays)


@pytest.fixture(scope='module')
def legit(tmp_path_factory):
    """The legitimate file (2 MB of data): for the cases about memory."""
    return _legit(tmp_path_factory.mktemp('legit'), rows=512)


@pytest.fixture(scope='module')
def small(tmp_path_factory):
    """The same arrays with 8 rows in 'w' (40 KB): for the many edits, flips and cuts."""
    return _legit(tmp_path_factory.mktemp('small'), rows=8)


def _host(arr):
    return [getattr(arr, p).asnumpy() for p in ('data', 'indices', 'indptr')
            if hasattr(arr, p)] if arr.stype != 'default' else [arr.asnumpy()]


def _same_arrays(expected):
    """Whether a result holds the legitimate arrays, in order, under string names (a
    checksum-valid edit of a name is a valid file with that name)."""
    def same(result):
        if not isinstance(result, dict) or len(result) != len(expected) or \
                not all(isinstance(k, str) for k in result):
            return False
        return all(len(_host(got)) == len(want) and all(
            a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
            for a, b in zip(_host(got), want))
            for got, want in zip(result.values(), expected.values()))
    return same


def _check_nd(tmp_path, cases, legit):
    raw, expected, nbytes = legit
    path = tmp_path / 'hostile.nd'
    results = []
    for case, data in cases:
        path.write_bytes(data)
        outcome = H.run_loader(lambda: nd.load(str(path)))
        results.append((case, H.judge(outcome, (H.MXNetError,), nbytes,
                                      _same_arrays(expected))))
    H.assert_all_fine(results)
    return results


# --------------------------------------------------------------------------- nd.load
def test_the_legitimate_file_loads_within_its_own_size(tmp_path, legit):
    raw, expected, nbytes = legit
    path = tmp_path / 'ok.nd'
    path.write_bytes(raw)
    outcome = H.run_loader(lambda: nd.load(str(path)))
    assert outcome.error is None and _same_arrays(expected)(outcome.result)
    assert outcome.peak <= 1.2 * nbytes + H.SLACK_BYTES, outcome
    print('nd.load peak / data: %.2f' % (outcome.peak / nbytes))


def test_pickles_and_polyglots(tmp_path, legit):
    raw, _, _ = legit
    marker = tmp_path / 'pwned'
    _check_nd(tmp_path, H.pickle_cases(raw, 'manifest.json', '0.npy', marker), legit)
    assert not marker.exists()


def test_zip_bombs_are_refused_before_decompressing(tmp_path, legit):
    raw, _, _ = legit
    _check_nd(tmp_path, H.bomb_cases(raw, 'manifest.json', '0.npy', '1.npy'), legit)


def test_member_names_paths_and_duplicates(tmp_path, small):
    raw, _, _ = small

    def renamed(new):
        manifest = H.edit_document(raw, 'manifest.json', lambda m: _rename_files(m, new))
        return H.rezip([(new if n == '0.npy' else n, d) for n, d in H.members(manifest)])
    cases = [('dotdot', renamed('../0.npy')), ('absolute', renamed('/tmp/0.npy')),
             ('nested', renamed('a/0.npy')), ('backslash', renamed('..\\0.npy'))]
    _check_nd(tmp_path, cases + H.member_cases(raw, '1.npy'), small)


def _rename_files(manifest, new):
    manifest['arrays'][0]['files']['data'] = new
    return manifest


@pytest.mark.parametrize('dtype', H.FOREIGN_DTYPES)
def test_foreign_dtypes_are_refused(tmp_path, legit, dtype):
    raw, _, _ = legit
    array = np.zeros(4, dtype=dtype)
    manifest_name = np.dtype(dtype).name if np.dtype(dtype).kind != 'V' else 'void'
    cases = [('member', H.replace(raw, '1.npy', H.npy(array, allow_pickle=True))),
             ('member+manifest', H.edit_document(
                 H.replace(raw, '1.npy', H.npy(array, allow_pickle=True)), 'manifest.json',
                 lambda m: _set_entry(m, 1, dtype=manifest_name, shape=[4])))]
    results = _check_nd(tmp_path, cases, legit)
    if dtype == 'f8':  # the harmless stand-in where float128 does not exist
        return
    assert all(not problems for _, problems in results)


def _set_entry(manifest, i, **fields):
    manifest['arrays'][i].update(fields)
    return manifest


def test_hostile_npy_headers_and_shapes(tmp_path, legit):
    raw, _, _ = legit
    cases = [(name, H.replace(raw, '1.npy', member))
             for name, member in H.hostile_npy_members(dict(H.members(raw))['1.npy'])]
    _check_nd(tmp_path, cases, legit)


def test_every_manifest_field_edited_to_hostile_values(tmp_path, small):
    raw, expected, _ = small
    import json
    manifest = json.loads(dict(H.members(raw))['manifest.json'])
    cases = [(case, H.replace(raw, 'manifest.json', json.dumps(edited).encode()))
             for case, edited in H.field_edits(manifest, np.random.default_rng(SEED))]
    cases.append(('renamed-key', H.replace(raw, 'manifest.json', json.dumps(
        dict(manifest, arrayz=manifest['arrays'])).encode())))
    # A manifest naming one entry twice must not merge or drop values silently.
    twice = json.loads(json.dumps(manifest))
    twice['arrays'][1]['name'] = twice['arrays'][0]['name']
    cases.append(('duplicate-name', H.replace(raw, 'manifest.json', json.dumps(twice).encode())))
    _check_nd(tmp_path, cases, small)
    assert len(cases) > 400


def test_truncations_and_byte_flips(tmp_path, small):
    raw, _, _ = small
    cases = H.flips_and_cuts(raw, np.random.default_rng(SEED), stride=2)
    _check_nd(tmp_path, cases, small)


def test_a_name_edited_to_another_string_loads_under_that_name(tmp_path, small):
    raw, _, _ = small
    edited = H.edit_document(raw, 'manifest.json', lambda m: _set_entry(m, 1, name='other'))
    path = tmp_path / 'renamed.nd'
    path.write_bytes(edited)
    assert list(nd.load(str(path)))[1] == 'other'   # a valid file: loaded as it says


# --------------------------------------------------------------------------- parameters
def _model():
    with mx.name.NameManager():
        net = gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(gluon.nn.Dense(1024, in_units=512), gluon.nn.Dense(4, in_units=1024))
    net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    return net


def _values(net):
    return {name: p.data().asnumpy().copy() for name, p in net.collect_params().items()}


@pytest.fixture(scope='module')
def param_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp('params')
    net = _model()
    structural, prefixed = folder / 'net.params', folder / 'dict.params'
    net.save_parameters(str(structural))
    net.collect_params().save(str(prefixed))
    data = sum(v.nbytes for v in _values(net).values())
    return {'load_parameters': structural.read_bytes(),
            'ParameterDict.load': prefixed.read_bytes()}, _values(net), data


def _param_cases(raw, rng):
    import json
    manifest = json.loads(dict(H.members(raw))['manifest.json'])
    first = H.members(raw)[1][0]
    cases = [('pickle', H.pickle_payload('/nonexistent/pwned')),
             ('deflate-bomb', H.deflate_bomb(raw, first, 32 << 20)),
             ('declared-huge', H.patch_central(raw, first, size=2 ** 32 - 1)),
             ('objects', H.replace(raw, first, H.npy(np.array([{}], dtype=object), True))),
             ('float64', H.edit_document(H.replace(raw, first, H.npy(np.zeros((1024, 512)))),
                                         'manifest.json',
                                         lambda m: _set_entry(m, 0, dtype='float64'))),
             ('wrong-shape', H.edit_document(H.replace(raw, first,
                                                       H.npy(np.zeros((512, 1024), 'f4'))),
                                             'manifest.json',
                                             lambda m: _set_entry(m, 0, shape=[512, 1024]))),
             ('extra-member', H.rezip(H.members(raw) + [('../x', b'1')]))]
    # The last array is fine and the first is not: nothing may be loaded at all.
    cases.append(('last-good-first-bad', H.edit_document(
        H.replace(raw, first, H.npy(np.zeros((3, 3), 'f4'))), 'manifest.json',
        lambda m: _set_entry(m, 0, shape=[3, 3]))))
    edits = H.field_edits(manifest, rng, per_field=3)
    cases += [(case, H.replace(raw, 'manifest.json', json.dumps(edited).encode()))
              for case, edited in edits[::2]]
    return cases + H.flips_and_cuts(raw, rng, stride=8, random_count=20)


@pytest.mark.parametrize('loader', ['load_parameters', 'ParameterDict.load'])
def test_parameter_loaders_refuse_hostile_files_and_change_nothing(tmp_path, param_files,
                                                                   loader):
    files, saved, nbytes = param_files
    raw = files[loader]
    net = _model()
    before = _values(net)
    path = tmp_path / 'hostile.params'
    load = {'load_parameters': lambda: net.load_parameters(str(path)),
            'ParameterDict.load': lambda: net.collect_params().load(str(path))}[loader]

    def same_as_saved(_):
        return all(np.array_equal(v, saved[k]) for k, v in _values(net).items())
    results = []
    # Wrong names are valid files that do not fit: MXNet's AssertionError / ValueError.
    allowed = (H.MXNetError, AssertionError, ValueError)
    for case, data in _param_cases(raw, np.random.default_rng(SEED)):
        path.write_bytes(data)
        outcome = H.run_loader(load)
        problems = H.judge(outcome, allowed, nbytes, same_as_saved)
        if outcome.error is not None and any(not np.array_equal(v, before[k])
                                             for k, v in _values(net).items()):
            problems.append('changed the parameters before raising')
        if outcome.error is None:  # loaded the legit values: put the old ones back
            for name, p in net.collect_params().items():
                p.set_data(nd.array(before[name]))
        results.append((case, problems))
    H.assert_all_fine(results)
    assert len(results) > 100
