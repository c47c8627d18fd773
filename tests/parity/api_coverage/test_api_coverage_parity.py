"""The committed API coverage report matches MXNet 1.9.1's names, re-derived.

scripts/mxnet_api_names.py lists every namespace's public names on the oracle; they must
be the ones docs/api-coverage.json records, and classifying them against this checkout
must give the committed report (otherwise: `make api-coverage`). tests/test_api_coverage.py
checks the same report without the oracle.
"""
import json
import sys
from pathlib import Path

from harness import REPO, run_oracle

sys.path.insert(0, str(REPO / 'scripts'))
import api_coverage  # noqa: E402

ORACLE_SCRIPT = Path(__file__).with_name('oracle_api_names.py')


def test_the_report_is_the_one_mxnet_1_9_1_gives(tmp_path):
    results, meta = run_oracle(ORACLE_SCRIPT, tmp_path, api_coverage.NAMES_SCRIPT,
                               *[ns for ns, _ in api_coverage.NAMESPACES], naive_engine=False)
    names = json.loads(str(results['names']))
    assert meta['mxnet_version'] == '1.9.1'
    committed = api_coverage.load_report()
    for ns, entry in committed['namespaces'].items():
        assert entry['mxnet'] == sorted(names[ns]), (
            '%s: MXNet\'s names differ from the report; run `make api-coverage`' % ns)
    assert api_coverage.build_report(meta['mxnet_version'], names) == committed
