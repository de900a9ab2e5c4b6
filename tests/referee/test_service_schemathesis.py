"""Schemathesis fuzzes every operation of the service's own OpenAPI schema against a real
uvicorn server on 127.0.0.1 (with and without the table token): no request may get a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .service_helpers import Server, auth, make_table

schemathesis = pytest.importorskip("schemathesis", reason="the dev extra is not installed "
                                   "(pip install -e '.[dev]')")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    srv = Server(tmp_path_factory.mktemp("fuzz") / "nertz.db", max_upload=100_000).start()
    try:
        with srv.client() as c:
            tid, token, _ = make_table(c)
            c.post(f"/api/tables/{tid}/rounds", json={"kind": "events"}, headers=auth(token))
        yield {"server": srv, "token": token}
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def api_schema(served: dict[str, Any]) -> Any:
    return schemathesis.openapi.from_url(f"{served['server'].url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_operation_answers_with_a_server_error(case: Any, served: dict[str, Any]) -> None:
    # half of the cases carry the table token, so the checks behind it are reached too
    headers = auth(served["token"]) if hash(repr(case.path_parameters)) % 2 else {}
    response = case.call(headers=headers, timeout=30)
    assert response.status_code < 500, (case.method, case.formatted_path,
                                        response.status_code, response.text[:300])
    case.validate_response(response, checks=[not_a_server_error])
