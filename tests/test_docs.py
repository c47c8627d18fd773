"""`make docs` builds: the API reference and the curriculum, with warnings as errors, as
a site that needs no network; and the docstrings are ones napoleon renders as written.

The same Sphinx build as the Makefile's ``docs`` target, into a temp dir, once for the
module. Without the docs extra (Sphinx, myst-nb, MathJax) the tests fail under CI and skip
elsewhere, naming it. The docstring checks read the sources and need no build.
"""
import importlib.util
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from browser.browser_helpers import CHROMIUM, CHROMIUM_ARGS, missing

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'scripts'))
from curriculum import curriculum_notebooks  # noqa: E402

#: What the docs extra brings: module -> its package.
DOCS_EXTRA = {'sphinx': 'sphinx', 'myst_nb': 'myst-nb', 'mathjax': 'django-static-mathjax'}


def _needs_docs_extra():
    absent = [package for module, package in DOCS_EXTRA.items()
              if importlib.util.find_spec(module) is None]
    if absent:
        message = ("the docs build needs %s: pip install -e '.[docs]' (make test installs it)"
                   % ', '.join(absent))
        if os.environ.get('CI'):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    _needs_docs_extra()
    out = tmp_path_factory.mktemp('docs')
    build = subprocess.run([sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q',
                            '-b', 'html', 'docs', str(out)],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-5000:]
    assert build.stderr == ''                        # not one warning
    return out


def test_every_curriculum_notebook_is_a_page_with_its_saved_outputs(site):
    curriculum = sorted(p.stem for p in curriculum_notebooks())
    pages = sorted(p.stem for p in (site / 'notebooks').glob('*.html'))
    assert pages == curriculum
    playground = (site / 'notebooks' / '11_optimizer_playground.html').read_text()
    assert 'settings: learning_rate=0.05' in playground      # an output, not re-run
    assert '<img' in playground                              # the saved pictures


def test_the_api_reference_documents_the_public_names(site):
    optimizer = (site / 'api' / 'optimizer.html').read_text()
    for name in ('gluonedu.optimizer.Adam', 'gluonedu.optimizer.SGD',
                 'gluonedu.lr_scheduler.CosineScheduler'):
        assert 'id="%s"' % name in optimizer
    assert 'id="gluonedu.gluon.trainer.Trainer"' in (site / 'api' / 'gluon.html').read_text()
    assert 'id="gluonedu.viz.figure.Figure"' in (site / 'api' / 'viz.html').read_text()


def test_the_coverage_page_says_where_its_report_comes_from(site):
    page = (site / 'coverage.html').read_text()
    text = re.sub(r'<[^>]+>', '', page)
    assert 'What of MXNet is covered' in text and 'make api-coverage' in text
    if (ROOT / 'docs' / 'api-coverage.md').exists():
        assert 'href="api-coverage.html"' in page
    else:
        assert 'has no docs/api-coverage.md yet' in text and 'api-coverage.html' not in page


def test_the_site_fetches_nothing_from_the_network(site):
    # Links to papers are fine; a script, stylesheet, font or picture from elsewhere is not.
    fetched = re.compile(r'<(?:script|link|img|iframe|source|video|audio)\b[^>]*?'
                         r'\b(?:src|href)="((?:https?:)?//[^"]*)"')
    remote = {str(page.relative_to(site)): fetched.findall(page.read_text(encoding='utf-8'))
              for page in site.rglob('*.html')}
    assert {page: urls for page, urls in remote.items() if urls} == {}
    assert (site / '_static' / 'mathjax' / 'tex-chtml.js').is_file()


def test_the_trainers_properties_are_listed_like_its_parameters(site):
    gluon = (site / 'api' / 'gluon.html').read_text(encoding='utf-8')
    trainer = gluon[gluon.index('id="gluonedu.gluon.trainer.Trainer"'):]
    fields = re.findall(r'<dt class="field-\w+">(\w+)<', trainer[:trainer.index('</dl>')])
    assert fields[:2] == ['Parameters', 'Properties']


#: Pages whose maths the browser test reads: notebooks 03 and 11 also show widgets' saved
#: pictures, 04 has display maths inside paragraphs; a rubric and an API page.
MATHS_PAGES = ('notebooks/03_momentum.html', 'notebooks/04_adaptive_methods.html',
               'notebooks/11_optimizer_playground.html', 'rubrics/02_gradient_descent.html',
               'api/gluon.html')
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'

