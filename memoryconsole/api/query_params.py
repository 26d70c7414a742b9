"""The query-string guard: a parameter no operation takes is refused, never silently ignored.

Ninja reads only the query parameters an operation declares, so `GET /facts?type=decision`
would answer as if unfiltered. This view decorator (`api.add_decorator(query_params(api),
mode="view")`), applied to every operation once, compares the request's query keys with the
ones the operation's query models declare (their aliases) and answers anything else with a 422
`invalid_request` through the error map, listing the known ones. It runs before
authentication, like the body guard: the names it lists are the public OpenAPI schema's.
Does not: validate values (the operation's schemas do).
"""

import inspect
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI

from memoryconsole.api.errors import UnknownParameter


def query_params(api: NinjaAPI) -> Callable[[Callable], Callable]:
    """A ninja view decorator refusing query parameters the wrapped operation does not take."""

    def decorator(run: Callable) -> Callable:
        operation = getattr(inspect.unwrap(run), "__self__", None)
        known = known_params(operation)

        @wraps(run)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            unknown = sorted(set(request.GET) - known)
            if unknown:
                return api.on_exception(request, UnknownParameter(unknown, sorted(known)))
            return run(request, *args, **kwargs)

        return checked

    return decorator


def known_params(operation: object) -> frozenset[str]:
    """The query parameter names an operation declares (as a caller spells them)."""
    names: set[str] = set()
    for model in getattr(operation, "models", ()):
        if getattr(model, "__ninja_param_source__", None) != "query":
            continue
        flattened = getattr(model, "__ninja_flatten_map__", None)
        if flattened:
            names.update(flattened)
        else:
            names.update(field.alias or name for name, field in model.model_fields.items())
    return frozenset(names)
