"""Legilux (Luxembourg, ``lu-legilux``): JOLux SPARQL enumeration and filestore bodies."""

from publishers.legilux.adapter import LegiluxAdapter, LegiluxConfig, legilux_policy

__all__ = ["LegiluxAdapter", "LegiluxConfig", "legilux_policy"]