# Text nodes of the page body, outside code and rendered maths, that still hold TeX.
RAW_TEX = r"""() => {
    const walker = document.createTreeWalker(document.querySelector('div.body'),
                                             NodeFilter.SHOW_TEXT);
    const raw = [];
    for (let node; (node = walker.nextNode());) {
        if (node.parentElement.closest('pre, code, script, mjx-container')) continue;
        if (/\$[^$]+\$|\\[(\[]|\\[a-zA-Z]{2,}/.test(node.textContent))
            raw.push(node.textContent.trim().slice(0, 80));
    }
    return raw;
}"""


def _widget_cells(notebook):
    """The source of each code cell with a widget that has a saved picture."""
    import nbformat
    cells = nbformat.read(ROOT / 'notebooks' / notebook, as_version=4).cells
    return [cell.source for cell in cells if cell.cell_type == 'code'
            and any(WIDGET_VIEW in out.get('data', {}) and 'image/png' in out['data']
                    for out in cell.outputs)]


def test_the_maths_and_the_widgets_pictures_show_offline_in_chromium(site):
    if not os.path.exists(CHROMIUM):
        missing('Chromium at %s (Debian package `chromium`)' % CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing('Playwright for Python')
    requested, failed = [], []

    def files_only(route):
        if route.request.url.startswith('file://'):
            route.continue_()
        else:
            requested.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(offline=True)
            context.route('**/*', files_only)
            page = context.new_page()
            page.on('requestfailed', lambda request: failed.append(request.url))
            for name in MATHS_PAGES:
                page.goto((site / name).as_uri())
                page.wait_for_function('() => window.MathJax && MathJax.startup '
                                       '&& MathJax.startup.promise')
                page.evaluate('() => MathJax.startup.promise')       # typeset done
                assert page.locator('mjx-container').count() > 0, name
                assert page.locator('mjx-merror').count() == 0, name     # no TeX errors
                unrendered = page.locator(':is(span, div).math:not(:has(mjx-container))')
                assert unrendered.count() == 0, (name, unrendered.first.inner_text())
                assert page.evaluate(RAW_TEX) == [], name
                if name.startswith('notebooks/'):
                    notebook = Path(name).with_suffix('.ipynb').name
                    for source in _widget_cells(notebook):
                        cell = page.locator('div.cell', has=page.locator(
                            'div.cell_input', has_text=source))
                        picture = cell.locator('div.cell_output img')
                        assert picture.count() == 1, (name, source)
                        assert picture.evaluate('img => img.naturalWidth') > 0, source
        finally:
            browser.close()
    assert requested == [] and failed == []


# ------------------------------------------------------------------------ the docstrings
# docs/docstring_check.py warns, during the build above, of each docstring napoleon would
# render otherwise than it reads; here is what it catches.

@pytest.fixture(scope='module')
def docstring_problems():
    """docstring_check.problems(docstring, what) with docs/conf.py's napoleon settings."""
    _needs_docs_extra()
    from sphinx.ext.napoleon import Config
    spec = importlib.util.spec_from_file_location('docstring_check',
                                                  ROOT / 'docs' / 'docstring_check.py')
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    conf = runpy.run_path(str(ROOT / 'docs' / 'conf.py'))
    config = Config(**{k: v for k, v in conf.items() if k.startswith('napoleon_')})
    return lambda docstring, what='class': check.problems(docstring.splitlines(), what, config)


PARAMETERS = """Apply an optimizer.

Parameters
----------
params : dict
    What to optimise.
"""


def test_numpy_sections_with_fields_and_notes_pass_the_docstring_check(docstring_problems):
    assert docstring_problems(PARAMETERS + """
Properties
----------
learning_rate, momentum : float
    The optimizer's.

Notes
-----
A paragraph of its own.
""") == []
    assert docstring_problems('The device type, e.g. ``cpu``.', 'property') == []


def test_the_docstring_check_names_what_napoleon_would_render_otherwise(docstring_problems):
    unknown = docstring_problems(PARAMETERS + '\nState\n-----\nmomentum : array\n')
    assert len(unknown) == 1 and "no section 'State'" in unknown[0]
    swallowed = docstring_problems(PARAMETERS + '\nThe state is the momentum.\n')
    assert len(swallowed) == 1 and "'The state is the momentum.' under Parameters" in swallowed[0]
    headless = docstring_problems('Save it.\n\nformat : str\n    Which format.\n')
    assert len(headless) == 1 and "field 'format : str' has no section header" in headless[0]
    typed = docstring_problems('Always 0: one worker.', 'property')
    assert len(typed) == 1 and 'reads as "type: description"' in typed[0]
