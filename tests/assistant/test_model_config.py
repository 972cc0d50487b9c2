"""Model configuration from the environment, and the SDK response mapping."""

from __future__ import annotations

import pytest

from assistant.model import ModelConfig
from legal.errors import ConfigError


def test_no_model_configured_means_none() -> None:
    assert ModelConfig.from_env({}) is None


def test_openai_compatible_server() -> None:
    config = ModelConfig.from_env({"LEX_MODEL_NAME": "local-model", "LEX_MODEL_BASE_URL": "http://127.0.0.1:8080/v1",
                                   "LEX_MODEL_TOKEN_PARAMETER": "max_tokens"})
    assert config is not None and config.kind == "openai" and config.token_parameter == "max_tokens"
    assert config.identity().to_dict() == {"host": "127.0.0.1", "model": "local-model"}


def test_azure_deployment_and_standard_names() -> None:
    config = ModelConfig.from_env({"AZURE_OPENAI_ENDPOINT": "https://example.openai.azure.com",
                                   "AZURE_OPENAI_DEPLOYMENT": "gpt-5-mini", "AZURE_OPENAI_API_KEY": "secret-key-123"})
    assert config is not None and config.kind == "azure" and config.model == "gpt-5-mini"
    assert "secret-key-123" not in repr(config)


def test_an_endpoint_without_a_model_name_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError):
        ModelConfig.from_env({"LEX_MODEL_BASE_URL": "http://127.0.0.1:8080/v1"})
