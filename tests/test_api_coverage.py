"""The API coverage report (docs/api-coverage.md, docs/api-coverage.json) stays honest.

Read from the committed files, without MXNet: every name the report lists as covered
exists in gluonedu, no name it lists as lacking or excluded does (else the report is
stale: ``make api-coverage``), every exclusion carries the reason scripts/api_coverage.py
gives it, the Markdown table is the JSON's, and the in-scope set (has + lacks) and the
covered set only grow from tests/api_coverage_baseline.json. With the MXNet 1.9.1 oracle,
tests/parity/api_coverage/test_api_coverage_parity.py re-derives MXNet's names.
"""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'scripts'))
import api_coverage  # noqa: E402

REPORT = api_coverage.load_report()
NAMESPACES = [ns for ns, _ in api_coverage.NAMESPACES]
STALE = 'the report is stale: run `make api-coverage` and commit docs/api-coverage.*'


def test_every_namespace_is_reported_and_its_names_partitioned():
    assert sorted(REPORT['namespaces']) == sorted(NAMESPACES)
    assert REPORT['mxnet_version'].startswith('1.9.1')
    for ns in NAMESPACES:
        entry = REPORT['namespaces'][ns]
        has, lacks, excluded = set(entry['has']), set(entry['lacks']), set(entry['excluded'])
        assert not (has & lacks or has & excluded or lacks & excluded), ns
        assert has | lacks | excluded == set(entry['mxnet']), ns


@pytest.mark.parametrize('namespace', NAMESPACES)
def test_names_listed_as_covered_exist_and_no_other_does(namespace):
    ours = api_coverage.gluonedu_namespace(namespace)
    entry = REPORT['namespaces'][namespace]
    missing = [n for n in entry['has'] if ours is None or not hasattr(ours, n)]
    assert missing == [], 'listed as covered, missing in gluonedu: %s' % missing
    present = [n for n in entry['lacks'] + sorted(entry['excluded'])
               if ours is not None and hasattr(ours, n)]
    assert present == [], '%s (gluonedu has %s)' % (STALE, present)


@pytest.mark.parametrize('namespace', NAMESPACES)
def test_each_exclusion_carries_its_reason(namespace):
    for name, reason in REPORT['namespaces'][namespace]['excluded'].items():
        assert reason and api_coverage.exclusion(namespace, name) == reason, (name, STALE)
    for name in REPORT['namespaces'][namespace]['lacks']:
        assert api_coverage.exclusion(namespace, name) is None, (name, STALE)


def test_the_markdown_table_is_the_reports():
    assert api_coverage.REPORT_MD.read_text() == api_coverage.render_markdown(REPORT), STALE


def test_the_in_scope_and_covered_sets_only_grow():
    baseline = json.loads(api_coverage.BASELINE.read_text())
    assert api_coverage.shrinkage(REPORT, baseline) == []
    assert sum(len(api_coverage.in_scope(e)) for e in REPORT['namespaces'].values()) >= sum(
        len(e['in_scope']) for e in baseline['namespaces'].values())


def test_shrinking_is_reported_by_name():
    baseline = api_coverage.baseline_of(REPORT)
    shrunk = json.loads(json.dumps(REPORT))
    nd = shrunk['namespaces']['nd']
    nd['excluded']['take'] = 'hidden'
    nd['has'].remove('take')
    assert api_coverage.shrinkage(shrunk, baseline) == [
        'mx.nd.take left the in-scope set', 'mx.nd.take is no longer covered']
