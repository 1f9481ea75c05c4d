"""Counts a Schemathesis run from its NDJSON events and prints the closing line CI counts.

    python summarize.py EVENTS.ndjson SCHEMATHESIS_EXIT_STATUS

Prints the requests sent and the checks run (each check on each response, by check), then, last,
`N passed, N failed`, where N counts (operation, check) pairs: a check that ran on an operation's
responses passes there when none of them failed it, after the failures hooks.py drops as
documented deviations. Requests in the stateful phase count for the operation they call; the
probes of methods the spec does not list count for the operation whose path they probe. An error
of Schemathesis itself counts as one failed pair, and so does a run that exited non-zero with no
failed pair (it could not run, or a warning failed it), so that the line never says all is well
when Schemathesis does not.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def main(events_path: str, exit_status: int) -> None:
    requests_by_phase: Counter[str] = Counter()
    checks: dict[str, Counter[str]] = defaultdict(Counter)
    pairs: dict[tuple[str, str], bool] = {}
    dropped: Counter[str] = Counter()
    errors = 0

    path = Path(events_path)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    for line in lines:
        event = json.loads(line)
        if "NonFatalError" in event or "FatalError" in event:
            errors += 1
        phase_finished = event.get("PhaseFinished")
        if phase_finished is not None and phase_finished["phase"]["name"] == "probing":
            probes = (phase_finished.get("payload") or {}).get("probes", [])
            requests_by_phase["probing"] += sum(1 for probe in probes if probe.get("request"))
        finished = event.get("ScenarioFinished")
        if finished is None:
            continue
        phase = finished["phase"]
        recorder = finished["recorder"]
        cases = recorder.get("cases", {})
        interactions = recorder.get("interactions", {})
        requests_by_phase[phase] += len(interactions)
        for case_id, results in recorder.get("checks", {}).items():
            case = cases[case_id]["value"]
            operation = f"{case['method']} {case['path']}" if phase == "stateful" else recorder["label"]
            for result in results:
                name, status = result["name"], result["status"]
                checks[name][status] += 1
                key = (operation, name)
                pairs[key] = pairs.get(key, True) and status not in ("failure", "error")
        for case_id, count in recorder.get("filtered_failures", {}).items():
            case = cases[case_id]["value"]
            status = interactions.get(case_id, {}).get("response", {}).get("status_code", "no response")
            dropped[f"{case['method']} {case['path']} {status}"] += count

    if not lines:
        print(f"No events in {events_path}: Schemathesis did not run.")
    total_requests = sum(requests_by_phase.values())
    phases = ", ".join(f"{phase} {count:,}" for phase, count in requests_by_phase.items())
    print(f"Requests sent: {total_requests:,} ({phases})")
    runs = sum(sum(counter.values()) for counter in checks.values())
    failed_runs = sum(counter["failure"] + counter["error"] for counter in checks.values())
    print(f"Checks run: {runs:,} on {len(checks)} checks, {failed_runs:,} failed")
    for name, counter in sorted(checks.items()):
        failed = counter["failure"] + counter["error"]
        print(f"  {name:<30} {sum(counter.values()):>7,} run  {failed:>5,} failed")
    if dropped:
        total = sum(dropped.values())
        print(f"Failures dropped as documented deviations (hooks.py): {total:,}")
        for what, count in sorted(dropped.items()):
            print(f"  {what:<30} {count:>7,}")
    operations = sorted({operation for operation, _ in pairs})
    print(f"Operations: {len(operations)} ({', '.join(operations)})")

    passed = sum(1 for ok in pairs.values() if ok)
    failed = sum(1 for ok in pairs.values() if not ok) + errors
    if exit_status != 0 and failed == 0:
        failed = 1
    print(f"{passed} passed, {failed} failed")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
