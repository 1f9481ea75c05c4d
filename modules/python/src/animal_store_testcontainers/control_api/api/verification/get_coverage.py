from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.coverage_report import CoverageReport
from ...models.error import Error
from ...models.get_coverage_format import GetCoverageFormat
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    namespace: str | Unset = UNSET,
    all_: bool | Unset = False,
    format_: GetCoverageFormat | Unset = GetCoverageFormat.JSON,
    trace_id: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params["all"] = all_

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    params["traceId"] = trace_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/coverage",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CoverageReport | Error | None:
    if response.status_code == 200:
        response_200 = CoverageReport.from_dict(response.json())

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
) -> Response[CoverageReport | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    all_: bool | Unset = False,
    format_: GetCoverageFormat | Unset = GetCoverageFormat.JSON,
    trace_id: str | Unset = UNSET,
) -> Response[CoverageReport | Error]:
    """Report what the requests covered of the contract

     Computed from the journal: for each operation of the API, the calls made and each documented
    response (for 400, each code the sandbox answers for that operation) exercised or not, answers
    forced by a fault or `Prefer` included; the query parameter values and bounds sent; calls to
    deprecated and to experimental or beta operations; unmatched and invalid requests. The journal is
    bounded (JOURNAL_SIZE) and lives in memory: a restart or a reset empties it.

    Args:
        namespace (str | Unset):
        all_ (bool | Unset):  Default: False.
        format_ (GetCoverageFormat | Unset):  Default: GetCoverageFormat.JSON.
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CoverageReport | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        all_=all_,
        format_=format_,
        trace_id=trace_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    all_: bool | Unset = False,
    format_: GetCoverageFormat | Unset = GetCoverageFormat.JSON,
    trace_id: str | Unset = UNSET,
) -> CoverageReport | Error | None:
    """Report what the requests covered of the contract

     Computed from the journal: for each operation of the API, the calls made and each documented
    response (for 400, each code the sandbox answers for that operation) exercised or not, answers
    forced by a fault or `Prefer` included; the query parameter values and bounds sent; calls to
    deprecated and to experimental or beta operations; unmatched and invalid requests. The journal is
    bounded (JOURNAL_SIZE) and lives in memory: a restart or a reset empties it.

    Args:
        namespace (str | Unset):
        all_ (bool | Unset):  Default: False.
        format_ (GetCoverageFormat | Unset):  Default: GetCoverageFormat.JSON.
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CoverageReport | Error
    """

    return sync_detailed(
        client=client,
        namespace=namespace,
        all_=all_,
        format_=format_,
        trace_id=trace_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    all_: bool | Unset = False,
    format_: GetCoverageFormat | Unset = GetCoverageFormat.JSON,
    trace_id: str | Unset = UNSET,
) -> Response[CoverageReport | Error]:
    """Report what the requests covered of the contract

     Computed from the journal: for each operation of the API, the calls made and each documented
    response (for 400, each code the sandbox answers for that operation) exercised or not, answers
    forced by a fault or `Prefer` included; the query parameter values and bounds sent; calls to
    deprecated and to experimental or beta operations; unmatched and invalid requests. The journal is
    bounded (JOURNAL_SIZE) and lives in memory: a restart or a reset empties it.

    Args:
        namespace (str | Unset):
        all_ (bool | Unset):  Default: False.
        format_ (GetCoverageFormat | Unset):  Default: GetCoverageFormat.JSON.
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CoverageReport | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        all_=all_,
        format_=format_,
        trace_id=trace_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    all_: bool | Unset = False,
    format_: GetCoverageFormat | Unset = GetCoverageFormat.JSON,
    trace_id: str | Unset = UNSET,
) -> CoverageReport | Error | None:
    """Report what the requests covered of the contract

     Computed from the journal: for each operation of the API, the calls made and each documented
    response (for 400, each code the sandbox answers for that operation) exercised or not, answers
    forced by a fault or `Prefer` included; the query parameter values and bounds sent; calls to
    deprecated and to experimental or beta operations; unmatched and invalid requests. The journal is
    bounded (JOURNAL_SIZE) and lives in memory: a restart or a reset empties it.

    Args:
        namespace (str | Unset):
        all_ (bool | Unset):  Default: False.
        format_ (GetCoverageFormat | Unset):  Default: GetCoverageFormat.JSON.
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CoverageReport | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            namespace=namespace,
            all_=all_,
            format_=format_,
            trace_id=trace_id,
        )
    ).parsed
