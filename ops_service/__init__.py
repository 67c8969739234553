"""A small operations service (payments, tickets, accounts) that side-effecting agent tools act
on, so the lab can count effects: a retried refund that is paid twice shows as two rows.

Its own process: `starter ops-service` serves it (as docker compose deploys it), `starter run`
and the experiments' clusters start one (`OpsServiceProcess`), and the agent's tools reach it
over HTTP only (agent/ops_client.py); the agent core imports none of it (import-linter).

Run it as `python -m ops_service --port 0 --db FILE`; the first stdout line is
`listening on 127.0.0.1:PORT`. HTTP/JSON on loopback, SQLite (WAL) behind it, stdlib only.

Every request but `GET /healthz` names its tenant in `X-Tenant`; tenants never see each
other's state. Creating requests carry `Idempotency-Key`: 201 the first time, 200 with the
same resource (header `Idempotent-Replayed: true`) after, 409 for the key with another body.

    POST /seed                              {orders, accounts, tickets}   201 seeded / 200 {seeded: false}
    POST /fork                              {parent, keys}   201 forked / 200 {forked: false}; 404 parent
                                            the parent's seed and its effects made under `keys`
    GET  /state                             the tenant's orders, refunds, tickets, accounts
    POST /refunds                           {order_id, amount_cents, reason}   404 order, 422 over refundable
    GET  /refunds?order_id=ID               GET /refunds/by-key/KEY (404 when absent)
    POST /tickets                           {title, body, priority}
    GET  /tickets                           GET /tickets/by-key/KEY
    POST /accounts/USER/disable             {reason}   404 user, 409 already disabled
    GET  /accounts/USER                     GET /accounts/disabled-by-key/KEY

Errors are JSON `{"error": message}`: 400 bad JSON or fields, 404, 405, 409, 413, 422.
"""

from ops_service.process import OpsServiceProcess

__all__ = ["OpsServiceProcess"]
