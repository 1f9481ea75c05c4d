"""Opt-in assertions over the coverage report, verify and the stray calls: each raises
``AssertionError`` saying what is missing, in the sandbox's words where it gives them."""

from animal_store_testcontainers.control_api.models import AwaitResult, CoverageReport, StrayReport, VerifyResult


def assert_all_responses_exercised(report: CoverageReport, *operation_ids: str) -> None:
    """Fails unless every response a conforming client can cause (``reachable``) of the operations
    named (every operation when none is) was exercised. An operation the API lacks is a ValueError."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    operations = {operation.operation_id: operation for operation in report.operations}
    unknown = [operation_id for operation_id in operation_ids if operation_id not in operations]
    if unknown:
        raise ValueError(f"the API has no operation {', '.join(unknown)}; it has {', '.join(operations)}")
    failed = [operations[name].message for name in operation_ids if not operations[name].complete]
    if not operation_ids and not report.complete:
        failed = [report.message]
    if failed:
        raise AssertionError("\n".join(failed))


def assert_no_deprecated_calls(report: CoverageReport) -> None:
    """Fails when a deprecated operation was called, with the sandbox's message naming its sunset and
    replacement."""
    __tracebackhide__ = True
    if report.deprecated_calls:
        raise AssertionError(report.deprecated_calls_message)


def assert_verified(result: VerifyResult) -> None:
    """Fails unless the verification passed, with the sandbox's account of what failed."""
    __tracebackhide__ = True
    if not result.passed:
        raise AssertionError(f"verification (namespace {result.namespace}) {result.message}")


def assert_awaited(result: AwaitResult) -> None:
    """Fails unless the wait (``ControlClient.await_requests``) passed, saying what ended it."""
    __tracebackhide__ = True
    if not result.passed:
        raise AssertionError(
            f"verification (namespace {result.namespace}) {result.message}"
            f" (the wait ended by {result.ended_by} after {result.waited_ms} ms)"
        )


def assert_no_stray_calls(report: StrayReport) -> None:
    """Fails with the sandbox's message naming each stray call (``ControlClient.stray_calls``): a call
    into a namespace after its test ended, one whose trace is another test's, one with no test context."""
    __tracebackhide__ = True
    if report.strays:
        raise AssertionError(report.message)
