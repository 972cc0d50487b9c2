"""The shape of the project's Dagster definitions as plain JSON (the golden asset-graph file).

Asset keys with their deps (and partition mappings), partitions, groups, kinds, pools and
checks; jobs with their selection and partitions; schedules; sensors. Regenerate the golden
with ``python scripts/regen_golden_pipelines.py`` after an intended change, and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dagster as dg

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "pipelines" / "asset_graph.json"


def _partitions(pdef: Any) -> Any:
    if pdef is None:
        return None
    if isinstance(pdef, dg.MultiPartitionsDefinition):
        return {"multi": {d.name: _partitions(d.partitions_def) for d in pdef.partitions_defs}}
    if isinstance(pdef, dg.StaticPartitionsDefinition):
        return {"static": list(pdef.get_partition_keys())}
    return {type(pdef).__name__: str(pdef)}


def _mapping(mapping: Any) -> Any:
    if mapping is None:
        return None
    out: dict[str, Any] = {"type": type(mapping).__name__}
    dimension = getattr(mapping, "partition_dimension_name", None)
    if dimension:
        out["dimension"] = dimension
    return out


def snapshot(defs: dg.Definitions) -> dict[str, Any]:
    graph = defs.resolve_asset_graph()
    assets: dict[str, Any] = {}
    for key in sorted(graph.get_all_asset_keys(), key=lambda k: k.to_user_string()):
        node = graph.get(key)
        deps = {}
        for parent in sorted(node.parent_keys, key=lambda k: k.to_user_string()):
            explicit = node.partition_mappings.get(parent)
            deps[parent.to_user_string()] = _mapping(explicit)
        assets[key.to_user_string()] = {
            "deps": deps,
            "partitions": _partitions(node.partitions_def),
            "group": node.group_name,
            "code_version": _code_version(node.code_version),
            "automation": node.automation_condition.get_label() if node.automation_condition else None,
            "kinds": sorted(node.kinds),
            "pools": sorted(node.pools or []),
            "checks": sorted(c.name for c in graph.get_check_keys_for_assets({key})),
        }
    jobs = {}
    for job in sorted(defs.resolve_all_job_defs(), key=lambda j: j.name):
        if job.name.startswith("__"):
            continue
        jobs[job.name] = {
            "assets": sorted(k.to_user_string() for k in job.asset_layer.selected_asset_keys),
            "checks": sorted(f"{c.asset_key.to_user_string()}:{c.name}"
                             for c in job.asset_layer.asset_graph.asset_check_keys),
            "partitions": _partitions(job.partitions_def),
        }
    schedules = {s.name: {"job": s.job_name, "cron": s.cron_schedule, "timezone": s.execution_timezone,
                          "default_status": s.default_status.value}
                 for s in sorted(defs.schedules or [], key=lambda s: s.name)}
    sensors = {}
    for sensor in sorted(defs.sensors or [], key=lambda s: s.name):
        targets = sorted(t.job_name for t in sensor.targets) if sensor.targets else []
        sensors[sensor.name] = {"type": type(sensor).__name__, "requests": targets,
                                "default_status": sensor.default_status.value}
    return {"assets": assets, "jobs": jobs, "schedules": schedules, "sensors": sensors}


def render(defs: dg.Definitions) -> str:
    return json.dumps(snapshot(defs), indent=2, sort_keys=True) + "\n"


def _code_version(value: str | None) -> str | None:
    """The code version, with the derivation digest named rather than spelled: it moves with every
    declared derivation version (profiles, normalisation, …), which the derive goldens pin already;
    the graph golden pins where it is used."""
    from pipelines import versions

    return "derive:<derivation_digest>" if value is not None and value == versions.derivation() else value
