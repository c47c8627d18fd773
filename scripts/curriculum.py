"""What the curriculum is: ``notebooks/NN_name.ipynb``, ``name`` of ``[a-z0-9_]`` only.

The one definition that the Makefile (``make test``, ``make execute``), the docs, the
assignments and the tests all use. Any other notebook in notebooks/ is not curriculum: a
teacher's ``Untitled.ipynb``, or JupyterLab's Duplicate of a lesson,
``03_momentum-Copy1.ipynb``, which must not become a page, an assignment or a test.

``python3 scripts/curriculum.py`` prints the curriculum's paths, relative to the
repository, one per line (standard library only: the Makefile runs it before any venv).
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / 'notebooks'

#: A curriculum notebook's file name.
NAME = re.compile(r'[0-9]{2}_[a-z0-9_]+\.ipynb')


def is_curriculum(path):
    """Whether ``path`` (a file name or path) names a curriculum notebook."""
    return NAME.fullmatch(Path(path).name) is not None


def curriculum_notebooks(notebooks=NOTEBOOKS):
    """The curriculum notebooks in the folder ``notebooks``, in order."""
    return sorted(p for p in Path(notebooks).iterdir() if p.is_file() and is_curriculum(p))


if __name__ == '__main__':
    sys.stdout.write(''.join('%s\n' % p.relative_to(REPO) for p in curriculum_notebooks()))
