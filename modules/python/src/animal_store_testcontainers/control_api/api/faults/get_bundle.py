from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bundle import Bundle
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params["traceId"] = trace_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/bundle",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Bundle | Error | None:
    if response.status_code == 200:
        response_200 = Bundle.from_dict(response.json())

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Bundle | Error]:
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
    trace_id: str | Unset = UNSET,
) -> Response[Bundle | Error]:
    """Take everything needed to reproduce a namespace's or a trace's calls, as one file

     One versioned JSON document (docs/bundle.md): the data the namespace started from and its data now,
    its journal (the trace's calls alone with `traceId`), its faults with their counters, seeds and the
    calls they hit, its clock, the settings that shape answers, the sandbox's version and the hash of
    the API's spec. Secrets are cut as in the journal. `animal-store-sandbox replay <bundle>` replays
    it; `animal-store-sandbox shrink` finds which of its faults a failing test needs.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Bundle | Error]
    """

    kwargs = _get_kwargs(
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
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Bundle | Error | None:
    """Take everything needed to reproduce a namespace's or a trace's calls, as one file

     One versioned JSON document (docs/bundle.md): the data the namespace started from and its data now,
    its journal (the trace's calls alone with `traceId`), its faults with their counters, seeds and the
    calls they hit, its clock, the settings that shape answers, the sandbox's version and the hash of
    the API's spec. Secrets are cut as in the journal. `animal-store-sandbox replay <bundle>` replays
    it; `animal-store-sandbox shrink` finds which of its faults a failing test needs.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Bundle | Error
    """

    return sync_detailed(
        client=client,
        namespace=namespace,
        trace_id=trace_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Response[Bundle | Error]:
    """Take everything needed to reproduce a namespace's or a trace's calls, as one file

     One versioned JSON document (docs/bundle.md): the data the namespace started from and its data now,
    its journal (the trace's calls alone with `traceId`), its faults with their counters, seeds and the
    calls they hit, its clock, the settings that shape answers, the sandbox's version and the hash of
    the API's spec. Secrets are cut as in the journal. `animal-store-sandbox replay <bundle>` replays
    it; `animal-store-sandbox shrink` finds which of its faults a failing test needs.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Bundle | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        trace_id=trace_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Bundle | Error | None:
    """Take everything needed to reproduce a namespace's or a trace's calls, as one file

     One versioned JSON document (docs/bundle.md): the data the namespace started from and its data now,
    its journal (the trace's calls alone with `traceId`), its faults with their counters, seeds and the
    calls they hit, its clock, the settings that shape answers, the sandbox's version and the hash of
    the API's spec. Secrets are cut as in the journal. `animal-store-sandbox replay <bundle>` replays
    it; `animal-store-sandbox shrink` finds which of its faults a failing test needs.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Bundle | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            namespace=namespace,
            trace_id=trace_id,
        )
    ).parsed
