"""EUR-Lex / Cellar (``eu-eurlex``): CDM SPARQL enumeration and Cellar content negotiation."""

from publishers.eurlex.adapter import EurlexAdapter, EurlexConfig, eurlex_policy
from publishers.eurlex.scope import EurlexScope

__all__ = ["EurlexAdapter", "EurlexConfig", "EurlexScope", "eurlex_policy"]
