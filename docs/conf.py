"""Sphinx configuration: the API reference (autodoc + napoleon) and the curriculum (myst-nb).

Build with ``make docs`` (HTML in build/docs); ``tests/test_docs.py`` builds it with
warnings as errors. The notebooks are rendered as saved, never executed here, and only
the curriculum (``notebooks/NN_*.ipynb``; ``docs/notebooks`` links to ../notebooks) is
part of the site. The page "What of MXNet is covered" shows ``docs/api-coverage.md``,
the API coverage report ``make api-coverage`` writes, where that file exists.
"""
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))          # document this checkout's gluonedu

project = 'gluonedu'
author = 'the gluonedu authors'
copyright = '2026, ' + author

extensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon', 'myst_nb']

root_doc = 'index'
include_patterns = ['*.md', 'api/*.md', 'rubrics/*.md', 'notebooks/[0-9][0-9]_*.ipynb']
exclude_patterns = ['_build', 'notebooks/.ipynb_checkpoints']

# The notebooks are committed executed: show their saved outputs, run nothing.
nb_execution_mode = 'off'
# A widget's saved picture rather than its live view, which would need scripts from a CDN.
nb_mime_priority_overrides = [('html', 'application/vnd.jupyter.widget-view+json', None)]
myst_enable_extensions = ['dollarmath', 'amsmath', 'substitution']
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

html_theme = 'alabaster'
html_title = 'gluonedu'
