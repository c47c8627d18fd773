"""The README's plotting examples in a real Jupyter kernel: each plot shows exactly once.

nbclient runs cells in an IPython kernel under Jupyter's default inline backend, as a
teacher pasting the README into JupyterLab would. Matplotlib's inline backend shows
every open pyplot figure when a cell ends, and IPython also shows a Figure that is the
cell's value; gluonedu's plots return a Figure that counts once either way
(gluonedu.viz.figure). What is counted: the image/png outputs of each cell.
"""
import os
import re
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip('nbformat')
nbclient = pytest.importorskip('nbclient')
pytest.importorskip('ipykernel')

ROOT = Path(__file__).resolve().parents[2]

# A run that records every kind of row the README's plots draw: lr and norms (Adam's
# mean and var too), skipped stale gradients (a layer forward never uses), KVStore
# pushes over two contexts with 2-bit compression (updates off the store, so that the
# spare layer's copies are skipped), and a logged loss.
RECORDED_RUN = '''
import numpy as np
import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.instrument import Recorder

class Net(gluon.Block):
    def __init__(self):
        super().__init__()
        with self.name_scope():
            self.hidden = gluon.nn.Dense(5, in_units=4)
            self.out = gluon.nn.Dense(3, in_units=5)
            self.spare = gluon.nn.Dense(2, in_units=5)     # never used: stale gradients
    def forward(self, x):
        return self.out(nd.relu(self.hidden(x)))

ctx = [mx.cpu(0), mx.cpu(1)]
mx.random.seed(0)
net = Net()
net.initialize(mx.init.Xavier(), ctx=ctx)
trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01},
                        compression_params={'type': '2bit', 'threshold': 0.5},
                        update_on_kvstore=False)   # else the store updates every key
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
rng = np.random.default_rng(0)
with Recorder(trainer, norms=True) as rec:
    for _ in range(4):
        xs = gluon.utils.split_and_load(nd.array(rng.standard_normal((8, 4))), ctx)
        ys = gluon.utils.split_and_load(nd.array(rng.integers(0, 3, 8)), ctx)
        with autograd.record():
            losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
        autograd.backward(losses)
        trainer.step(8, ignore_stale_grad=True)
        rec.log('loss', losses[0].mean())
'''


def _readme_blocks():
    text = (ROOT / 'README.md').read_text(encoding='utf-8')
    return re.findall(r'^```python\n(.*?)^```', text, flags=re.M | re.S)


def _plot_block():
    """The README's block of plot calls (the one importing the plots from gluonedu.viz)."""
    blocks = [b for b in _readme_blocks() if 'from gluonedu.viz import' in b]
    assert len(blocks) == 1, 'expected one README block importing gluonedu.viz plots'
    return blocks[0]


def _statements(block):
    """The block's top-level statements (a statement's continuation lines kept with it)."""
    import ast
    tree = ast.parse(block)
    lines = block.splitlines()
    return ['\n'.join(lines[node.lineno - 1:node.end_lineno]) for node in tree.body]


def _run(cells, tmp_path):
    """Execute ``cells`` (sources) in a fresh kernel; return each cell's outputs."""
    nb = nbformat.v4.new_notebook()
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3',
                                 'language': 'python'}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    env = dict(os.environ)
    env.pop('MPLBACKEND', None)            # the kernel picks Jupyter's inline backend
    for name in ('JUPYTER_CONFIG_DIR', 'JUPYTER_DATA_DIR', 'JUPYTER_RUNTIME_DIR',
                 'IPYTHONDIR', 'MPLCONFIGDIR'):
        env[name] = str(tmp_path / name.lower())
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [str(ROOT), env.get('PYTHONPATH')]))
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name='python3',
                                     resources={'metadata': {'path': str(tmp_path)}})
    client.kernel_manager_class = 'jupyter_client.manager.KernelManager'
    client.execute(env=env, cwd=str(tmp_path))
    return [cell.outputs for cell in nb.cells]


def _figures(outputs):
    return sum('image/png' in out.get('data', {}) for out in outputs)


# Each case: (cell source, the figures it must show). The plot calls are the README's.
def _cases():
    statements = _statements(_plot_block())
    imports = [s for s in statements if s.startswith('from ')]
    calls = [s for s in statements if not s.startswith('from ')]
    assert len(calls) == 7 and all(c.startswith('plot_') for c in calls)
    last = calls[-1].split('#')[0].rstrip()
    return ([(_readme_blocks()[0], 1), (RECORDED_RUN, 0)] + [(s, 0) for s in imports]
            + [(call, 1) for call in calls] + [
                (last + ';', 1),                                 # the value silenced
                ('fig = ' + last, 1),                            # the value kept
                ('fig', 1),                                      # shown again on request
                ('fig2 = %s\nprint("done")' % calls[0], 1),     # the cell ends otherwise
                ('fig3 = %s\ndisplay(fig3)\nx = 1' % calls[1], 1),  # displayed by hand
                ('\n'.join(calls), len(calls)),                 # all of them in one cell
                ('import io\nimport matplotlib.pyplot as plt\n'  # usable after it was shown
                 'buffer = io.BytesIO()\nfig.savefig(buffer, format="png")\n'
                 'print(buffer.getvalue()[:4], plt.get_fignums())', 0),
            ])


@pytest.fixture(scope='module')
def executed(tmp_path_factory):
    """The cases run in one kernel: ``[(source, expected figures, outputs), ...]``."""
    cases = _cases()
    outputs = _run([source for source, _ in cases], tmp_path_factory.mktemp('display'))
    return [(source, expected, out) for (source, expected), out in zip(cases, outputs)]


def test_readme_first_example_shows_its_plot_once(executed):
    source, expected, outputs = executed[0]
    assert source.rstrip().splitlines()[-1].startswith('mx.viz.plot_norms(')  # its last line
    assert _figures(outputs) == expected == 1, outputs


def test_readme_plot_calls_each_show_once_whatever_the_cell_ends_with(executed):
    errors = [o for _, _, cell in executed for o in cell if o.get('output_type') == 'error']
    assert not errors, errors
    shown = [(source.splitlines()[-1], _figures(out)) for source, _, out in executed]
    assert shown == [(source.splitlines()[-1], expected) for source, expected, _ in executed]


def test_a_figure_stays_usable_after_it_was_shown(executed):
    *_, (_, _, outputs) = executed
    text = ''.join(o.get('text', '') for o in outputs if o.get('output_type') == 'stream')
    assert text.strip() == r"b'\x89PNG' []"          # saved; no figure left open in pyplot


def test_scripts_get_a_pyplot_figure():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure
    from gluonedu.viz import Quadratic, plot_trajectories
    fig = plot_trajectories(Quadratic(), {'sgd': 'sgd'}, steps=5)
    try:
        assert isinstance(fig, Figure)
        assert plt.fignum_exists(fig.number)               # plt.show() / plt.savefig see it
        assert sys.modules['matplotlib'].get_backend().lower() == 'agg'
        assert fig._repr_mimebundle_() is None and plt.fignum_exists(fig.number)
    finally:
        plt.close(fig)
