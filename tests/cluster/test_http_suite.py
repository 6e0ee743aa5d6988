"""test_http_suite.py — tests/http/test_api.py (every endpoint and error status),
test_openapi.py (the OpenAPI document's examples run) and test_scribe_run.py (`scribe-run
--submit`, its 429 retries) against a one-machine cluster instead of scripts/serve: three store voters (127.0.0.1-3), two graders
(`scribe-fcgi --store`, FastCGI over TCP) and one nginx edge (tests/cluster/cluster.py
ClusterStack). The same assertions, the same exact values.

    python3 tests/cluster/test_http_suite.py -v

Sets SCRIBE_HTTP_STACK=cluster, which harness.make_stack reads. The other HTTP suites (load,
overload, lifecycle, durability) are about one machine's processes and file, and run there only. Every process the suite
starts is stopped at its end, also on failure (test_api's tearDownModule checks that none is
left). SCRIBE_KEEP_CLUSTER=1 keeps the cluster's directory (logs) for a post-mortem.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, HERE)
os.environ["SCRIBE_HTTP_STACK"] = "cluster"
os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
sys.dont_write_bytecode = True

import test_api  # noqa: E402
import test_openapi  # noqa: E402
import test_scribe_run  # noqa: E402

SUITES = (test_api, test_openapi, test_scribe_run)


def load_tests(loader, tests, pattern):
    return unittest.TestSuite(loader.loadTestsFromModule(m) for m in SUITES)


if __name__ == "__main__":
    unittest.main()
