"""A pytest plugin that writes each test's outcome as one JSON line to the file named by WPT_OUTCOMES.

One line per test: {"test": node id, "outcome": "passed" | "failed" | "skipped" | "error", "message": …,
"seconds": its setup, call and teardown together (pytest's own durations), "phases": each of the three apart
(setup is where a test's session is made, or ended and made anew when it asks for other capabilities), which
the suite benchmark compares}.
"error" is a failure outside the test body (a fixture, e.g. the session it needed could not be created),
or a file that cannot be collected at all (its node id is the file's path).
"""
import json
import os

_results = {}
_phases = {}


def pytest_runtest_logreport(report):
    _phases.setdefault(report.nodeid, {"setup": 0.0, "call": 0.0, "teardown": 0.0})[report.when] = report.duration
    outcome = _results.get(report.nodeid, ("passed", ""))
    if report.failed:
        outcome = ("failed" if report.when == "call" else "error", _message(report))
    elif report.skipped and outcome[0] == "passed":
        outcome = ("skipped", _message(report))
    _results[report.nodeid] = outcome


def pytest_collectreport(report):
    # The trimmed 2021 snapshot has a few files importing helpers it lacks; they fail the same way against
    # every remote end, so they are recorded once per file instead of stopping the whole run.
    if report.failed:
        _results[report.nodeid] = ("error", "not collected: " + _message(report))


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message.splitlines()[0][:300] if crash.message else ""
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:300]
    return str(report.longrepr).splitlines()[-1][:300] if report.longrepr else ""


def pytest_sessionfinish(session):
    path = os.environ.get("WPT_OUTCOMES")
    if not path:
        return
    with open(path, "w") as f:
        for test, (outcome, message) in _results.items():
            phases = _phases.get(test, {"setup": 0.0, "call": 0.0, "teardown": 0.0})
            seconds = sum(phases.values())
            line = {"test": test, "outcome": outcome, "message": message, "seconds": seconds, "phases": phases}
            f.write(json.dumps(line) + "\n")
