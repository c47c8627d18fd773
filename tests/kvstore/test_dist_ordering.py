"""A worker's pushes are sent without waiting; what must still hold, on a local cluster.

A pull right after a push of the same key sees that push (the worker orders them; a
server alone would not), also for a key split across servers; a push sends the value
its arrays had when called; an error a push met on a server is raised by the next
operation that waits for it; dist_async's staleness is counted per push.
"""
import dist_helpers as helpers

ROUNDS = 12


def test_dist_sync_pull_after_push_sees_the_round_of_that_push(ray_cluster):
    results = ray_cluster.run(helpers.push_then_pull, 'dist_sync', ROUNDS, num_workers=2,
                              num_servers=2)
    for r in results:
        assert r['split'] == [2, 1]          # key 0 is cut across both servers
        for i, seen in enumerate(r['seen']):
            total = float((i + 1) * (1 + 2))  # ranks 0 and 1 push (i+1)*1 and (i+1)*2
            assert seen == [(total, total), (total, total)], (i, seen)


def test_dist_async_pull_after_push_holds_every_own_push(ray_cluster):
    results = ray_cluster.run(helpers.push_then_pull, 'dist_async', ROUNDS, num_workers=2,
                              num_servers=2)
    for r in results:
        for i, (split, whole) in enumerate(r['seen']):
            # the pieces of a split key are updated independently, so they may hold
            # different numbers of the *other* worker's pushes; a whole key is one value
            assert whole[0] == whole[1], (i, whole)
            for value in split + whole:
                applied = -value                   # (pushes of 0) + 1000 * (pushes of 1)
                own = applied % 1000 if r['rank'] == 0 else applied // 1000
                assert own == i + 1, (r['rank'], i, split, whole)


def test_an_error_of_a_deferred_push_surfaces_at_the_next_operation(ray_cluster):
    found, = ray_cluster.run(helpers.deferred_push_errors, num_workers=1)
    assert found['push_returned']
    for what in ('pull', 'barrier'):
        kind, message = found[what]
        assert kind == 'MXNetError'
        assert 'failed on the server' in message and 'call kv.set_optimizer' in message
    assert 'a push of key 0 failed' in found['pull'][1]
    assert 'a push of key 1 failed' in found['barrier'][1]
    assert found['after'] == [-1.0] * 4


def test_dist_async_staleness_of_deferred_pushes_keeps_each_push_and_its_step(ray_cluster):
    found, = ray_cluster.run(helpers.deferred_staleness, num_workers=1)
    rows = found['rows']
    # kv_push when sent; staleness when collected, carrying the step of its push:
    # with no pull in between, the 2nd and 3rd pushes are 1 and 2 versions behind
    assert [(s, v) for e, s, v in rows if e == 'kv_push'] == [(1, 16.0), (2, 16.0), (3, 16.0)]
    assert [(s, v) for e, s, v in rows if e == 'staleness'] == [(1, 0.0), (2, 1.0), (3, 2.0)]
    assert found['value'] == [-3.0] * 4

