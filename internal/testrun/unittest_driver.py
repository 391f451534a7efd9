# Runs a project's unittest tests inside the shadow tree and writes one
# result per test as JSON to the path given first; the test ids to run
# follow, or none to discover every test as "python -m unittest discover"
# would (from the project's root, else its tests/ or test/ directory).
import json
import os
import sys
import unittest

out, ids = sys.argv[1], sys.argv[2:]
results = []


class Recorder(unittest.TextTestResult):
    def _record(self, test, status, err=None):
        text = self._exc_info_to_string(err, test) if err else ""
        results.append({"id": test.id(), "status": status, "output": text})

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "fail", err)

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "fail", err)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "fail")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "pass")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._record(subtest, "fail", err)


def count(suite):
    return suite.countTestCases()


# A tests/ directory that is not a package is its own top level, as with
# "python -m unittest discover -s tests": its modules import by their
# names, so a re-run of one test by id finds it there.
starts = [d for d in ("tests", "test") if os.path.isdir(d)]
sys.path[:0] = [os.getcwd()] + [os.path.abspath(d) for d in starts]
if ids:
    suite = unittest.TestLoader().loadTestsFromNames(ids)
else:
    suite = unittest.TestLoader().discover(".", pattern="test*.py", top_level_dir=".")
    for start in starts:
        if count(suite):
            break
        suite = unittest.TestLoader().discover(start, pattern="test*.py")
result = unittest.TextTestRunner(resultclass=Recorder, verbosity=1).run(suite)
with open(out, "w") as f:
    json.dump(results, f)
sys.exit(0 if result.wasSuccessful() else 1)
