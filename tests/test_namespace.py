"""The top-level namespace: lazy subpackages are listed by dir() and tab-complete."""
import subprocess
import sys


def _run(code):
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_dir_lists_the_lazy_subpackages_before_they_are_loaded():
    out = _run("import sys, gluonedu as mx\n"
               "names = dir(mx)\n"
               "print('viz' in names, 'widgets' in names, 'nd' in names,"
               " 'gluonedu.viz' in sys.modules, 'matplotlib' in sys.modules)")
    assert out == 'True True True False False'      # listed, yet nothing imported


def test_ipython_completes_the_lazy_subpackages():
    # IPython's own completer (not jedi's static analysis) reads dir() of the module.
    out = _run("from IPython.testing.globalipapp import get_ipython\n"
               "ip = get_ipython()\n"
               "ip.Completer.use_jedi = False\n"
               "ip.run_cell('import gluonedu as mx')\n"
               "last = lambda text: [m.rsplit('.', 1)[-1] for m in ip.complete(text)[1]]\n"
               "print(last('mx.wi'), last('mx.vi'))")
    assert out == "['widgets'] ['viz']"


def test_import_loads_no_heavy_library_until_it_is_used():
    # SciPy's statistics alone took seconds: import gluonedu must stay quick to start.
    heavy = ('scipy', 'matplotlib', 'pandas', 'numba', 'threadpoolctl', 'sklearn',
             'ipywidgets', 'IPython', 'ray')
    out = _run("import sys, gluonedu as mx\n"
               "heavy = %r\n"
               "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
               "print('test_utils' in dir(mx), 'gluonedu.test_utils' in sys.modules)\n"
               "from gluonedu import test_utils\n"
               "print(mx.test_utils is test_utils, 'scipy.stats' in sys.modules)\n"
               "print(test_utils.ss.chisquare is __import__('scipy.stats').stats.chisquare)"
               % (heavy,))
    assert out.splitlines() == ['[]', 'True False', 'True False', 'True']
