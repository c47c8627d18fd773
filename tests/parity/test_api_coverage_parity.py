"""The committed API coverage report matches MXNet 1.9.1's names, re-derived.

scripts/mxnet_api_names.py lists every namespace's public names on the oracle; they must
be the ones docs/api-coverage.json records, and classifying them against this checkout
must give the committed report (otherwise: `make api-coverage`). tests/test_api_coverage.py
checks the same report without the oracle.
"""
import json
import sys

from conftest import REPO, run_oracle

sys.path.insert(0, str(REPO / 'scripts'))
import api_coverage  # noqa: E402


def test_the_report_is_the_one_mxnet_1_9_1_gives(tmp_path):
    out = tmp_path / 'names.json'
    run_oracle(api_coverage.NAMES_SCRIPT,
               ['--out', out] + [ns for ns, _ in api_coverage.NAMESPACES], tmp_path, out,
               naive_engine=False)
    listed = json.loads(out.read_text())
    assert listed['mxnet_version'] == '1.9.1'
    committed = api_coverage.load_report()
    for ns, entry in committed['namespaces'].items():
        assert entry['mxnet'] == sorted(listed['names'][ns]), (
            '%s: MXNet\'s names differ from the report; run `make api-coverage`' % ns)
    assert api_coverage.build_report(listed['mxnet_version'], listed['names']) == committed
