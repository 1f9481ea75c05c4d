from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.drift_report import DriftReport
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    namespace: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/drift",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DriftReport | Error | None:
    if response.status_code == 200:
        response_200 = DriftReport.from_dict(response.json())

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
) -> Response[DriftReport | Error]:
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
) -> Response[DriftReport | Error]:
    """Report how the sandbox's answers differ from the real API's

     With UPSTREAM_MODE=compare, each request the sandbox answered is also sent to the real API
    (UPSTREAM) once answered, in order per namespace, and the two answers are compared: status, the
    headers a client acts on, the body value by value, leaving out the JSON pointers of UPSTREAM_IGNORE.
    Each difference names its operation, the request, a pointer, both values and its kind; an upstream
    that is down, slow or answers what is not JSON is reported as such. The answer waits for the
    comparisons under way (at most UPSTREAM_TIMEOUT_MS). A reset or a deletion of the namespace clears
    it. Without UPSTREAM, mode is off and nothing is compared.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DriftReport | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> DriftReport | Error | None:
    """Report how the sandbox's answers differ from the real API's

     With UPSTREAM_MODE=compare, each request the sandbox answered is also sent to the real API
    (UPSTREAM) once answered, in order per namespace, and the two answers are compared: status, the
    headers a client acts on, the body value by value, leaving out the JSON pointers of UPSTREAM_IGNORE.
    Each difference names its operation, the request, a pointer, both values and its kind; an upstream
    that is down, slow or answers what is not JSON is reported as such. The answer waits for the
    comparisons under way (at most UPSTREAM_TIMEOUT_MS). A reset or a deletion of the namespace clears
    it. Without UPSTREAM, mode is off and nothing is compared.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DriftReport | Error
    """

    return sync_detailed(
        client=client,
        namespace=namespace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Response[DriftReport | Error]:
    """Report how the sandbox's answers differ from the real API's

     With UPSTREAM_MODE=compare, each request the sandbox answered is also sent to the real API
    (UPSTREAM) once answered, in order per namespace, and the two answers are compared: status, the
    headers a client acts on, the body value by value, leaving out the JSON pointers of UPSTREAM_IGNORE.
    Each difference names its operation, the request, a pointer, both values and its kind; an upstream
    that is down, slow or answers what is not JSON is reported as such. The answer waits for the
    comparisons under way (at most UPSTREAM_TIMEOUT_MS). A reset or a deletion of the namespace clears
    it. Without UPSTREAM, mode is off and nothing is compared.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DriftReport | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> DriftReport | Error | None:
    """Report how the sandbox's answers differ from the real API's

     With UPSTREAM_MODE=compare, each request the sandbox answered is also sent to the real API
    (UPSTREAM) once answered, in order per namespace, and the two answers are compared: status, the
    headers a client acts on, the body value by value, leaving out the JSON pointers of UPSTREAM_IGNORE.
    Each difference names its operation, the request, a pointer, both values and its kind; an upstream
    that is down, slow or answers what is not JSON is reported as such. The answer waits for the
    comparisons under way (at most UPSTREAM_TIMEOUT_MS). A reset or a deletion of the namespace clears
    it. Without UPSTREAM, mode is off and nothing is compared.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DriftReport | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            namespace=namespace,
        )
    ).parsed
