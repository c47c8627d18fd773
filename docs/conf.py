"""Sphinx configuration: the API reference (autodoc + napoleon) and the curriculum (myst-nb).

Build with ``make docs`` (HTML in build/docs); ``tests/test_docs.py`` builds it with
warnings as errors. The notebooks are rendered as saved, never executed here, and only
the curriculum (``notebooks/NN_name.ipynb``, as scripts/curriculum.py defines it;
``docs/notebooks`` links to ../notebooks) is part of the site. The page "What of MXNet is covered" shows ``docs/api-coverage.md``,
the API coverage report ``make api-coverage`` writes, where that file exists.

The site needs no network: MathJax comes from the docs extra (copied into the build's
``_static``) and widgets show their saved pictures.
"""
import importlib.util
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))          # document this checkout's gluonedu
sys.path.insert(0, str(DOCS))                 # docstring_check
sys.path.insert(0, str(DOCS.parent / 'scripts'))   # curriculum
from curriculum import curriculum_notebooks  # noqa: E402

project = 'gluonedu'
author = 'the gluonedu authors'
copyright = '2026, ' + author

extensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon', 'docstring_check', 'myst_nb']

root_doc = 'index'
# The curriculum by name: a teacher's scratch copy (03_momentum-Copy1.ipynb) is no page.
include_patterns = ['*.md', 'api/*.md', 'rubrics/*.md'] + [
    'notebooks/' + notebook.name for notebook in curriculum_notebooks()]
exclude_patterns = ['_build', 'notebooks/.ipynb_checkpoints']

# The notebooks are committed executed: show their saved outputs, run nothing.
nb_execution_mode = 'off'
# A widget's saved picture rather than its live view, which would need scripts from a CDN;
# nor are those scripts (RequireJS, the widget manager) put on the pages.
nb_mime_priority_overrides = [('html', 'application/vnd.jupyter.widget-view+json', None)]
nb_ipywidgets_js = {}
myst_enable_extensions = ['dollarmath', 'amsmath', 'substitution']
# A $$...$$ on its own line inside a paragraph, as JupyterLab displays it.
myst_dmath_double_inline = True
myst_heading_anchors = 3

COVERAGE_REPORT = DOCS / 'api-coverage.md'
if COVERAGE_REPORT.exists():
    coverage_report = ('The report below is `docs/api-coverage.md`, written by '
                       '`make api-coverage`.\n\n```{toctree}\napi-coverage\n```\n')
else:
    coverage_report = ('This checkout has no `docs/api-coverage.md` yet: `make api-coverage` '
                       '(the API coverage report) writes it, and this page then lists it.')
myst_substitutions = {'coverage_report': coverage_report}

autodoc_default_options = {'members': True, 'member-order': 'bysource'}
autodoc_typehints = 'none'
napoleon_google_docstring = False
napoleon_numpy_docstring = True
# Parameter types as text: names such as 'shape' are not cross-references.
napoleon_use_param = False
napoleon_use_rtype = False
# MXNet's Trainer documents its properties under this heading; shown like Parameters.
napoleon_custom_sections = [('Properties', 'params_style')]

html_theme = 'alabaster'
html_title = 'gluonedu'


# MathJax 3 from the docs extra (django-static-mathjax ships its files; Django is not
# needed), served from the build, so that the maths render offline.
_mathjax = importlib.util.find_spec('mathjax')
if _mathjax is None:
    raise RuntimeError("the docs need MathJax, from the docs extra: pip install -e '.[docs]'")
MATHJAX = Path(_mathjax.submodule_search_locations[0]) / 'static' / 'mathjax' / 'es5'
mathjax_path = 'mathjax/tex-chtml.js'          # relative to the build's _static
#: What of MathJax the site leaves out: the other combined components and the SVG output.
#: The pages load tex-chtml.js, which fetches the rest on demand (TeX extensions, fonts,
#: the accessibility tools of its menu).
MATHJAX_UNUSED = ('tex-svg*.js', 'tex-mml-*.js', 'tex-chtml-full*.js', 'mml-*.js',
                  'node-main.js', 'svg')


def copy_mathjax(app):
    """Put MathJax into the build's _static, where ``mathjax_path`` points."""
    if app.builder.format == 'html':
        shutil.copytree(MATHJAX, Path(app.outdir) / '_static' / 'mathjax', dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(*MATHJAX_UNUSED))


def setup(app):
    app.connect('builder-inited', copy_mathjax)
