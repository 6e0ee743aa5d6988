"""test_http_suite.py — tests/http/test_api.py, every endpoint and error status, against a
one-machine cluster instead of scripts/serve: three store voters (127.0.0.1-3), two graders
(`scribe-fcgi --store`, FastCGI over TCP) and one nginx edge (tests/cluster/cluster.py
ClusterStack). The same assertions, the same exact values.

    python3 tests/cluster/test_http_suite.py -v

Sets SCRIBE_HTTP_STACK=cluster, which test_api's setUpModule reads. Every process the suite
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


def load_tests(loader, tests, pattern):
    return loader.loadTestsFromModule(test_api)


if __name__ == "__main__":
    unittest.main(module=test_api)
