"""mx.io's iterators, batch by batch, on MXNet 1.9.1 and gluonedu.

Each case of :data:`CASES` builds iterators over arrays or over small files it writes in
the current directory, reads a few epochs and returns what it saw: every batch's data
and labels (values, dtype, storage type, CSR arrays), pad and index, the iterators'
provide_data/provide_label, or the type of the exception raised. Both sides run
:func:`run` (it imports neither package). As a script, on the oracle's interpreter:
``oracle_main.py io_iters_driver.py`` writes MXNet's outcomes.
"""
import json
import os
import sys

import numpy as np

X = np.arange(20, dtype=np.float32).reshape(10, 2)
Y = np.arange(10, dtype=np.float32) * 10
DATA_T = '1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n'
LABEL_T = '1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n'


def write(name, text):
    with open(name, 'w') as out:
        out.write(text)
    return name


def csv_file(name, rows, cols):
    return write(name, ''.join(','.join('%g' % (r * cols + c) for c in range(cols)) + '\n'
                               for r in range(rows)))


def array(a):
    out = {'stype': a.stype, 'shape': list(a.shape), 'dtype': np.dtype(a.dtype).name,
           'values': a.asnumpy().tolist()}
    if a.stype == 'csr':
        out['indptr'] = a.indptr.asnumpy().tolist()
        out['indices'] = a.indices.asnumpy().tolist()
    return out


def descs(descriptions):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in descriptions]


def batch(b):
    return {'data': [array(d) for d in b.data], 'label': [array(lab) for lab in b.label],
            'pad': b.pad, 'index': None if b.index is None else [int(i) for i in b.index]}


#: Every iterator made, kept to the end: MXNet 1.9.1's LibSVMIter can crash when freed.
MADE = []


def epochs(it, n):
    """provide_data/label, then the batches of ``n`` epochs (reset between)."""
    MADE.append(it)
    seen = {'provide_data': descs(it.provide_data), 'provide_label': descs(it.provide_label),
            'epochs': []}
    for _ in range(n):
        seen['epochs'].append([batch(b) for b in it])
        it.reset()
    return seen


def ndarray_cases(mx):
    nd_iter = mx.io.NDArrayIter
    return {
        'nd pad': lambda: epochs(nd_iter(X, Y, 3), 2),
        'nd discard': lambda: epochs(nd_iter(X, Y, 3, last_batch_handle='discard'), 2),
        'nd roll_over': lambda: epochs(nd_iter(X, Y, 4, last_batch_handle='roll_over'), 4),
        'nd roll_over no label': lambda: epochs(
            nd_iter(X, None, 4, last_batch_handle='roll_over'), 3),
        'nd roll_over hard_reset': lambda: roll_over_hard_reset(mx),
        'nd pad longer than data': lambda: epochs(nd_iter(X[:3], Y[:3], 8), 2),
        'nd shuffle pad': lambda: seeded(lambda: epochs(nd_iter(X, Y, 4, shuffle=True), 3)),
        'nd shuffle roll_over': lambda: seeded(lambda: epochs(
            nd_iter(X, Y, 4, shuffle=True, last_batch_handle='roll_over'), 3)),
        'nd dicts': lambda: epochs(nd_iter(
            {'b': X, 'a': np.zeros((20, 3))}, {'lab2': Y, 'lab1': np.ones((10, 1))}, 3,
            last_batch_handle='discard'), 1),
        'nd lists': lambda: epochs(nd_iter([X, X * 2], [Y, Y + 1], 4), 1),
        'nd names': lambda: epochs(nd_iter(X, Y, 5, data_name='x', label_name='y'), 1),
        'nd layout TNC': lambda: epochs(nd_iter(X.T.copy(), None, 4, layout='TNC'), 1),
        'nd dtypes': lambda: epochs(nd_iter(mx.nd.arange(6, dtype='int32'),
                                            np.arange(6.0), 4), 1),
        'nd csr discard': lambda: epochs(nd_iter(
            mx.nd.array(X).tostype('csr'), Y, 3, last_batch_handle='discard'), 2),
        'nd bad csr pad': lambda: nd_iter(mx.nd.array(X).tostype('csr'), Y, 3),
        'nd bad none': lambda: nd_iter(None),
        'nd bad empty list': lambda: nd_iter([]),
        'nd bad text': lambda: nd_iter('abc'),
        'nd bad dict value': lambda: nd_iter({'a': 'xyz'}),
        'nd bad batch_size 0': lambda: epochs(nd_iter(X, Y, 0, last_batch_handle='discard'), 1),
        'nd bad short label': lambda: epochs(nd_iter(X, Y[:7], 3), 1),
        'nd bad roll_over batch > data': lambda: epochs(
            nd_iter(X[:3], Y[:3], 8, last_batch_handle='roll_over'), 2),
    }


