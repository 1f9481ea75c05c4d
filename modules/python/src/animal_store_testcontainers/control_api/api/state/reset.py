from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.reset_body import ResetBody
from ...models.state_summary import StateSummary
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ResetBody | Unset = UNSET,
    namespace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/reset",
        "params": params,
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | StateSummary | None:
    if response.status_code == 200:
        response_200 = StateSummary.from_dict(response.json())

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
) -> Response[Error | StateSummary]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ResetBody | Unset = UNSET,
    namespace: str | Unset = UNSET,
) -> Response[Error | StateSummary]:
    """Put a namespace back to its initial data, with its clock back at CLOCK

     Replaces the namespace's pets with the initial data (or with pets generated from `seed` and `count`,
    or with a snapshot's pets), atomically and on disk before the answer, and clears its journal and its
    faults. Its clock goes back to where it started: the CLOCK setting (real time when CLOCK is not
    set), or the clock of the snapshot it names. To put only the clock to real time, whatever CLOCK
    says, use resetClock.

    Args:
        namespace (str | Unset):
        body (ResetBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | StateSummary]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: ResetBody | Unset = UNSET,
    namespace: str | Unset = UNSET,
) -> Error | StateSummary | None:
    """Put a namespace back to its initial data, with its clock back at CLOCK

     Replaces the namespace's pets with the initial data (or with pets generated from `seed` and `count`,
    or with a snapshot's pets), atomically and on disk before the answer, and clears its journal and its
    faults. Its clock goes back to where it started: the CLOCK setting (real time when CLOCK is not
    set), or the clock of the snapshot it names. To put only the clock to real time, whatever CLOCK
    says, use resetClock.

    Args:
        namespace (str | Unset):
        body (ResetBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | StateSummary
    """

    return sync_detailed(
        client=client,
        body=body,
        namespace=namespace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ResetBody | Unset = UNSET,
    namespace: str | Unset = UNSET,
) -> Response[Error | StateSummary]:
    """Put a namespace back to its initial data, with its clock back at CLOCK

     Replaces the namespace's pets with the initial data (or with pets generated from `seed` and `count`,
    or with a snapshot's pets), atomically and on disk before the answer, and clears its journal and its
    faults. Its clock goes back to where it started: the CLOCK setting (real time when CLOCK is not
    set), or the clock of the snapshot it names. To put only the clock to real time, whatever CLOCK
    says, use resetClock.

    Args:
        namespace (str | Unset):
        body (ResetBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | StateSummary]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ResetBody | Unset = UNSET,
    namespace: str | Unset = UNSET,
) -> Error | StateSummary | None:
    """Put a namespace back to its initial data, with its clock back at CLOCK

     Replaces the namespace's pets with the initial data (or with pets generated from `seed` and `count`,
    or with a snapshot's pets), atomically and on disk before the answer, and clears its journal and its
    faults. Its clock goes back to where it started: the CLOCK setting (real time when CLOCK is not
    set), or the clock of the snapshot it names. To put only the clock to real time, whatever CLOCK
    says, use resetClock.

    Args:
        namespace (str | Unset):
        body (ResetBody | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | StateSummary
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            namespace=namespace,
        )
    ).parsed
