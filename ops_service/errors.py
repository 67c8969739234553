"""What a request can do wrong, each with the HTTP status it is answered with.

ServiceError
 ├── BadRequest      400  not JSON, a field missing or of the wrong type, no tenant
 ├── NotFound        404  no such order, account, resource or route
 ├── NotAllowed      405  a known path, another method
 ├── Conflict        409  an idempotency key reused for another request; an account already disabled;
 │                        a write that breaks one of the database's constraints
 ├── TooLarge        413  a body over the limit
 └── Unprocessable   422  well formed but impossible (a refund over what is left to refund)
"""

from __future__ import annotations


class ServiceError(Exception):
    status = 500


class BadRequest(ServiceError):
    status = 400


class NotFound(ServiceError):
    status = 404


class NotAllowed(ServiceError):
    status = 405


class Conflict(ServiceError):
    status = 409


class TooLarge(ServiceError):
    status = 413


class Unprocessable(ServiceError):
    status = 422