def seeded(make):
    np.random.seed(7)
    return make()


def roll_over_hard_reset(mx):
    it = mx.io.NDArrayIter(X, Y, 4, last_batch_handle='roll_over')
    first = [batch(b) for b in it]
    it.hard_reset()
    return [first, [batch(b) for b in it]]


def desc_cases(mx):
    def describe():
        desc = mx.io.DataDesc('x', (2, 3))
        listed = mx.io.DataDesc.get_list([('a', (1,)), ('b', (2,))],
                                         [('a', np.int32), ('b', np.float16)])
        return [repr(desc), list(desc), desc.layout, np.dtype(desc.dtype).name,
                mx.io.DataDesc.get_batch_axis('TNC'), mx.io.DataDesc.get_batch_axis(None),
                [repr(d) for d in listed],
                [repr(d) for d in mx.io.DataDesc.get_list([('a', (1,))], None)],
                str(mx.io.DataBatch([mx.nd.ones((2, 3))], [mx.nd.ones((2,))])),
                str(mx.io.DataBatch([mx.nd.ones((2, 3))]))]
    return {'desc and batch': describe,
            'desc bad batch data': lambda: mx.io.DataBatch(mx.nd.ones((2,))),
            'desc bad batch label': lambda: mx.io.DataBatch([mx.nd.ones((2,))], 3)}


def csv_cases(mx):
    def csv(n=1, **kwargs):
        return epochs(mx.io.CSVIter(**kwargs), n)
    d10, d2, labels = 'd10.csv', 'd2.csv', 'l10.csv'
    return {
        'csv round_batch': lambda: csv(3, data_csv=d10, data_shape=(3,), label_csv=labels,
                                       batch_size=4),
        'csv no round_batch': lambda: csv(3, data_csv=d10, data_shape=(3,), label_csv=labels,
                                          batch_size=4, round_batch=False),
        'csv exact batches': lambda: csv(2, data_csv=d10, data_shape=(3,), batch_size=5),
        'csv batch > rows': lambda: csv(2, data_csv=d2, data_shape=(3,), batch_size=3),
        'csv label shape': lambda: csv(1, data_csv=d10, data_shape=(3,), label_csv=d10,
                                       label_shape=(3,), batch_size=4),
        'csv data shape 2-d': lambda: csv(1, data_csv=d10, data_shape=(1, 3), batch_size=5),
        'csv int32': lambda: csv(1, data_csv=d10, data_shape=(3,), batch_size=5,
                                 dtype='int32'),
        'csv int64 names': lambda: csv(1, data_csv=d10, data_shape=(3,), batch_size=5,
                                       dtype='int64', data_name='x', label_name='y'),
        'csv lenient text': lambda: csv(1, data_csv=write(
            'lenient.csv', '1.5e1, 2 ,-3\n\n4,5,6,\r\n7,8,9'), data_shape=(3,), batch_size=1),
        'csv longer label file': lambda: csv(1, data_csv=d2, data_shape=(3,),
                                             label_csv=labels, batch_size=2),
        'csv bad short row': lambda: csv(data_csv=write('short.csv', '1,2,3\n4,5\n'),
                                         data_shape=(3,), batch_size=1),
        'csv bad long row': lambda: csv(data_csv=write('long.csv', '1,2,3\n4,5,6,7\n'),
                                        data_shape=(3,), batch_size=1),
        'csv bad separator': lambda: csv(data_csv=write('semi.csv', '1;2;3\n'),
                                         data_shape=(3,), batch_size=1),
        'csv bad number': lambda: csv(data_csv=write('text.csv', '1,2,3\n4,x,6\n'),
                                      data_shape=(3,), batch_size=1),
        'csv bad shape': lambda: csv(data_csv=d10, data_shape=(4,), batch_size=2),
        'csv bad missing file': lambda: csv(data_csv='missing.csv', data_shape=(3,),
                                            batch_size=1),
        'csv bad empty file': lambda: csv(data_csv=write('empty.csv', ''), data_shape=(3,),
                                          batch_size=1),
        'csv bad short label file': lambda: csv(data_csv=d10, data_shape=(3,),
                                                label_csv=d2, batch_size=1),
        'csv bad dtype': lambda: csv(data_csv=d10, data_shape=(3,), batch_size=1,
                                     dtype='float64'),
        'csv bad batch > 2 rows': lambda: csv(data_csv=d2, data_shape=(3,), batch_size=5),
        'csv bad no batch_size': lambda: csv(data_csv=d10, data_shape=(3,)),
        'csv bad no data_shape': lambda: csv(data_csv=d10, batch_size=1),
        'csv bad positional': lambda: mx.io.CSVIter(d10, data_csv=d10, data_shape=(3,),
                                                    batch_size=1),
    }


