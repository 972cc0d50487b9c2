"""HTTP for publisher adapters: the policy (:mod:`.client`) and the SPARQL protocol (:mod:`.sparql`)."""

from publishers.http.client import (
    DEFAULT_USER_AGENT,
    BodyOversized,
    HttpClient,
    HttpPolicy,
    HttpResponse,
    HttpStats,
    RedirectRefused,
    RetryExhausted,
    parse_retry_after,
)
from publishers.http.sparql import (
    Paging,
    Row,
    SparqlClient,
    iri,
    literal,
    load_query,
    parse_results,
)

__all__ = [
    "DEFAULT_USER_AGENT",
    "BodyOversized",
    "HttpClient",
    "HttpPolicy",
    "HttpResponse",
    "HttpStats",
    "Paging",
    "RedirectRefused",
    "RetryExhausted",
    "Row",
    "SparqlClient",
    "iri",
    "literal",
    "load_query",
    "parse_results",
    "parse_retry_after",
]
