"""The curriculum notebooks as a student sees them: the project's figure style, figures
wide enough to read when projected, and no test-harness talk in what students read."""
import base64
import re
import sys
import statistics
import struct
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'scripts'))
from curriculum import curriculum_notebooks  # noqa: E402

NOTEBOOKS = curriculum_notebooks()
HARNESS_TALK = re.compile(r'NBVAL|nbval|not checked|pytest', re.I)


def _png_widths(nb):
    for cell in nb.cells:
        for output in cell.get('outputs', []):
            png = output.get('data', {}).get('image/png')
            if png:
                head = base64.b64decode(png[:64])
                yield struct.unpack('>I', head[16:20])[0]     # IHDR: width, big-endian


@pytest.mark.parametrize('path', NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_notebook_uses_the_project_style_and_talks_to_students(path):
    nb = nbformat.read(str(path), as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == 'code']
    assert any('viz.use_style()' in c for c in code[:2]), (
        '%s: call viz.use_style() in the first code cell' % path.name)
    talk = [i for i, c in enumerate(nb.cells) if HARNESS_TALK.search(c.source)]
    assert not talk, ('%s cells %s speak of the test harness; use cell tags '
                      '(nbval-ignore-output, ...) instead' % (path.name, talk))


def test_figures_are_wide_enough_to_read():
    widths = [w for p in NOTEBOOKS for w in _png_widths(nbformat.read(str(p), as_version=4))]
    assert widths, 'no stored figure in the curriculum'
    assert statistics.median(widths) >= 800, (
        'median stored figure width %d px (of %d figures); draw them at least 7.5 in wide '
        'with viz.use_style()' % (statistics.median(widths), len(widths)))
