"""notebooks/README.md, the teacher's guide, has a section for every curriculum notebook,
each with its goals, prerequisites and time, cut point, exercises, common misconceptions,
discussion prompts and references, and a row in the table of measured run times; the
README's curriculum table has a row for each notebook too."""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'scripts'))
from curriculum import curriculum_notebooks  # noqa: E402

NOTEBOOKS = [p.name[:2] for p in curriculum_notebooks()]
GUIDE = (ROOT / 'notebooks' / 'README.md').read_text(encoding='utf-8')
SECTIONS = dict(re.findall(r'^### (\d\d) · .*?\n(.*?)(?=^### |\Z)', GUIDE, re.M | re.S))


@pytest.mark.parametrize('number', NOTEBOOKS)
def test_the_guide_describes_each_notebook(number):
    assert number in SECTIONS, "notebooks/README.md has no '### %s · ...' section" % number
    for field in ('**Goals**', '**Needs**', '**Time**', '**Cut point**', '**Exercises**',
                  '**Common misconceptions**', '**Discussion prompts**', '**References**'):
        assert field in SECTIONS[number], 'section %s lacks %s' % (number, field)


def test_the_guide_and_the_readme_table_list_only_notebooks_that_exist():
    assert sorted(SECTIONS) == NOTEBOOKS
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    rows = re.findall(r'^\| (\d\d) [^|]+\|', readme, re.M)
    assert sorted(rows) == NOTEBOOKS


def test_the_guide_gives_each_notebook_a_measured_run_time():
    table = GUIDE.split('<!-- run-times: begin -->')[1].split('<!-- run-times: end -->')[0]
    measured = sorted(re.findall(r'^\| (\d\d)_\w+ \| \d+ \| \d+ \|$', table, re.M))
    assert measured == NOTEBOOKS, ('the run-time table lists %s; run make test, then '
                                   'scripts/notebook_times.py' % measured)
