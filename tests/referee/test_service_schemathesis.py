"""Schemathesis fuzzes every operation of the service's own OpenAPI schema against a real
uvicorn server on 127.0.0.1 (with and without the table token): no request may get a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .service_helpers import Server, auth, make_table

schemathesis = pytest.importorskip("schemathesis", reason="the dev extra is not installed "
                                   "(pip install -e '.[dev]')")
from hypothesis import HealthCheck, given, settings  # noqa: E402
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


def test_no_operation_answers_with_a_server_error(served: dict[str, Any]) -> None:
    # Schemathesis' own strategies and checks through Hypothesis directly (its pytest
    # plugin's parametrisation does not run under pytest 9.2)
    schema = schemathesis.openapi.from_url(f"{served['server'].url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 25
    sent: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=12, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def no_server_error(case: Any) -> None:
            # half of the cases carry the table token, so the checks behind it are reached
            headers = auth(served["token"]) if len(sent) % 2 else {}
            response = case.call(headers=headers, timeout=30)
            sent.append(case.method)
            assert response.status_code < 500, (case.method, case.formatted_path,
                                                response.status_code, response.text[:300])
            case.validate_response(response, checks=[not_a_server_error])

        no_server_error()
    assert len(sent) >= 5 * len(operations)
