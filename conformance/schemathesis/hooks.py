"""The sandbox's documented deviations from spec/openapi.yaml, excused one by one.

Schemathesis loads this file through `hooks` in schemathesis.toml. Each rule below drops one kind
of failure, and only when the request and the answer are exactly the case a decision in
docs/decisions.md describes; any other failure of the same check still fails the run. The config
file cannot say this much: it can only switch a check off for a whole operation, or make a status
acceptable for every request. Why each rule exists: docs/conformance.md, section "Schemathesis".

Every excused answer must also be the spec's Error body with `status` equal to the HTTP status:
an undocumented status is excused, a malformed error never is.
"""

from __future__ import annotations

import json
import re
from typing import Any

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData, UndefinedStatusCode

# Integers beyond this lose precision in JSON (IEEE 754 doubles); the sandbox refuses them with a
# 400 that says so, in the body, the query and the path (docs/decisions.md).
JSON_SAFE_INTEGER = 2**53 - 1

# The statuses the sandbox answers beyond the ones the spec lists, by operation (docs/decisions.md:
# "stricter than the responses the interface lists"): 400 for parameters that break the spec on
# listPets and getPet, 413 (a body over 1 MiB) and 415 (a body that is not UTF-8 JSON) on createPet.
STRICTER_STATUSES: dict[str, frozenset[int]] = {
    "listPets": frozenset({400}),
    "getPet": frozenset({400}),
    "createPet": frozenset({413, 415}),
}


def _is_error_body(response: schemathesis.Response) -> bool:
    """Whether the answer is the spec's Error object (code, message, status) with the HTTP status."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return (
        isinstance(body, dict)
        and isinstance(body.get("code"), str)
        and isinstance(body.get("message"), str)
        and body.get("status") == response.status_code
    )


def _integers(value: Any, *, text: bool):
    """Every integer in a generated value. In the path and the query (`text`) an integer may come
    already written out, as decimal digits; in a JSON body it is a number (never a boolean)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, str):
        if text and re.fullmatch(r"-?[0-9]+", value):
            yield int(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _integers(item, text=text)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _integers(item, text=text)


def _carries_unsafe_integer(case: schemathesis.Case) -> bool:
    numbers = [
        *_integers(case.path_parameters, text=True),
        *_integers(case.query, text=True),
        *_integers(case.body, text=False),
    ]
    return any(abs(number) > JSON_SAFE_INTEGER for number in numbers)


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext,
    failure: Exception,
    case: schemathesis.Case,
    response: schemathesis.Response,
) -> bool:
    """Keep every failure except the documented deviations; False drops the failure."""
    operation_id = case.operation.definition.raw.get("operationId")

    # status_code_conformance: a status the spec does not list for the operation, but the sandbox
    # answers by decision, with an Error body.
    if isinstance(failure, UndefinedStatusCode):
        excused = response.status_code in STRICTER_STATUSES.get(operation_id, frozenset())
        return not (excused and _is_error_body(response))

    # positive_data_acceptance: a request the spec allows (an int64 beyond 2^53 - 1, as petId or
    # categoryId) that the sandbox refuses by decision with a 400 Error body.
    if isinstance(failure, RejectedPositiveData):
        excused = response.status_code == 400 and _carries_unsafe_integer(case)
        return not (excused and _is_error_body(response))

    return True
