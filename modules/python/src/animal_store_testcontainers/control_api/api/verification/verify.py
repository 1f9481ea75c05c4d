from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.verify_request import VerifyRequest
from ...models.verify_result import VerifyResult
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: VerifyRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params["traceId"] = trace_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/verify",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | VerifyResult | None:
    if response.status_code == 200:
        response_200 = VerifyResult.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 421:
        response_421 = Error.from_dict(response.json())

        return response_421

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | VerifyResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: VerifyRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Response[Error | VerifyResult]:
    """Check the journal against what a test expected

     Each expectation counts the journal entries of its operation whose body contains `body` (a subset:
    every property given must be there with that value, arrays element by element) and whose headers
    include `headers` (names in any case, values exact), and checks that count against `count`, `min` or
    `max` (at least one call when none is given). A failed expectation names the closest entries with
    their differences by JSON Pointer. With `strict`, every entry no expectation matched is unexpected
    and fails the verification. The answer is 200 whether the verification passed or not.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (VerifyRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | VerifyResult]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
        trace_id=trace_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: VerifyRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Error | VerifyResult | None:
    """Check the journal against what a test expected

     Each expectation counts the journal entries of its operation whose body contains `body` (a subset:
    every property given must be there with that value, arrays element by element) and whose headers
    include `headers` (names in any case, values exact), and checks that count against `count`, `min` or
    `max` (at least one call when none is given). A failed expectation names the closest entries with
    their differences by JSON Pointer. With `strict`, every entry no expectation matched is unexpected
    and fails the verification. The answer is 200 whether the verification passed or not.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (VerifyRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | VerifyResult
    """

    return sync_detailed(
        client=client,
        body=body,
        namespace=namespace,
        trace_id=trace_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: VerifyRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Response[Error | VerifyResult]:
    """Check the journal against what a test expected

     Each expectation counts the journal entries of its operation whose body contains `body` (a subset:
    every property given must be there with that value, arrays element by element) and whose headers
    include `headers` (names in any case, values exact), and checks that count against `count`, `min` or
    `max` (at least one call when none is given). A failed expectation names the closest entries with
    their differences by JSON Pointer. With `strict`, every entry no expectation matched is unexpected
    and fails the verification. The answer is 200 whether the verification passed or not.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (VerifyRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | VerifyResult]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
        trace_id=trace_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: VerifyRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Error | VerifyResult | None:
    """Check the journal against what a test expected

     Each expectation counts the journal entries of its operation whose body contains `body` (a subset:
    every property given must be there with that value, arrays element by element) and whose headers
    include `headers` (names in any case, values exact), and checks that count against `count`, `min` or
    `max` (at least one call when none is given). A failed expectation names the closest entries with
    their differences by JSON Pointer. With `strict`, every entry no expectation matched is unexpected
    and fails the verification. The answer is 200 whether the verification passed or not.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (VerifyRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | VerifyResult
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            namespace=namespace,
            trace_id=trace_id,
        )
    ).parsed
