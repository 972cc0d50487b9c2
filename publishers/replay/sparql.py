"""SPARQL evaluation for the replay: rdflib's engine, with joins evaluated by substitution.

rdflib joins two sub-patterns bottom-up (evaluate both sides, then a nested-loop merge)
unless both sides are plain basic graph patterns; for the adapters' batch queries (a
``VALUES`` list joined with ``UNION`` branches over a ``GRAPH``) that is quadratic. A join
whose right side is made only of basic graph patterns, ``GRAPH``, ``UNION``, ``BIND`` (of
variables the left side does not bind) and further such joins gives the same solutions
when the left side's bindings are substituted into it, so those joins are marked *lazy*
(rdflib's own substitution join). Nothing else about the query changes.
"""

from __future__ import annotations

from typing import Any

from rdflib import Graph
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query
from rdflib.query import Result

_SUBSTITUTABLE = frozenset({"BGP", "Graph", "Union", "Extend", "Join"})


def prepare(query: str) -> Query:
    """Parse and translate ``query``, marking substitution-safe joins lazy."""
    translated = translateQuery(parseQuery(query))
    _mark(translated.algebra)
    return translated


def evaluate(graph: Graph, query: str) -> Result:
    return graph.query(prepare(query))


def _mark(node: Any) -> None:
    if isinstance(node, CompValue):
        if node.name == "Join" and _substitutable(node.p2, _vars(node.p1)):
            node["lazy"] = True
        for value in node.values():
            _mark(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _mark(value)


def _vars(node: Any) -> set[Any]:
    found = getattr(node, "_vars", None)
    return set(found) if found else set()


def _substitutable(node: Any, bound: set[Any]) -> bool:
    if not isinstance(node, CompValue):
        return True
    if node.name not in _SUBSTITUTABLE:
        return False
    if node.name == "Extend" and node.var in bound:
        return False
    return all(_substitutable(v, bound) for k, v in node.items() if k != "_vars" and isinstance(v, CompValue))
