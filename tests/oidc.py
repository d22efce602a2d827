"""A real OpenID Connect issuer on localhost, for the ``feast`` authorizer's tests.

It serves the discovery document and the signing keys (JWKS) over HTTP, as
an identity provider such as Keycloak does, and mints RS256 access tokens
shaped like Keycloak's (``preferred_username``, roles under
``resource_access.<client_id>.roles``), which Feast's own OIDC token parser
reads. Only the identity provider is stood in for; Feast's parser fetches
the discovery document and the keys from it over real HTTP.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "feast-lineage-tests"
KEY_ID = "test-key"


@dataclass
class Issuer:
    url: str
    key: rsa.RSAPrivateKey
    requests: list[str] = field(default_factory=list)

    @property
    def discovery_url(self) -> str:
        return f"{self.url}/.well-known/openid-configuration"

    def token(
        self,
        username: str,
        roles: list[str],
        *,
        expires_in: float = 300,
        key: rsa.RSAPrivateKey | None = None,
    ) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.url,
            "sub": username,
            "preferred_username": username,
            "iat": now,
            "exp": now + int(expires_in),
            "resource_access": {CLIENT_ID: {"roles": roles}},
        }
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": KEY_ID})


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@contextmanager
def running_issuer() -> Iterator[Issuer]:
    key = new_key()
    jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    jwks = json.dumps({"keys": [{**jwk, "kid": KEY_ID, "use": "sig", "alg": "RS256"}]}).encode()
    issuer = Issuer(url="", key=key)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            issuer.requests.append(self.path)
            if self.path == "/.well-known/openid-configuration":
                body = json.dumps(
                    {
                        "issuer": issuer.url,
                        "authorization_endpoint": f"{issuer.url}/auth",
                        "token_endpoint": f"{issuer.url}/token",
                        "jwks_uri": f"{issuer.url}/jwks",
                    }
                ).encode()
            elif self.path == "/jwks":
                body = jwks
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    issuer.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="oidc-issuer", daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()
