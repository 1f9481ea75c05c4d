from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.stray_report import StrayReport
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    test: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["test"] = test

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/requests/strays",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | StrayReport | None:
    if response.status_code == 200:
        response_200 = StrayReport.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 421:
        response_421 = Error.from_dict(response.json())

        return response_421

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | StrayReport]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    test: str | Unset = UNSET,
) -> Response[Error | StrayReport]:
    """List the calls no running test made, each tied to the test that caused it

     Across every namespace, oldest first: in trace mode (NAMESPACE_FROM_TRACE), calls with no test
    context (no namespace, no trace); calls into a namespace after its test ended; and calls whose trace
    belongs to another namespace's test. Each names the test that caused it (`test`) where its namespace
    or trace context tells. Read from the journals kept, and the tests this replica saw end: a call the
    journal dropped is not listed.

    Args:
        test (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | StrayReport]
    """

    kwargs = _get_kwargs(
        test=test,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    test: str | Unset = UNSET,
) -> Error | StrayReport | None:
    """List the calls no running test made, each tied to the test that caused it

     Across every namespace, oldest first: in trace mode (NAMESPACE_FROM_TRACE), calls with no test
    context (no namespace, no trace); calls into a namespace after its test ended; and calls whose trace
    belongs to another namespace's test. Each names the test that caused it (`test`) where its namespace
    or trace context tells. Read from the journals kept, and the tests this replica saw end: a call the
    journal dropped is not listed.

    Args:
        test (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | StrayReport
    """

    return sync_detailed(
        client=client,
        test=test,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    test: str | Unset = UNSET,
) -> Response[Error | StrayReport]:
    """List the calls no running test made, each tied to the test that caused it

     Across every namespace, oldest first: in trace mode (NAMESPACE_FROM_TRACE), calls with no test
    context (no namespace, no trace); calls into a namespace after its test ended; and calls whose trace
    belongs to another namespace's test. Each names the test that caused it (`test`) where its namespace
    or trace context tells. Read from the journals kept, and the tests this replica saw end: a call the
    journal dropped is not listed.

    Args:
        test (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | StrayReport]
    """

    kwargs = _get_kwargs(
        test=test,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    test: str | Unset = UNSET,
) -> Error | StrayReport | None:
    """List the calls no running test made, each tied to the test that caused it

     Across every namespace, oldest first: in trace mode (NAMESPACE_FROM_TRACE), calls with no test
    context (no namespace, no trace); calls into a namespace after its test ended; and calls whose trace
    belongs to another namespace's test. Each names the test that caused it (`test`) where its namespace
    or trace context tells. Read from the journals kept, and the tests this replica saw end: a call the
    journal dropped is not listed.

    Args:
        test (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | StrayReport
    """

    return (
        await asyncio_detailed(
            client=client,
            test=test,
        )
    ).parsed
