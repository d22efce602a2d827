"""HEAD is answered like GET, without the body."""

from __future__ import annotations

from tests.conftest import AppFactory
from tests.consumer.lineage import API


def test_head_gets_the_get_status_and_headers_and_no_body(make_client: AppFactory) -> None:
    client = make_client()
    for path in ("/healthz", f"{API}/jobs", f"{API}/runs?limit=1"):
        get = client.get(path)
        head = client.head(path)
        assert head.status_code == get.status_code == 200, (path, head.text)
        assert head.content == b""
        assert head.headers["content-length"] == str(len(get.content))
        assert head.headers["content-type"] == get.headers["content-type"]
    # Errors stay errors: a bad parameter, and an endpoint that takes only POST.
    assert client.head(f"{API}/jobs?limit=0").status_code == 400
    assert client.head("/api/v1/lineage").status_code == 405
