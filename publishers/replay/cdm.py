"""Moved: EUR-Lex's replay projection is :mod:`publishers.eurlex.replay` (this name re-exports it)."""

from publishers.eurlex.replay import (
    CDM,
    EUROVOC_GRAPH,
    CellarProjection,
    Formex,
    celex_of,
    node,
    project_eurlex,
)
from publishers.replay.projection import quiet_rdflib

__all__ = ["CDM", "EUROVOC_GRAPH", "CellarProjection", "Formex", "celex_of", "node", "project_eurlex",
           "quiet_rdflib"]