def libsvm_cases(mx):
    def libsvm(n=1, **kwargs):
        return epochs(mx.io.LibSVMIter(**kwargs), n)

    def parts(num_parts):
        lines = write('parts.t', ''.join('%d %d:%d\n' % (i, i % 3, i) for i in range(11)))
        return [epochs(mx.io.LibSVMIter(data_libsvm=lines, data_shape=(3,), batch_size=1,
                                        num_parts=num_parts, part_index=p), 1)
                for p in range(num_parts)]
    data, labels = 'data.t', 'label.t'

    def bad(name, text):
        return lambda: libsvm(data_libsvm=write(name, text), data_shape=(3,), batch_size=1)
    return {
        'libsvm round robin': lambda: libsvm(3, data_libsvm=data, data_shape=(3,),
                                             batch_size=3),
        'libsvm exact batches': lambda: libsvm(2, data_libsvm=data, data_shape=(3,),
                                               batch_size=2),
        'libsvm label file': lambda: libsvm(2, data_libsvm=data, data_shape=(3,),
                                            label_libsvm=labels, label_shape=(3,),
                                            batch_size=3),
        'libsvm batch > rows': lambda: libsvm(1, data_libsvm=data, data_shape=(3,),
                                              batch_size=5),
        'libsvm text forms': lambda: libsvm(1, data_libsvm=write(
            'forms.t', '1 0:1 # comment\n\n2 qid:3 1:2\n3 0:0 2:1\r\n'), data_shape=(3,),
            batch_size=3),
        'libsvm 3 parts': lambda: parts(3),
        'libsvm 4 parts': lambda: parts(4),
        'libsvm bad data_shape 2-d': lambda: libsvm(data_libsvm=data, data_shape=(3, 1),
                                                    batch_size=1),
        'libsvm bad round_batch': lambda: libsvm(data_libsvm=data, data_shape=(3,),
                                                 batch_size=3, round_batch=False),
        'libsvm bad label_shape': lambda: libsvm(data_libsvm=data, data_shape=(3,),
                                                 label_libsvm=labels, batch_size=1),
        'libsvm bad dtype': lambda: libsvm(data_libsvm=data, data_shape=(3,), batch_size=2,
                                           dtype='int32'),
        'libsvm bad missing file': lambda: libsvm(data_libsvm='missing.t', data_shape=(3,),
                                                  batch_size=1),
        'libsvm bad index': bad('index.t', '1 0:1\n2 a:1\n3 0:1\n'),
        'libsvm bad pair': bad('pair.t', '1 0:1 1\n'),
        'libsvm bad negative index': bad('negative.t', '1 -1:1\n'),
        'libsvm bad multi-label': bad('multilabel.t', '1,2 0:1\n'),
        'libsvm bad no batch_size': lambda: libsvm(data_libsvm=data, data_shape=(3,)),
    }


