"""Moved: Legilux's replay projection is :mod:`publishers.legilux.replay` (this name re-exports it)."""

from publishers.legilux.replay import JOLUX, Projection, data_uri, project_legilux
from publishers.replay.projection import ServedFile

__all__ = ["JOLUX", "Projection", "ServedFile", "data_uri", "project_legilux"]
