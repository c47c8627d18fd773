"""dist_sync and dist_async on a real (local) Ray cluster, training the digits MLP."""
import os

import numpy as np
import pytest

import dist_helpers as helpers

STEPS = 8


@pytest.fixture(scope='module')
def digits():
    import gluonedu as mx
    return mx.data.digits()


@pytest.mark.parametrize('num_workers', [2, 4])
def test_dist_sync_matches_single_process_on_concatenated_batches(ray_cluster, digits,
                                                                 num_workers):
    results = ray_cluster.run(helpers.train_digits, 'dist_sync', STEPS,
                              optimizer_params={'learning_rate': 0.1, 'momentum': 0.9},
                              num_workers=num_workers, num_servers=2, data=digits)
    expected = helpers.train_single(num_workers, STEPS,
                                    optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    assert [r['rank'] for r in results] == list(range(num_workers))
    for result in results:
        assert result['num_workers'] == num_workers
        for got, want in zip(result['weights'], expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _mean_staleness(results):
    values = [v for r in results for v in r['staleness']]
    return float(np.mean(values)), values


def test_dist_async_converges_and_staleness_grows_with_workers(ray_cluster, digits):
    runs = {}
    for n in (2, 4):
        runs[n] = ray_cluster.run(helpers.train_digits, 'dist_async', 30,
                                  optimizer_params={'learning_rate': 0.5},
                                  record_staleness=True, pull_final=True, num_workers=n,
                                  data=digits)
    for n, results in runs.items():
        for r in results:
            # the final model is far below the untrained loss of ln(10) = 2.30
            assert r['full_loss'] < 1.0, (n, r['full_loss'])
            for got, want in zip(r['weights'], results[0]['weights']):
                np.testing.assert_array_equal(got, want)
            assert r['contexts'] == ['worker%d' % r['rank']]
            assert len(r['staleness']) == 30 * 4  # one event per key per push
    mean2, values2 = _mean_staleness(runs[2])
    mean4, values4 = _mean_staleness(runs[4])
    assert min(values2 + values4) >= 0
    assert mean2 > 0
    assert mean4 > mean2, (mean2, mean4)


def test_saved_optimizer_states_let_a_restarted_run_continue(ray_cluster, digits, tmp_path):
    params = {'learning_rate': 0.1, 'momentum': 0.9}
    states = str(tmp_path / 'dist.states')
    whole = ray_cluster.run(helpers.train_digits, 'dist_sync', 6, optimizer_params=params,
                            num_workers=2, data=digits)
    first = ray_cluster.run(helpers.train_digits, 'dist_sync', 3, optimizer_params=params,
                            save_states=states, num_workers=2, data=digits)
    assert os.path.getsize(states) > 0
    second = ray_cluster.run(helpers.train_digits, 'dist_sync', 3, optimizer_params=params,
                             load_states=states, start_step=3,
                             start_weights=first[0]['weights'], num_workers=2, data=digits)
    for got, want in zip(second[0]['weights'], whole[0]['weights']):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
