"""Opt-in assertions over the coverage report and verify: each raises ``AssertionError`` with what is
missing, so a test fails with a message that says what to add.

    report = get_coverage.sync(client=ns.api)
    assert_all_responses_exercised(report, "createPet")
    assert_no_deprecated_calls(report)
    assert_verified(verify.sync(client=ns.api, body=VerifyRequest([Expectation("createPet", count=1)], strict=True)))
    assert_awaited(ns.await_requests([Expectation("createPet", count=1)], timeout_ms=5000))
    assert_no_stray_calls(ns.stray_calls())
"""

from animal_store_testcontainers.control_api.models import (
    AwaitResult,
    CoverageReport,
    DeprecatedCall,
    StrayCall,
    StrayReport,
    VerifyResult,
)


def assert_all_responses_exercised(report: CoverageReport, *operation_ids: str) -> None:
    """Fails unless every documented response of the operations named (of every operation when
    none is named) was exercised, leaving out those only malformed HTTP or JSON causes
    (``reachable`` false), with the sandbox's message: the report's, or the lines of the operations
    named. An operation the API lacks is a ``ValueError``."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    operations = {operation.operation_id: operation for operation in report.operations}
    unknown = [operation_id for operation_id in operation_ids if operation_id not in operations]
    if unknown:
        raise ValueError(f"the API has no operation {', '.join(unknown)}; it has {', '.join(operations)}")
    asked = [operations[operation_id] for operation_id in operation_ids]
    failed = [operation.message for operation in asked if not operation.complete]
    if not operation_ids and not report.complete:
        failed = [report.message]
    if failed:
        raise AssertionError("\n".join(failed))


def assert_no_deprecated_calls(report: CoverageReport) -> None:
    """Fails when a deprecated operation was called, naming its sunset and replacement."""
    __tracebackhide__ = True
    if report.deprecated_calls:
        calls = [_describe_deprecated(call) for call in report.deprecated_calls]
        raise AssertionError(_failure("deprecated operations called", _scope(report), calls))


def assert_verified(result: VerifyResult) -> None:
    """Fails unless the verification passed, with the sandbox's account: each failed expectation
    with the calls that came closest and their differences, and each unexpected call."""
    __tracebackhide__ = True
    if not result.passed:
        raise AssertionError(f"verification (namespace {result.namespace}) {result.message}")


def assert_awaited(result: AwaitResult) -> None:
    """Fails unless the wait passed (``ControlClient.await_requests``), with the sandbox's account
    as ``assert_verified`` gives it, and what ended the wait."""
    __tracebackhide__ = True
    if not result.passed:
        raise AssertionError(
            f"verification (namespace {result.namespace}) {result.message}"
            f" (the wait ended by {result.ended_by} after {result.waited_ms} ms)"
        )


def assert_no_stray_calls(report: StrayReport) -> None:
    """Fails naming each stray call of the report (``ControlClient.stray_calls``): a call into a
    namespace after its test ended, one whose trace is another test's, one with no test context."""
    __tracebackhide__ = True
    if report.strays:
        tests = sorted({call.test or "none" for call in report.strays})
        raise AssertionError(
            _failure("stray calls", f"test {', '.join(tests)}", [_describe_stray(c) for c in report.strays])
        )


def _describe_stray(call: StrayCall) -> str:
    """e.g. ``after-end: createPet (POST /v1/pets) answered 201, in namespace t1, trace 4bf9…``"""
    entry = call.entry
    answer = "had no answer" if entry.status is None else f"answered {entry.status}"
    text = f"{call.reason}: {entry.operation_id} ({entry.method} {entry.path}) {answer}, in namespace {call.namespace}"
    return text if not call.trace_id else f"{text}, trace {call.trace_id}"


def _failure(what: str, scope: str, items: list[str]) -> str:
    lines = "\n".join(f"- {item}" for item in items)
    return f"{what} ({scope}):\n{lines}"


def _scope(report: CoverageReport) -> str:
    return "every namespace" if report.namespace is None else f"namespace {report.namespace}"


def _describe_deprecated(call: DeprecatedCall) -> str:
    """e.g. ``getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead``"""
    calls = f"{call.calls} call{'' if call.calls == 1 else 's'}"
    text = f"{call.operation_id} ({call.method} {call.path}): {calls}"
    if call.sunset is not None:
        text += f", sunset {call.sunset.date().isoformat()}"
    if call.replacement is not None:
        text += f", use {call.replacement} instead"
    return text