def wrapper_cases(mx):
    def resized(reset_internal):
        return epochs(mx.io.ResizeIter(mx.io.NDArrayIter(X, Y, 3), 5, reset_internal), 2)

    def prefetching():
        first = mx.io.NDArrayIter({'data': X}, {'label': Y}, 4)
        second = mx.io.NDArrayIter({'data': X * 2}, {'label': Y + 1}, 4)
        return epochs(mx.io.PrefetchingIter([first, second],
                                            rename_data=[{'data': 'a'}, {'data': 'b'}],
                                            rename_label=[{'label': 'la'}, {'label': 'lb'}]),
                      2)

    def prefetching_csv():
        write('pf.csv', ''.join('%d,%d\n' % (i, -i) for i in range(7)))
        return epochs(mx.io.PrefetchingIter(mx.io.CSVIter(data_csv='pf.csv', data_shape=(2,),
                                                          batch_size=3)), 2)

    def prefetching_mismatch():
        shorter = mx.io.NDArrayIter(X[:4], Y[:4], 2)
        longer = mx.io.NDArrayIter(X, Y, 2)
        return epochs(mx.io.PrefetchingIter([shorter, longer],
                                            rename_data=[{'data': 'a'}, {'data': 'b'}]), 1)
    return {'resize': lambda: resized(True), 'resize no internal reset': lambda: resized(False),
            'prefetching renamed': prefetching, 'prefetching csv': prefetching_csv,
            'prefetching bad lengths': prefetching_mismatch}


#: Where MXNet 1.9.1 accepts bad input silently and gluonedu raises (docs/divergences.md).
DIVERGENT = {
    'nd unknown last_batch_handle': ('ValueError', lambda mx: epochs(
        mx.io.NDArrayIter(X, Y, 3, last_batch_handle='drop'), 1)),
    'libsvm value not a number': ('MXNetError', lambda mx: epochs(mx.io.LibSVMIter(
        data_libsvm=write('value.t', '1 0:1\n2 1:x\n'), data_shape=(3,), batch_size=1), 1)),
    'libsvm indices not increasing': ('MXNetError', lambda mx: epochs(mx.io.LibSVMIter(
        data_libsvm=write('order.t', '1 2:1 0:1\n'), data_shape=(3,), batch_size=1), 1)),
    'libsvm index out of range': ('MXNetError', lambda mx: epochs(mx.io.LibSVMIter(
        data_libsvm=write('range.t', '1 5:1\n'), data_shape=(3,), batch_size=1), 1)),
}

GROUPS = (ndarray_cases, desc_cases, csv_cases, libsvm_cases, wrapper_cases)


def all_cases(mx):
    cases = {}
    for group in GROUPS:
        cases.update(group(mx))
    return cases


def outcome(make):
    """``{'result': ...}``, or ``{'raised': exception type name}``."""
    try:
        return {'result': make()}
    except Exception as exc:  # the outcome compared: which type
        return {'raised': type(exc).__name__}


def write_shared_files():
    """The files several cases read (a case's own file is written when it runs)."""
    csv_file('d10.csv', 10, 3)
    csv_file('d2.csv', 2, 3)
    write('l10.csv', ''.join('%d\n' % (i * 10) for i in range(10)))
    write('data.t', DATA_T)
    write('label.t', LABEL_T)


def run(mx):
    """``{case: outcome}`` of every case, run in the current directory."""
    write_shared_files()
    outcomes = {name: outcome(make) for name, make in all_cases(mx).items()}
    outcomes.update({name: outcome(lambda: make(mx)) for name, (_, make) in DIVERGENT.items()})
    return outcomes


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {name: np.array(json.dumps(value)) for name, value in run(mxnet).items()}
    oracle_io.save_results(results)
    sys.stdout.flush()
    # The results are written; leave without freeing MADE (see there).
    os._exit(0)
