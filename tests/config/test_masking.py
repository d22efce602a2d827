"""Masking secrets for display (feast_lineage.config.masking)."""

from __future__ import annotations

import pytest

from feast_lineage.config.masking import MASK, is_secret_name, mask_secrets, mask_text


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "apiKey",
        "password",
        "PASSWORD",
        "client_secret",
        "private_key",
        "private_key_passphrase",
        "sas_token",
        "aws_secret_access_key",
        "credentials",
    ],
)
def test_secret_option_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "path",
        "type",
        "entity_key_serialization_version",
        "key_ttl_seconds",
        "user",
        "registry_type",
        "tokenizer_name",
        "passwordless",
    ],
)
def test_ordinary_option_names(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://feast:s3cr3t@db:5432/x", "postgresql://feast:***@db:5432/x"),
        ("postgresql+psycopg://feast:p@ss@db/x", "postgresql+psycopg://feast:***@db/x"),
        ("http://lineage:6580/api", "http://lineage:6580/api"),
        (
            "abfss://container@account.dfs.core.windows.net/p",
            "abfss://container@account.dfs.core.windows.net/p",
        ),
        ("https://h/x?password=abc&db=1", "https://h/x?password=***&db=1"),
        ("jdbc:sqlserver://h;user=u;pwd=abc;db=x", "jdbc:sqlserver://h;user=u;pwd=***;db=x"),
        ("redis.example:6379,password=abc,ssl=true", "redis.example:6379,password=***,ssl=true"),
        ("data/online.db", "data/online.db"),
        # The ingest rule: any name holding a secret word, not only exact names.
        (
            "postgresql://db/x?sslmode=require&sslpassword=abc",
            "postgresql://db/x?sslmode=require&sslpassword=***",
        ),
        (
            "https://h/o?X-Amz-Credential=AKIA&key_prefix=p",
            "https://h/o?X-Amz-Credential=***&key_prefix=p",
        ),
        (
            "DefaultEndpointsProtocol=https;AccountKey=abc",
            "DefaultEndpointsProtocol=https;AccountKey=***",
        ),
        (
            "https://h/x?db_password=abc&oauth_signature=s",
            "https://h/x?db_password=***&oauth_signature=***",
        ),
        ("socks://proxy:1080,proxy_password=abc", "socks://proxy:1080,proxy_password=***"),
    ],
)
def test_text_shows_everything_but_the_secret(text: str, shown: str) -> None:
    assert mask_text(text) == shown


def test_nested_config_is_masked_and_left_unchanged() -> None:
    config = {
        "project": "demo",
        "registry": {"registry_type": "sql", "path": "postgresql://u:pw@db/reg"},
        "openlineage": {
            "api_key": "emit-key",
            "consumer": {"api_key": "consumer-key", "retention_days": 30, "enabled": True},
            "namespace_mapping": {"s3://bucket": "lake"},
        },
        "sources": [{"password": "x"}, {"password": None}, {"password": ""}],
    }
    masked = mask_secrets(config)
    assert masked == {
        "project": "demo",
        "registry": {"registry_type": "sql", "path": "postgresql://u:***@db/reg"},
        "openlineage": {
            "api_key": MASK,
            "consumer": {"api_key": MASK, "retention_days": 30, "enabled": True},
            "namespace_mapping": {"s3://bucket": "lake"},
        },
        # No value, nothing to hide: shown as it is, so a missing key is visible.
        "sources": [{"password": MASK}, {"password": None}, {"password": ""}],
    }
    assert config["openlineage"]["api_key"] == "emit-key"  # type: ignore[index]
